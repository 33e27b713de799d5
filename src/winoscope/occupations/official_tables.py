"""Shares of women per occupation from an official table, with a category mapping.

The table has ``occupation`` (or ``category``), ``women``, ``men`` or
``pct_female``/``female_share``, optional ``source``, ``year``; an optional many-to-one mapping
goes from official categories to the dataset's occupations. Counts of every category mapped to
one occupation are **summed before the ratio**, as the SweWinogender paper does with
Statistics Sweden's categories::

    lärare <- förskollärare (women 90, men 10), gymnasielärare (women 30, men 30)
    share = (90 + 30) / (90 + 10 + 30 + 30) = 0.75     (not the mean of 0.9 and 0.5 = 0.7)

With only percentages, several categories cannot be summed; that is an error unless a
combination is asked for explicitly (``--combine`` on the command line, ``percent_combine`` in
Python): ``mean`` averages the shares (the SweWinogender documentation sheet describes its
auxiliary shares as such averages); ``weighted`` weights each share by the category's size in
a ``total`` column (people employed), which equals summing counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from ..datasets.sources import read_table
from ..errors import DatasetError
from .names import key_series, occupation_key
from .shares import Scale, classify, parse_numbers, to_share

COMBINE = ("mean", "weighted")
WEIGHT_COLUMN = "total"


def read_mapping(mapping: str | Path | Mapping[str, str] | pd.DataFrame) -> dict[str, str]:
    """Official category -> dataset occupation, from a dict or a two-column table
    (``category``, ``occupation``). A category mapped to two occupations is an error."""
    if isinstance(mapping, Mapping):
        return {occupation_key(k): str(v).strip() for k, v in mapping.items()}
    source = "mapping" if isinstance(mapping, pd.DataFrame) else str(mapping)
    frame = mapping if isinstance(mapping, pd.DataFrame) else read_table(mapping)
    for col in ("category", "occupation"):
        if col not in frame.columns:
            raise DatasetError(
                f"missing column '{col}' (need category, occupation)", file=source, field=col
            )
    out: dict[str, str] = {}
    for i, (cat, occ) in enumerate(
        zip(frame["category"].astype(str), frame["occupation"].astype(str), strict=True), start=1
    ):
        cat, occ = cat.strip(), occ.strip()
        if not cat or not occ:
            raise DatasetError(
                "empty value", file=source, row=i, field="category" if not cat else "occupation"
            )
        key = occupation_key(cat)
        if occupation_key(out.get(key, occ)) != occupation_key(occ):
            raise DatasetError(
                f"category '{cat}' is mapped to both '{out[key]}' and '{occ}'",
                file=source,
                row=i,
                field="occupation",
            )
        out[key] = occ
    return out


def read_real_world(
    table: str | Path | pd.DataFrame,
    *,
    mapping: str | Path | Mapping[str, str] | pd.DataFrame | None = None,
    column: str = "real_world",
    scale: Scale = "percent",
    percent_combine: Literal["mean", "weighted"] | None = None,
    source_name: str | None = None,
) -> pd.DataFrame:
    """Shares of women per dataset occupation from an official table (see module docstring).

    The input's ``occupation`` column (or ``category``) holds the official categories; with
    ``mapping``, categories it does not name are left out and listed in
    ``attrs["unmapped"]``. The result has ``occupation``, ``women``, ``men`` (NaN when only
    percentages were given), the share in ``column``, ``zone``, ``categories``, ``source``,
    ``year`` and ``n_categories``.
    """
    where = source_name or ("table" if isinstance(table, pd.DataFrame) else str(table))
    raw = table.copy() if isinstance(table, pd.DataFrame) else read_table(table)
    if len(raw) == 0:
        raise DatasetError("the table is empty", file=where)
    name_col = next((c for c in ("category", "occupation") if c in raw.columns), None)
    if name_col is None:
        raise DatasetError(
            "missing column 'occupation' (or 'category')", file=where, field="occupation"
        )
    cats = raw[name_col].astype("string").str.strip()
    empty = cats.isna() | cats.eq("")
    if bool(empty.any()):
        raise DatasetError(
            "empty value", file=where, row=int(empty.to_numpy().nonzero()[0][0]) + 1, field=name_col
        )
    has_counts = {"women", "men"} <= set(raw.columns)
    share_col = next((c for c in ("female_share", "pct_female") if c in raw.columns), None)
    if not has_counts and share_col is None:
        raise DatasetError(
            "need the columns women and men (counts) or pct_female/female_share",
            file=where,
            field="women",
        )
    rows = pd.DataFrame({"category": cats.astype(str)})
    if has_counts:
        rows["women"] = parse_numbers(raw, "women", source=where, low=0, high=None)
        rows["men"] = parse_numbers(raw, "men", source=where, low=0, high=None)
        zero = (rows["women"] + rows["men"]) == 0
        if bool(zero.any()):
            raise DatasetError(
                "women + men is 0: no share can be computed",
                file=where,
                row=int(zero.to_numpy().nonzero()[0][0]) + 1,
                field="women",
            )
    else:
        assert share_col is not None
        high = 1.0 if share_col == "female_share" else 100.0
        values = parse_numbers(raw, share_col, source=where, low=0, high=high)
        rows["share"] = (
            values
            if share_col == "female_share"
            else to_share(values, scale, source=where, column=share_col)
        )
    for extra in ("source", "year"):
        rows[extra] = raw[extra].astype(str).str.strip() if extra in raw.columns else ""
    if percent_combine is not None and percent_combine not in COMBINE:
        raise DatasetError(
            f"unknown combination {percent_combine!r}; choose {' or '.join(COMBINE)}", file=where
        )
    if percent_combine == "weighted" and not has_counts:
        if WEIGHT_COLUMN not in raw.columns:
            raise DatasetError(
                f"--combine weighted needs a '{WEIGHT_COLUMN}' column (people per category) "
                "to weight the shares by",
                file=where,
                field=WEIGHT_COLUMN,
            )
        rows["weight"] = parse_numbers(raw, WEIGHT_COLUMN, source=where, low=0, high=None)
    dupes = key_series(rows["category"]).duplicated()
    if bool(dupes.any()):
        i = int(dupes.to_numpy().nonzero()[0][0])
        raise DatasetError(
            f"category '{rows['category'].iloc[i]}' occurs twice",
            file=where,
            row=i + 1,
            field=name_col,
        )
    unmapped: list[str] = []
    if mapping is not None:
        lut = read_mapping(mapping)
        rows["occupation"] = key_series(rows["category"]).map(lut)
        unmapped = sorted(rows.loc[rows["occupation"].isna(), "category"])
        rows = rows[rows["occupation"].notna()]
        missing = sorted(set(lut) - set(key_series(rows["category"])))
        if missing:
            raise DatasetError(
                f"the mapping names categories the table lacks: {', '.join(missing[:10])}",
                file=where,
                field=name_col,
            )
    else:
        rows["occupation"] = rows["category"]
    records = []
    rows = rows.assign(_key=key_series(rows["occupation"]))
    for _, g in rows.groupby("_key", sort=True):
        occ = str(g["occupation"].iloc[0])
        if has_counts:
            women, men = float(g["women"].sum()), float(g["men"].sum())
            share = women / (women + men)
        else:
            if len(g) > 1 and percent_combine is None:
                raise DatasetError(
                    f"occupation '{occ}' combines {len(g)} categories "
                    f"({', '.join(g['category'])}) but the table has no counts to sum; give "
                    "women and men, or choose --combine mean (average the shares) or "
                    f"--combine weighted (weight them by a '{WEIGHT_COLUMN}' column)",
                    file=where,
                    field=share_col,
                )
            women = men = np.nan
            if percent_combine == "weighted" and len(g) > 1:
                w = g["weight"].to_numpy(float)
                if w.sum() <= 0:
                    raise DatasetError(
                        f"occupation '{occ}': its categories' {WEIGHT_COLUMN} sums to 0",
                        file=where,
                        field=WEIGHT_COLUMN,
                    )
                share = float((g["share"].to_numpy(float) * w).sum() / w.sum())
            else:
                share = float(g["share"].mean())
        records.append(
            {
                "occupation": occ,
                "women": women,
                "men": men,
                column: share,
                "zone": classify(share),
                "categories": "; ".join(g["category"]),
                "n_categories": len(g),
                "source": "; ".join(sorted({s for s in g["source"] if s})),
                "year": "; ".join(sorted({s for s in g["year"] if s})),
            }
        )
    out = pd.DataFrame.from_records(records)
    out.attrs["statistics"] = [column]
    out.attrs["unmapped"] = unmapped
    return out
