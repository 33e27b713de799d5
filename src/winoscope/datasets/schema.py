"""Column schemas for dataset families and the coercion that enforces them.

A family's schema lists the card's fields with their type and, for enum fields, the allowed
values. :func:`coerce` turns a raw table (every cell a string or a Python value, as read from
CSV, JSONL, Parquet or the hub) into a typed table, or raises one :class:`DatasetError` naming
the file, the first bad row and the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..errors import DatasetError, quote
from .base import SOURCE_ROWS, Issue, SharedRows


@dataclass(frozen=True)
class Field:
    name: str
    dtype: str = "str"  # "str" | "int" | "bool"
    enum: tuple[str, ...] | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)
    required: bool = True
    doc: str = ""
    # text in the dataset's language: the table column is ``{name}_{language}`` (sentence_uk)
    localised: bool = False

    def column(self, language: str) -> str:
        return f"{self.name}_{language}" if self.localised else self.name


@dataclass(frozen=True)
class Schema:
    family: str
    fields: tuple[Field, ...]

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


def family_schema(
    family: str,
    fields: Sequence[Field],
    language: str,
    *,
    enums: Mapping[str, tuple[str, ...]] | None = None,
    aliases: Mapping[str, Mapping[str, str]] | None = None,
) -> Schema:
    """The concrete schema of one adaptation: localised fields named for ``language``
    (``sentence`` -> ``sentence_uk``), with an adaptation's narrower ``enums`` and ``aliases``.
    """
    enums, aliases = enums or {}, aliases or {}
    out = []
    for f in fields:
        out.append(
            replace(
                f,
                name=f.column(language),
                localised=False,
                enum=enums.get(f.name, f.enum),
                aliases=aliases.get(f.name, f.aliases),
            )
        )
    return Schema(family=family, fields=tuple(out))


# Where a predictions table keeps the occupation, first present wins: the canonical occupation
# before its surface form (WinoPron's ``occupation_uk`` is the gendered form of
# ``occupation_group_uk``), SweWinogender's lemma first.
OCCUPATION_COLUMNS = (
    "occupation_participant",
    "occupation",
    "occupation_group_en",
    "occupation_group_uk",
    "occupation_group",
    "occupation_en",
    "occupation_uk",
    "occupation_sv",
)
# where a predictions table keeps the pronoun's gender (WinoBias, SweWinogender: pronoun_gender)
GENDER_COLUMNS = ("pronoun_gender", "pronoun_set")


def _describe_missing(schema: Schema, columns: Sequence[str]) -> list[str]:
    present = set(columns)
    return [f.name for f in schema.fields if f.required and f.name not in present]


def _single_values(col: pd.Series, f: Field, source: str) -> None:
    """A list, a table or an array in a cell (a Parquet list column, a JSON object in a text
    field) would reach the model as its printed form, and a true/false in a number field would
    read as 1/0: either is an error naming the first such row."""
    if col.dtype != object:
        if f.dtype == "int" and col.dtype == bool:
            raise DatasetError("expected a whole number, got true/false", file=source, row=1,
                               field=f.name)  # fmt: skip
        return
    for i, value in enumerate(col.tolist(), start=1):
        if isinstance(value, list | tuple | dict | set | np.ndarray):
            shown = value.tolist() if isinstance(value, np.ndarray) else value
            what = "table" if isinstance(value, dict) else "list"
            raise DatasetError(
                f"expected a single value, got a {what} ({quote(shown)})",
                file=source,
                row=i,
                field=f.name,
            )
        if isinstance(value, bool) and f.dtype == "int":
            raise DatasetError(
                f"expected a whole number, got {str(value).lower()}",
                file=source,
                row=i,
                field=f.name,
            )


def _wrong_type(
    col: pd.Series,
    bad: pd.Series,
    expected: str,
    name: str,
    source: str,
    findings: list[Issue] | None,
    drop: np.ndarray,
) -> bool:
    """Cells of ``col`` that are not ``expected`` (``bad``): with a ``findings`` list, one
    blocking ``type`` finding per row and the rows marked in ``drop`` (True: the caller fills
    them with a placeholder); without one, the first is an error naming file, row and field."""
    if not bool(bad.any()):
        return False
    rows = bad.to_numpy().nonzero()[0]
    if findings is None:
        i = int(rows[0])
        raise DatasetError(
            f"expected {expected}, got {quote(col.iloc[i])}", file=source, row=i + 1, field=name
        )
    for i in rows:
        message = f"expected {expected}, got {quote(col.iloc[i])}"
        findings.append(
            Issue("type", message, row=int(i) + 1, field=name, file=source, blocking=True)
        )
    drop[bad.to_numpy()] = True
    return True


def coerce(
    raw: pd.DataFrame, schema: Schema, *, source: str, findings: list[Issue] | None = None
) -> pd.DataFrame:
    """Check and type ``raw`` against ``schema``.

    Extra columns are kept unchanged (a predictions file adds ``prediction_role``). Enum aliases
    are mapped to their canonical value. Rows are numbered from 1 in errors.

    With a ``findings`` list, a value outside an enum field's values, an empty required value,
    a non-integer in an integer field and a value other than true/false in a bool field are
    data findings, not errors: one blocking Issue per
    such row (``enum``, ``required``, ``type``; file, row, field) is appended and the row is
    left out of the typed table, so that every problem of a file is reported in one pass.
    """
    if raw is None or len(raw) == 0:
        raise DatasetError("the table is empty (no data rows)", file=source)
    missing = _describe_missing(schema, list(raw.columns))
    if missing:
        near = ", ".join(sorted(str(c) for c in raw.columns)[:30])
        raise DatasetError(
            f"missing column(s) {', '.join(missing)}; the file has: {near}",
            file=source,
            field=missing[0],
        )
    out = raw.copy()
    drop = np.zeros(len(out), dtype=bool)  # rows with a value outside an enum (findings)
    for f in schema.fields:
        if f.name not in out.columns:
            continue
        col = out[f.name]
        _single_values(col, f, source)
        # plain bool: pandas before 2.2 keeps the nullable "boolean" dtype, whose array is object
        nulls = (col.isna() | col.astype("string").str.strip().eq("")).astype(bool)
        if f.required and bool(nulls.any()) and findings is not None:
            # a finding per row, the rows left out, so every problem of the file shows at once
            for i in nulls.to_numpy().nonzero()[0]:
                findings.append(
                    Issue(
                        "required",
                        "empty value",
                        row=int(i) + 1,
                        field=f.name,
                        file=source,
                        blocking=True,
                    )
                )
            drop[nulls.to_numpy()] = True
            empty = {"int": "0", "bool": "false"}.get(f.dtype, "")
            col = col.mask(nulls, f.enum[0] if f.enum else empty)
        elif f.required and bool(nulls.any()):
            row = int(nulls.to_numpy().nonzero()[0][0]) + 1
            raise DatasetError(
                f"empty value ({int(nulls.sum())} row(s) affected)",
                file=source,
                row=row,
                field=f.name,
            )
        if f.dtype == "int":
            num = pd.to_numeric(col, errors="coerce")
            bad = num.isna() | (num.notna() & (num != num.round()))
            if _wrong_type(col, bad, "an integer", f.name, source, findings, drop):
                num = num.where(~bad, 0)
            out[f.name] = num.astype("int64")
        elif f.dtype == "bool":
            mapping = {"true": True, "false": False, "1": True, "0": False}
            low = col.astype("string").str.strip().str.lower()
            bad = ~low.isin(list(mapping))
            if _wrong_type(col, bad, "true/false", f.name, source, findings, drop):
                low = low.where(~bad, "false")
            out[f.name] = low.map(mapping).astype(bool)
        else:
            text = col.astype("string")
            if f.enum is not None:
                text = text.str.strip()
                if f.aliases:
                    text = text.replace(dict(f.aliases))
                bad = ~text.isin(list(f.enum))
                if findings is not None and bool(bad.any()):
                    for i in bad.to_numpy().nonzero()[0]:
                        findings.append(
                            Issue(
                                "enum",
                                f"invalid value {quote(col.iloc[i])}; expected one of "
                                f"{', '.join(f.enum)}{case_hint(col.iloc[i], f.enum)}",
                                row=int(i) + 1,
                                field=f.name,
                                file=source,
                                blocking=True,
                            )
                        )
                    drop[bad.to_numpy()] = True
                    bad[:] = False
                if bool(bad.any()):
                    i = int(bad.to_numpy().nonzero()[0][0])
                    raise DatasetError(
                        f"invalid value {quote(col.iloc[i])}; expected one of {', '.join(f.enum)}"
                        f" ({int(bad.sum())} row(s) affected)",
                        file=source,
                        row=i + 1,
                        field=f.name,
                    )
                values = text.astype(object).where(~pd.Series(drop, index=text.index), None)
                out[f.name] = pd.Categorical(values, categories=list(f.enum))
            else:
                out[f.name] = text.astype(object)
    if drop.any():
        out = out[~drop]
        # each kept row's number in the file: findings after this name the file's rows
        out.attrs[SOURCE_ROWS] = SharedRows(int(k) + 1 for k in np.flatnonzero(~drop))
    out = out.reset_index(drop=True)
    return out


def case_hint(value: object, enum: Sequence[str]) -> str:
    """``; the values are lower case: 'pro'`` when only the case is wrong."""
    low = str(value).strip().lower()
    return f"; the values are lower case: {low!r}" if low in enum else ""
