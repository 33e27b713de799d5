"""Real-world occupation statistics: shares of women per occupation, from official tables.

Three readers, all returning a *wide statistics frame*: one row per dataset occupation, the
column ``occupation`` and one column per statistic holding the **share of women in [0, 1]**
(``frame.attrs["statistics"]`` lists those columns, :func:`~.shares.statistic_columns` reads
them):

- :func:`~.official_tables.read_real_world`: an official table (``occupation``, ``women``,
  ``men`` or ``pct_female``/``female_share``, optional ``source``, ``year``) with an optional
  many-to-one mapping from official categories to the dataset's occupations (counts of the
  categories of one occupation are summed before the ratio);
- :func:`read_swewinogender_aux`: the SweWinogender auxiliary TSV (occupation, % female per
  Statistics Sweden, % female-associated contexts with the small/medium/large collocate sets)
  -> columns ``scb``, ``corpus_small``, ``corpus_medium``, ``corpus_large``.
- :func:`read_winogender_stats`: Winogender's ``occupations-stats.tsv`` -> ``bergsma``,
  ``bls`` (and ``bls_year``, not a statistic).

:func:`load_statistics` picks the reader from the file's columns. :func:`~.shares.classify`
puts a share in the paper's three zones: male-dominated (< 1/3 women), neutral,
female-dominated (> 2/3).

Names are joined by :func:`~.names.occupation_key` (Unicode NFC, case-folded, spaces
collapsed), in the mapping and wherever statistics meet a run's or a lexicon's occupations, so
``Läkare`` written with a combining diaeresis, ``LÄKARE`` and ``läkare`` are one occupation.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..datasets.sources import read_table
from ..errors import DatasetError
from .official_tables import read_real_world
from .shares import Scale, classify_series, parse_numbers, to_share

AUX_COLUMNS = ("scb", "corpus_small", "corpus_medium", "corpus_large")


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
        values = parse_numbers(raw, col, source=str(p), low=0, high=high)
        out[col] = to_share(values, scale, source=str(p), column=col)
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
    out["bergsma"] = (
        parse_numbers(raw, "bergsma_pct_female", source=str(path), low=0, high=100) / 100
    )
    out["bls"] = parse_numbers(raw, "bls_pct_female", source=str(path), low=0, high=100) / 100
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
