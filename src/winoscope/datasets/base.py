"""The loaded-dataset container and validation findings shared by every family."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..errors import cap_quotes
from .sources import SourceInfo


@dataclass
class Dataset:
    """A typed table of one family plus where it came from.

    ``table`` has the card's column names; ``is_sample`` is True for the project's own bundled
    samples, which are never the dataset itself and are labelled as such in every report.
    """

    family: str
    name: str
    table: pd.DataFrame
    source: SourceInfo
    review_status: str
    is_sample: bool = False
    version: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # what loading found and left out of ``table`` (lines that cannot be parsed, values
    # outside the card's): the family's ``validate`` reports them with its own checks
    findings: list[Issue] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.table)

    def table_sha256(self) -> str:
        """SHA-256 of the loaded, typed table(s), independent of the file format."""
        from .provenance import table_sha256

        return table_sha256({"table": self.table, "prompts": getattr(self, "prompts", None)})

    def describe(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "name": self.name,
            "rows": len(self.table),
            "source": self.source.as_dict(),
            "table_sha256": self.table_sha256(),
            "version": self.version,
            "review_status": self.review_status,
            "is_sample": self.is_sample,
            **({"metadata": self.metadata} if self.metadata else {}),
        }


@dataclass(frozen=True)
class Issue:
    """One failed mechanical check. ``row`` is 1-based in the loaded table (None: item-level);
    ``line`` a 1-based line of a text file (bracket files); ``file`` where the row or line is.

    A ``blocking`` finding is one a run cannot score around (a line that cannot be parsed, a
    duplicated id, a value outside the card's): ``run`` refuses it unless told to leave the
    rows out. ``excludes`` (column, value) names the loaded rows that leaving out removes.
    """

    check: str
    message: str
    row: int | None = None
    item: str | None = None
    field: str | None = None
    file: str | None = None
    line: int | None = None
    blocking: bool = False
    excludes: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        # a finding quotes a few hundred characters of a value at most, with its length
        object.__setattr__(self, "message", cap_quotes(self.message))

    def format(self) -> str:
        where = []
        if self.file:
            where.append(f"file {self.file}")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.item:
            where.append(f"item {self.item}")
        if self.field:
            where.append(f"field '{self.field}'")
        return f"[{self.check}] " + (", ".join(where) + ": " if where else "") + self.message


#: ``DataFrame.attrs`` key: the file's row number of each table row, once loading left rows
#: out (``schema.coerce`` sets it)
SOURCE_ROWS = "winoscope_source_rows"
#: ``DataFrame.attrs`` key: (file, line) of each row read from a text file line by line
#: (WinoBias's bracket files), by the row's number in the file as read (before loading left
#: rows out); findings on such rows name the file and line
SOURCE_LINES = "winoscope_source_lines"
#: ``DataFrame.attrs`` key: (file, row) of each row read from a folder of table files, by the
#: row's number in the folder's tables as read; findings on such rows name the file and its row
SOURCE_FILES = "winoscope_source_files"


class SharedRows(tuple):  # type: ignore[type-arg]
    """A value for ``DataFrame.attrs`` that is never changed, so copies share it: pandas
    deep-copies ``attrs`` into every frame an operation returns, and a list of one entry per
    row made validating the English WinoBias release take 94 s instead of 2 s."""

    def __deepcopy__(self, memo: dict[int, object]) -> SharedRows:
        return self


def source_row(table: pd.DataFrame, position: int) -> int:
    """The file's row number of the table's ``position``-th row (from 1): the same unless
    loading left rows out (:data:`SOURCE_ROWS`)."""
    rows = table.attrs.get(SOURCE_ROWS)
    if rows and 1 <= position <= len(rows):
        return int(rows[position - 1])
    return position


def in_source_rows(table: pd.DataFrame, issues: Sequence[Issue]) -> list[Issue]:
    """``issues`` numbered by the file's rows where loading left rows out (a check numbers
    the table's rows; a row after a left-out one is one further down in the file)."""
    import dataclasses

    if not table.attrs.get(SOURCE_ROWS):
        return in_source_lines(table, issues)
    return in_source_lines(
        table,
        [
            dataclasses.replace(i, row=source_row(table, i.row)) if isinstance(i.row, int) else i
            for i in issues
        ],
    )


def in_source_lines(table: pd.DataFrame, issues: Sequence[Issue]) -> list[Issue]:
    """``issues`` whose row was read from a line of a text file, named by that file and line
    (``row`` here is the row's number as read, before loading left rows out)."""
    import dataclasses

    places = table.attrs.get(SOURCE_LINES)
    files = table.attrs.get(SOURCE_FILES)
    if not places and not files:
        return list(issues)
    out = []
    for i in issues:
        if isinstance(i.row, int) and places and 0 < i.row <= len(places):
            file, line = places[i.row - 1]
            i = dataclasses.replace(i, row=None, file=file, line=line)
        elif isinstance(i.row, int) and files and 0 < i.row <= len(files):
            file, row = files[i.row - 1]
            i = dataclasses.replace(i, file=file, row=row)
        out.append(i)
    return out


def _row_text(table: pd.DataFrame, row: int) -> str:
    """``row N`` of the file a row was read from, with the file's name where the table was
    read from a folder's files (:data:`SOURCE_FILES`); ``row`` numbers the rows as read."""
    files = table.attrs.get(SOURCE_FILES)
    if files and 0 < row <= len(files):
        return f"row {files[row - 1][1]} of {files[row - 1][0]}"
    return f"row {row}"


def duplicate_issues(
    table: pd.DataFrame,
    column: str,
    *,
    file: str | None,
    label: str | None = None,
    shown: str | None = None,
) -> list[Issue]:
    """One blocking ``duplicate`` finding per row whose ``column`` value an earlier row has.

    ``label`` is what the message calls the id (default: ``column``); ``shown`` the column whose
    value the finding shows as the item (default: ``column``). Rows are numbered from 1.
    """
    if column not in table.columns or table.empty:
        return []
    values = table[column].astype(str).tolist()
    items = table[shown].astype(str).tolist() if shown else values
    first: dict[str, int] = {}
    out: list[Issue] = []
    for i, v in enumerate(values, start=1):
        if v in first:
            out.append(
                Issue(
                    "duplicate",
                    f"{label or column} '{items[i - 1]}' repeats "
                    f"{_row_text(table, source_row(table, first[v]))}",
                    row=source_row(table, i),
                    item=items[i - 1],
                    field=label or column,
                    file=file,
                    blocking=True,
                    excludes=(column, v),
                )
            )
        else:
            first[v] = i
    return out


def leave_out(ds: Dataset, issues: Sequence[Issue]) -> tuple[Dataset, dict[str, Any]]:
    """``ds`` without the rows blocking findings name (their ``excludes``), and what the
    manifest records of it: how many findings and rows, per check."""
    import dataclasses
    from collections import Counter

    stop = [i for i in issues if i.blocking]
    excluded: dict[str, set[str]] = {}
    for i in stop:
        if i.excludes is not None:
            excluded.setdefault(i.excludes[0], set()).add(i.excludes[1])

    def keep(table: pd.DataFrame) -> pd.Series:
        mask = pd.Series(True, index=table.index)
        for column, values in excluded.items():
            if column in table.columns:
                mask &= ~table[column].astype(str).isin(values)
        return mask

    mask = keep(ds.table)
    # rows loading already left out (lines that do not parse, their twins, values outside
    # the card's): one per blocking loading finding that names a row or a line
    loaded = set(ds.findings)
    at_loading = {
        (i.file, i.row, i.line)
        for i in stop
        if i in loaded and (i.row is not None or i.line is not None)
    }
    changes: dict[str, Any] = {"table": ds.table[mask].reset_index(drop=True)}
    prompts = getattr(ds, "prompts", None)
    if isinstance(prompts, pd.DataFrame):
        changes["prompts"] = prompts[keep(prompts)].reset_index(drop=True)
    out = dataclasses.replace(ds, **changes)
    info = {
        "findings": len(stop),
        "rows": int((~mask).sum()) + len(at_loading),
        "checks": dict(Counter(i.check for i in stop)),
        "note": "rows that cannot be scored were left out (--skip-bad-rows): lines that do not "
        "parse and their twins, duplicated ids, values outside the card's",
    }
    return out, info


def left_out_note(left_out: Mapping[str, Any] | None) -> str | None:
    """What the reports say of a run's ``left_out`` entry (:func:`leave_out`), None without one:
    how many rows were removed and for which findings."""
    if not left_out:
        return None
    checks = ", ".join(f"{k}: {v}" for k, v in (left_out.get("checks") or {}).items())
    return (
        f"{left_out.get('rows', 0)} row(s) left out of the data (--skip-bad-rows) for "
        f"{left_out.get('findings', 0)} blocking finding(s) ({checks}): the numbers are computed "
        "without them"
    )
