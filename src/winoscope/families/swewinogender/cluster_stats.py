"""What SweWinogender's two views share: per-cluster totals and their bootstrap, parity of the
three pronoun variants, the per-pronoun counts and the column check.

The bootstrap resamples template clusters (``schema_id``): every metric is a function of the
clusters' summed statistics, evaluated on the point totals and on each replicate's weighted
totals (:func:`cluster_metrics`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ...errors import ScoringError
from ...scoring.base import METRIC_COLUMNS, MetricRows
from ...scoring.bootstrap import Replicates, bootstrap

PRONOUNS = ("han", "hon", "hen")
CLUSTER = "schema_id"

Totals = Mapping[str, np.ndarray]
MetricFn = Callable[[Totals], np.ndarray]
SizeFn = Callable[[Totals], float]  # the n a metric's value is computed over


def size_of(*columns: str) -> SizeFn:
    """The n of a metric: the sum of these totals columns (one value per replicate row 0)."""
    return lambda t: float(sum(t[c][0] for c in columns))


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def need_columns(table: pd.DataFrame, columns: tuple[str, ...], source: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ScoringError(
            f"{source}: missing column(s) {', '.join(missing)} (score the dataset rows with the "
            "prediction added, e.g. SuperLim's submission file)"
        )


def cluster_metrics(
    stats: pd.DataFrame,
    metrics: dict[tuple[str, str, str], tuple[MetricFn, SizeFn]],
    *,
    n_boot: int,
    seed: int,
    level: float,
) -> tuple[pd.DataFrame, Replicates]:
    """Evaluate each metric on the totals of per-cluster statistics, point and bootstrap; the
    tidy rows and their replicates."""
    agg = stats.groupby(CLUSTER, sort=True).sum(numeric_only=True)
    names = list(agg.columns)
    mat = agg.to_numpy(dtype=float)

    def totals(w: np.ndarray) -> dict[str, np.ndarray]:
        reps_tot = w @ mat
        return {c: reps_tot[:, i] for i, c in enumerate(names)}

    point = {c: mat.sum(axis=0)[i : i + 1] for i, c in enumerate(names)}
    boot = bootstrap(totals, len(agg), n_boot=n_boot, rng=seed, point=point)
    tidy = MetricRows(level)
    tidy.replicates.draws.append(boot.draw)
    for (name, split, typ), (fn, n_fn) in metrics.items():
        value = float(fn(point)[0])
        tidy.add(name, split, typ, value, fn(boot.replicates), round(n_fn(point)))
    return pd.DataFrame.from_records(tidy.records, columns=METRIC_COLUMNS), tidy.replicates


def parity_stats(
    rows: pd.DataFrame, group: str, column: str, valid: tuple[str, ...]
) -> pd.DataFrame:
    """Per group of three pronoun variants: complete (1/0) and at parity (1/0).

    Complete: one row for each of han, hon, hen. At parity: complete and the three values are
    the same valid one.
    """
    g = pd.DataFrame(
        {
            "group": rows[group].astype(str).to_numpy(),
            CLUSTER: rows[CLUSTER].astype(str).to_numpy(),
            "p": rows["pronoun"].astype(str).to_numpy(),
            "v": rows[column].astype(str).to_numpy(),
        }
    )
    agg = g.groupby("group", sort=True).agg(
        **{CLUSTER: (CLUSTER, "first")},
        n=("p", "size"),
        n_pron=("p", "nunique"),
        n_val=("v", "nunique"),
        first=("v", "first"),
    )
    complete = (agg["n"] == len(PRONOUNS)) & (agg["n_pron"] == len(PRONOUNS))
    identical = complete & (agg["n_val"] == 1)
    at_parity = identical & agg["first"].isin(list(valid))
    return pd.DataFrame(
        {
            CLUSTER: agg[CLUSTER].to_numpy(),
            "par_n": complete.astype(float).to_numpy(),
            "par_k": at_parity.astype(float).to_numpy(),
            "par_ident": identical.astype(float).to_numpy(),
            "group": agg.index.to_numpy(),
        }
    )


def pronoun_counts(
    rows: pd.DataFrame, pred: pd.Series, extra: dict[str, pd.Series] | None = None
) -> pd.DataFrame:
    out = []
    pron = rows["pronoun"].astype(str)
    for split, typ, mask in [("all", "all", pd.Series(True, index=rows.index))] + [
        ("pronoun", p, pron == p) for p in PRONOUNS
    ]:
        rec = {
            "split": split,
            "type": typ,
            "rows": int(mask.sum()),
            "scored": int((mask & pred.notna()).sum()),
            "invalid": int((mask & pred.eq("invalid").fillna(False)).sum()),
            "missing": int((mask & pred.isna()).sum()),
        }
        for name, col in (extra or {}).items():
            rec[name] = int((mask & col).sum())
        out.append(rec)
    return pd.DataFrame(out)
