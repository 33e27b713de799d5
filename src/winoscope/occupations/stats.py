"""Real-world occupation statistics: shares of women per occupation, from official tables.

Three readers, all returning a *wide statistics frame*: one row per dataset occupation, the
column ``occupation`` and one column per statistic holding the **share of women in [0, 1]**
(``frame.attrs["statistics"]`` lists those columns):

- :func:`read_real_world`: an official table (``occupation``, ``women``, ``men`` or
  ``pct_female``/``female_share``, optional ``source``, ``year``) with an optional many-to-one
  mapping from official categories to the dataset's occupations. Counts of every category
  mapped to one occupation are **summed before the ratio**, as the SweWinogender paper does
  with Statistics Sweden's categories::

      lärare <- förskollärare (women 90, men 10), gymnasielärare (women 30, men 30)
      share = (90 + 30) / (90 + 10 + 30 + 30) = 0.75     (not the mean of 0.9 and 0.5 = 0.7)

  With only percentages, several categories cannot be summed; that is an error unless a
  combination is asked for explicitly (``--combine`` on the command line, ``percent_combine``
  in Python): ``mean`` averages the shares (the SweWinogender documentation sheet describes
  its auxiliary shares as such averages); ``weighted`` weights each share by the category's
  size in a ``total`` column (people employed), which equals summing counts.
- :func:`read_swewinogender_aux`: the SweWinogender auxiliary TSV (occupation, % female per
  Statistics Sweden, % female-associated contexts with the small/medium/large collocate sets)
  -> columns ``scb``, ``corpus_small``, ``corpus_medium``, ``corpus_large``.
- :func:`read_winogender_stats`: Winogender's ``occupations-stats.tsv`` -> ``bergsma``,
  ``bls`` (and ``bls_year``, not a statistic).

:func:`load_statistics` picks the reader from the file's columns. :func:`classify` puts a share
in the paper's three zones: male-dominated (< 1/3 women), neutral, female-dominated (> 2/3).

Names are joined by :func:`occupation_key` (Unicode NFC, case-folded, spaces collapsed), in the
mapping and wherever statistics meet a run's or a lexicon's occupations, so ``Läkare`` written
with a combining diaeresis, ``LÄKARE`` and ``läkare`` are one occupation.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from ..datasets.sources import read_table
from ..errors import DatasetError
from .names import join_report, key_series, occupation_key  # noqa: F401 (join_report re-exported)

MALE_DOMINATED = "male-dominated"
NEUTRAL = "neutral"
FEMALE_DOMINATED = "female-dominated"
ZONES = (MALE_DOMINATED, NEUTRAL, FEMALE_DOMINATED)
LOWER, UPPER = 1 / 3, 2 / 3
AUX_COLUMNS = ("scb", "corpus_small", "corpus_medium", "corpus_large")
Scale = Literal["percent", "fraction"]
COMBINE = ("mean", "weighted")
WEIGHT_COLUMN = "total"


def classify(share: float) -> str | None:
    """The zone of a share of women: < 1/3 male-dominated, > 2/3 female-dominated, else neutral.

    The bounds themselves are neutral ("between one third and two thirds"); NaN gives None.

    >>> classify(0.2), classify(1 / 3), classify(0.9)
    ('male-dominated', 'neutral', 'female-dominated')
    """
    if share is None or (isinstance(share, float) and np.isnan(share)):
        return None
    if share < LOWER:
        return MALE_DOMINATED
    if share > UPPER:
        return FEMALE_DOMINATED
    return NEUTRAL


def classify_series(shares: pd.Series) -> pd.Series:
    return pd.Series([classify(float(x)) for x in shares], index=shares.index, dtype=object)


def statistic_columns(frame: pd.DataFrame) -> list[str]:
    """The share columns of a statistics frame (``attrs`` or every numeric non-count column)."""
    cols = frame.attrs.get("statistics")
    if cols:
        return [c for c in cols if c in frame.columns]
    skip = {"women", "men", "year", "bls_year"}
    return [
        c
        for c in frame.columns
        if c != "occupation" and c not in skip and pd.api.types.is_numeric_dtype(frame[c])
    ]


def _numbers(
    frame: pd.DataFrame, column: str, *, source: str, low: float, high: float | None
) -> pd.Series:
    text = frame[column].astype("string").str.strip().str.replace(",", ".", regex=False)
    values = pd.to_numeric(text, errors="coerce")
    bad = values.isna() | (values < low) | ((values > high) if high is not None else False)
    if bool(bad.any()):
        i = int(bad.to_numpy().nonzero()[0][0])
        rng = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise DatasetError(
            f"expected a number {rng}, got {frame[column].iloc[i]!r}",
            file=source,
            row=i + 1,
            field=column,
        )
    return values.astype(float)


def _to_share(values: pd.Series, scale: Scale, *, source: str, column: str) -> pd.Series:
    if scale == "fraction":
        return values
    if len(values) > 1 and bool((values <= 1).all()) and bool((values > 0).any()):
        raise DatasetError(
            "every value is at most 1: these look like fractions, not percentages "
            "(if they are, name the column female_share, which holds fractions)",
            file=source,
            field=column,
        )
    return values / 100.0


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
        rows["women"] = _numbers(raw, "women", source=where, low=0, high=None)
        rows["men"] = _numbers(raw, "men", source=where, low=0, high=None)
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
        values = _numbers(raw, share_col, source=where, low=0, high=high)
        rows["share"] = (
            values
            if share_col == "female_share"
            else _to_share(values, scale, source=where, column=share_col)
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
        rows["weight"] = _numbers(raw, WEIGHT_COLUMN, source=where, low=0, high=None)
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


def _has_header(first: list[str]) -> bool:
    try:
        float(first[1].replace(",", "."))
    except (ValueError, IndexError):
        return True
    return False


def read_swewinogender_aux(path: str | Path, *, scale: Scale = "percent") -> pd.DataFrame:
    """The SweWinogender auxiliary TSV: occupation, % female (SCB), % female-associated corpus
    contexts with the small, medium and large collocate sets; a header row is optional.

    Returns ``occupation``, ``scb``, ``corpus_small``, ``corpus_medium``, ``corpus_large``
    (shares in [0, 1]) and ``zone`` (of ``scb``).
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetError("no such file", file=str(p))
    lines = [ln for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    if not lines:
        raise DatasetError("the file is empty", file=str(p))
    cells = [ln.split("\t") for ln in lines]
    offset = 1 if _has_header(cells[0]) else 0
    body = cells[offset:]
    for i, row in enumerate(body, start=1):
        if len(row) != 5:
            raise DatasetError(
                f"expected 5 tab-separated columns (occupation, SCB, small, medium, large), "
                f"got {len(row)}",
                file=str(p),
                row=i,
            )
    names = ("occupation", *AUX_COLUMNS)
    raw = pd.DataFrame([[c.strip() for c in r] for r in body], columns=list(names))
    out = pd.DataFrame({"occupation": raw["occupation"]})
    for col in AUX_COLUMNS:
        high = 100.0 if scale == "percent" else 1.0
        values = _numbers(raw, col, source=str(p), low=0, high=high)
        out[col] = _to_share(values, scale, source=str(p), column=col)
    dup = out["occupation"].duplicated()
    if bool(dup.any()):
        i = int(dup.to_numpy().nonzero()[0][0])
        raise DatasetError(
            f"occupation '{out['occupation'].iloc[i]}' occurs twice",
            file=str(p),
            row=i + 1,
            field="occupation",
        )
    out["zone"] = classify_series(out["scb"])
    out.attrs["statistics"] = list(AUX_COLUMNS)
    return out


def read_winogender_stats(path: str | Path) -> pd.DataFrame:
    """Winogender's ``occupations-stats.tsv``: ``bergsma`` (text, Bergsma and Lin 2006) and
    ``bls`` (US Bureau of Labor Statistics) as shares of women, ``bls_year`` and ``zone``."""
    raw = read_table(path) if str(path).endswith(".tsv") else pd.read_csv(path, sep="\t", dtype=str)
    need = ("occupation", "bergsma_pct_female", "bls_pct_female")
    for col in need:
        if col not in raw.columns:
            raise DatasetError(f"missing column '{col}'", file=str(path), field=col)
    out = pd.DataFrame({"occupation": raw["occupation"].astype(str).str.strip()})
    out["bergsma"] = _numbers(raw, "bergsma_pct_female", source=str(path), low=0, high=100) / 100
    out["bls"] = _numbers(raw, "bls_pct_female", source=str(path), low=0, high=100) / 100
    if "bls_year" in raw.columns:
        out["bls_year"] = pd.to_numeric(raw["bls_year"], errors="coerce").astype("Int64")
    out["zone"] = classify_series(out["bls"])
    out.attrs["statistics"] = ["bergsma", "bls"]
    return out


def load_statistics(path: str | Path, **kwargs: object) -> pd.DataFrame:
    """Read any of the three formats, chosen by the file's columns (see module docstring)."""
    p = Path(path)
    if not p.is_file():
        raise DatasetError("no such file", file=str(p))
    head = p.read_text(encoding="utf-8").splitlines()[:1]
    first = head[0].split("\t") if head else []
    fixed = None
    if "bergsma_pct_female" in first:
        fixed = "Winogender occupations-stats"
    elif len(first) == 5 and ("women" not in first and "pct_female" not in first):
        fixed = "SweWinogender auxiliary"
    if fixed is not None and kwargs.get("mapping") is not None:
        raise DatasetError(
            f"a category mapping applies to official tables only, not to the {fixed} format "
            "(its occupations are the dataset's already)",
            file=str(p),
        )
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if fixed == "Winogender occupations-stats":
        out = read_winogender_stats(p)
    elif fixed is not None:
        kwargs.pop("mapping", None)
        kwargs.pop("percent_combine", None)
        out = read_swewinogender_aux(p, **kwargs)  # type: ignore[arg-type]
    else:
        out = read_real_world(p, **kwargs)  # type: ignore[arg-type]
    out.attrs["source"] = str(p)
    return out
