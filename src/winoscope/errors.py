"""Typed errors. Each carries where the problem is (file, row, field) so the CLI can print one
clear line instead of a traceback."""

from __future__ import annotations


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
        self.detail = message
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


class ScoringError(WinoscopeError):
    """Predictions cannot be scored (missing columns, unknown labels, mismatched rows)."""
