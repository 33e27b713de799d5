"""Corpus-based gender association of occupations (Hansson et al. 2021, section 4).

From the counts of a corpus scan (:mod:`winoscope.occupations.scan`):

* per collocate set, the corpus-wide female share of classified sentences
  ``q = female / (female + male)`` (ties and sentences without collocates left out);
* per occupation and set, the female and male sentences that mention it and the corpus share
  ``x_corpus = female / (female + male)``;
* the curve of perfect correspondence after correcting for the corpus-wide bias,
  ``y = q x / (q x + (1 - q)(1 - x))``: an occupation with real-world share ``x`` is expected at
  ``y`` in the corpus. Inverting it gives the corrected corpus share
  ``x_corrected = (1 - q) y / ((1 - q) y + q (1 - y))``, whose zones (< 1/3 male-dominated,
  > 2/3 female-dominated) are the paper's dashed lines ``y(1/3)`` and ``y(2/3)``;
* Spearman and Pearson correlations between the real-world share and the corpus share.

Worked example: with q = 0.25, an occupation with 50% women is expected at
y = 0.125 / (0.125 + 0.375) = 0.25 in the corpus, and the zone lines are
y(1/3) = (0.25/3) / (0.25/3 + 0.75 * 2/3) = 1/7 and y(2/3) = 0.4.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DatasetError
from ..jsonio import write_atomic, write_csv
from .names import join_report, key_series
from .scan.counts import CLASSES, SETS, ScanCounts
from .shares import LOWER, UPPER, classify


def corrected_curve(x: np.ndarray | float, q: float) -> np.ndarray | float:
    """The corpus share expected for real-world share ``x`` when the corpus' female share is q.

    >>> float(corrected_curve(0.5, 0.25))
    0.25
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = q * x / (q * x + (1 - q) * (1 - x))
    return y if y.ndim else float(y)


def invert_curve(y: np.ndarray | float, q: float) -> np.ndarray | float:
    """The real-world share whose expected corpus share is ``y`` (the corrected corpus share)."""
    y = np.asarray(y, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (1 - q) * y / ((1 - q) * y + q * (1 - y))
    return x if x.ndim else float(x)


def zone_lines(q: float) -> tuple[float, float]:
    """The corpus shares that divide the three zones after correction: y(1/3) and y(2/3)."""
    return float(corrected_curve(LOWER, q)), float(corrected_curve(UPPER, q))


def _share(f: np.ndarray, m: np.ndarray) -> np.ndarray:
    total = f + m
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, f / np.where(total > 0, total, 1), np.nan)


@dataclass
class AssociationResult:
    """Tables of one association run; ``write`` puts them in a folder."""

    lang: str
    corpus: pd.DataFrame
    occupations: pd.DataFrame
    lemmas: pd.DataFrame
    correlations: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def q(self, collocate_set: str) -> float:
        row = self.corpus[self.corpus["set"] == collocate_set]
        return float(row["q"].iloc[0]) if len(row) else float("nan")

    def wide(self) -> pd.DataFrame:
        """One row per occupation: counts and shares per set side by side (for a paper)."""
        occ = self.occupations
        parts = []
        for s in SETS:
            part = occ[occ["set"] == s].set_index("occupation")[
                ["female", "male", "tie", "pct_female", "pct_female_corrected"]
            ]
            parts.append(part.add_suffix(f"_{s}"))
        out = pd.concat(parts, axis=1)
        first = occ[occ["set"] == SETS[0]].set_index("occupation")
        out.insert(0, "mentions", first["mentions"])
        if "real_world" in occ.columns:
            out.insert(1, "real_world", first["real_world"])
        return out.reset_index()

    def write(self, out: str | Path) -> dict[str, Path]:
        """Write ``association.csv`` (long), ``association_wide.csv``, ``corpus.csv``,
        ``lemmas.csv``, ``correlations.csv`` and ``association.json`` (everything)."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        paths = {
            "association": out / "association.csv",
            "wide": out / "association_wide.csv",
            "corpus": out / "corpus.csv",
            "lemmas": out / "lemmas.csv",
            "correlations": out / "correlations.csv",
            "json": out / "association.json",
        }
        write_csv(paths["association"], self.occupations)
        write_csv(paths["wide"], self.wide())
        write_csv(paths["corpus"], self.corpus)
        write_csv(paths["lemmas"], self.lemmas)
        write_csv(paths["correlations"], self.correlations)

        def records(df: pd.DataFrame) -> list[dict[str, Any]]:
            return json.loads(df.to_json(orient="records", force_ascii=False))

        payload = {
            "lang": self.lang,
            "settings": self.settings,
            "corpus": records(self.corpus),
            "occupations": records(self.occupations),
            "lemmas": records(self.lemmas),
            "correlations": records(self.correlations),
        }
        write_atomic(paths["json"], json.dumps(payload, ensure_ascii=False, indent=2))
        return paths


def corpus_table(counts: ScanCounts) -> pd.DataFrame:
    """Per set: sentences, female, male, tie, none and q (NaN for an occupation-only scan)."""
    rows = []
    for k, s in enumerate(SETS):
        f, m, t, n = (int(v) for v in counts.totals[k])
        q = f / (f + m) if counts.full and f + m else float("nan")
        rows.append(
            {
                "set": s,
                "sentences": counts.lines,
                "female": f,
                "male": m,
                "tie": t,
                "none": n,
                "q": q,
            }
        )
    out = pd.DataFrame(rows)
    if not counts.full:
        out[["female", "male", "tie", "none"]] = pd.NA
    return out


def _counts_frame(
    array: np.ndarray, keys: list[tuple[str, ...]], key_names: list[str]
) -> pd.DataFrame:
    rows = []
    for i, key in enumerate(keys):
        for k, s in enumerate(SETS):
            f, m, t, n = (int(v) for v in array[i, k])
            rows.append((*key, s, f, m, t, f + m + t + n))
    df = pd.DataFrame(rows, columns=[*key_names, "set", "female", "male", "tie", "mentions"])
    df["pct_female"] = _share(df["female"].to_numpy(float), df["male"].to_numpy(float))
    return df


def associate(
    counts: ScanCounts,
    occupations: list[str] | tuple[str, ...],
    lemmas: list[tuple[str, str]] | tuple[tuple[str, str], ...],
    *,
    lang: str = "",
    statistics: pd.DataFrame | None = None,
    stat_column: str | None = None,
    settings: dict[str, Any] | None = None,
) -> AssociationResult:
    """Association tables from scan counts and, optionally, real-world shares of women.

    ``statistics`` is a frame with ``occupation`` and a share column in [0, 1] (as
    :func:`winoscope.occupations.stats.load_statistics` returns); ``stat_column`` picks the
    column (default: the first statistic column).
    """
    corpus = corpus_table(counts)
    occ = _counts_frame(counts.occupation, [(o,) for o in occupations], ["occupation"])
    lem = _counts_frame(counts.lemma, list(lemmas), ["occupation", "lemma"])
    q_by_set = dict(zip(corpus["set"], corpus["q"], strict=True))
    occ["q"] = occ["set"].map(q_by_set).astype(float)
    occ["pct_female_corrected"] = [
        invert_curve(y, q) for y, q in zip(occ["pct_female"], occ["q"], strict=True)
    ]
    occ["zone_corpus"] = [classify(float(x)) for x in occ["pct_female_corrected"]]
    column = None
    if statistics is not None:
        column = _pick_column(statistics, stat_column)
        where = str(statistics.attrs.get("source", "statistics"))
        unknown = join_report(
            occupations, statistics["occupation"], what="lexicon's occupations", where=where
        )
        keyed = statistics.assign(_key=key_series(statistics["occupation"]))
        real = keyed.drop_duplicates("_key").set_index("_key")[column]
        occ["real_world"] = key_series(occ["occupation"]).map(real).astype(float)
        occ["zone_real_world"] = [classify(float(x)) for x in occ["real_world"]]
        occ["expected_corpus"] = [
            corrected_curve(x, q) for x, q in zip(occ["real_world"], occ["q"], strict=True)
        ]
        settings = {**(settings or {}), "occupations_without_statistics": sorted(unknown)}
    correlations = correlation_table(occ) if statistics is not None else _empty_correlations()
    return AssociationResult(
        lang=lang,
        corpus=corpus,
        occupations=occ,
        lemmas=lem,
        correlations=correlations,
        settings={**(settings or {}), "statistic": column, "classes": list(CLASSES)},
    )


def _pick_column(statistics: pd.DataFrame, stat_column: str | None) -> str:
    if "occupation" not in statistics.columns:
        raise DatasetError("statistics need an 'occupation' column", field="occupation")
    if stat_column is not None:
        if stat_column not in statistics.columns:
            raise DatasetError(f"statistics have no column {stat_column!r}", field=stat_column)
        return stat_column
    from .shares import statistic_columns

    columns = statistic_columns(statistics)
    preferred = [c for c in ("real_world", "scb", "bls") if c in columns]
    if not columns:
        raise DatasetError("statistics have no share column")
    return (preferred or columns)[0]


def _empty_correlations() -> pd.DataFrame:
    return pd.DataFrame(columns=["set", "method", "measure", "value", "p_value", "n"])


def correlation_table(occ: pd.DataFrame) -> pd.DataFrame:
    """Spearman and Pearson correlation of the real-world share with the corpus share (raw and
    corrected), per set, over occupations with both values."""
    from scipy import stats as sps

    rows = []
    for s in SETS:
        part = occ[occ["set"] == s]
        for measure in ("pct_female", "pct_female_corrected"):
            ok = part["real_world"].notna() & part[measure].notna()
            x = part.loc[ok, "real_world"].to_numpy(float)
            y = part.loc[ok, measure].to_numpy(float)
            for method, fn in (("spearman", sps.spearmanr), ("pearson", sps.pearsonr)):
                if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
                    res = fn(x, y)
                    value, p = float(res.statistic), float(res.pvalue)
                else:
                    value, p = float("nan"), float("nan")
                rows.append((s, method, measure, value, p, len(x)))
    return pd.DataFrame(rows, columns=["set", "method", "measure", "value", "p_value", "n"])
