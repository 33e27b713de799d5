"""Typed errors. Each carries where the problem is (file, row, field) so the CLI can print one
clear line instead of a traceback."""

from __future__ import annotations

import os
import re

#: characters of a value a message quotes at most (a 5-million-character cell is not echoed)
QUOTE_LIMIT = 200
_LONG_QUOTED = re.compile(rf"'[^'\n]{{{QUOTE_LIMIT + 1},}}'|\"[^\"\n]{{{QUOTE_LIMIT + 1},}}\"")


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)``, cut to ``limit`` characters with the length said:
    ``'xxxx…' (5000000 characters)``."""
    text = repr(value)
    if len(text) <= limit + 2:
        return text
    length = len(value) if isinstance(value, str) else len(text)
    return f"{text[:limit]}…{text[0]} ({length} characters)"


def cap_quotes(message: str, limit: int = QUOTE_LIMIT) -> str:
    """Every quoted value longer than ``limit`` in ``message`` cut as :func:`quote` does."""
    if len(message) <= limit:
        return message

    def cut(m: re.Match[str]) -> str:
        body = m.group(0)
        return f"{body[: limit + 1]}…{body[0]} ({len(body) - 2} characters)"

    out = _LONG_QUOTED.sub(cut, message)
    if len(out) > 4 * limit + 400:  # a long value without quotes
        out = f"{out[: 4 * limit]}… ({len(out)} characters)"
    return out


class WinoscopeError(Exception):
    """Base class of every error the library raises on purpose."""


class DatasetError(WinoscopeError):
    """A dataset source could not be read or does not match its schema.

    ``row`` is 1-based and counts data rows (the header of a CSV is not a row), so
    ``row=3`` is the third record in the file. ``line`` is a 1-based line of a text file, for
    formats read line by line (CoNLL, jsonlines).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        row: int | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.row = row
        self.line = line
        self.field = field
        self.detail = cap_quotes(message)
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = []
        if self.file:
            where.append(f"file {self.file}")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        return (", ".join(where) + ": " if where else "") + self.detail


class TaskError(WinoscopeError):
    """An unknown task, protocol or an impossible combination of options."""


class BackendError(WinoscopeError):
    """A model backend could not be created or failed in a way that is not per-request."""


class RequestsFailed(WinoscopeError):
    """Requests failed after their retries, so there is nothing to go on (exit status 3 on the
    command line): no request of a run was answered."""


class ScoringError(WinoscopeError):
    """Predictions cannot be scored (missing columns, unknown labels, mismatched rows)."""


def read_utf8(path: str | os.PathLike[str]) -> str:
    """A text file's contents; a file that is not UTF-8 is :func:`not_utf8`'s error."""
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise not_utf8(os.fspath(path), data) from None


def not_utf8(path: str, data: bytes | None = None) -> DatasetError:
    """The error for a file that is not UTF-8 text, naming the line of its first bad byte
    (the decoder's own offset is into a buffer, not the file, so the file is decoded again)."""
    if data is None:
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        if exc.reason == "unexpected end of data":
            return DatasetError(
                "the file ends in the middle of a character: it is cut short", file=path, line=line
            )
        return DatasetError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} (another encoding, e.g. "
            "Windows-1251?); save the file as UTF-8",
            file=path,
            line=line,
        )
    return DatasetError("not UTF-8 text; save the file as UTF-8", file=path)
