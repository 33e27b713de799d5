"""Statistics across prompt templates: the mean with a two-level bootstrap interval and the
spread (min, max, sd) of each overall metric.

Two-level bootstrap (templates, then items). Every template is scored on the same rows with
the same seed, so its scorer draws the same resamples of the task's own units (source items,
pairs, schemas): replicate ``b`` of every template is the metric on item resample ``b``
(each run's ``ScoreResult.replicates`` holds them). For each ``b`` the template
level draws ``T`` of the ``T`` templates with replacement (counts ``c_bt``, multinomial from
``numpy.random.default_rng([seed, 14])``, a stream apart from the items') and takes
``mean*_b = sum_t c_bt * m_t(b) / sum_t c_bt`` over the templates where the metric is defined.
The interval is the 2.5 and 97.5 percentiles of ``mean*_b``. It answers "what would the mean
be over another sample of items and another sample of wordings like these": wider than the
item interval when the templates disagree, equal to it when every template answers alike.

Worked example: two templates, two replicates, m_1 = (0.2, 0.4), m_2 = (0.6, undefined);
counts (2, 0) give mean*_1 = 0.2; counts (1, 1) give mean*_2 = 0.4 (template 2 undefined there).

``sd`` is the sample standard deviation across templates (``ddof=1``: the templates are a
sample of possible wordings), exactly 0 when every template gives the same value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

TEMPLATE_STREAM = 14  # second word of the template-level seed: default_rng([seed, 14])
SUMMARY_COLUMNS = [
    "metric",
    "split",
    "type",
    "headline",
    "templates",
    "mean",
    "ci_low",
    "ci_high",
    "min",
    "min_template",
    "max",
    "max_template",
    "sd",
]


def overall_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    """The rows a task reports as its overall figures: macro rows, else ``split == 'all'``,
    else the only stratum there is."""
    split = metrics["split"].astype(str)
    for mask in (split == "macro", split == "all"):
        if bool(mask.any()):
            return metrics[mask]
    keys = metrics[["split", "type"]].astype(str).drop_duplicates()
    return metrics if len(keys) == 1 else metrics.iloc[0:0]


def two_level_interval(
    replicates: np.ndarray, template_counts: np.ndarray, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of ``mean*_b`` (module docstring): ``replicates`` is templates x B
    (NaN where undefined), ``template_counts`` B x templates."""
    from .stats import percentile_ci

    reps = np.asarray(replicates, dtype=float).T  # B x T
    defined = ~np.isnan(reps)
    weights = np.where(defined, template_counts, 0.0)
    total = weights.sum(axis=1)
    num = weights * np.where(defined, reps, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(total > 0, num.sum(axis=1) / np.where(total > 0, total, 1), np.nan)
    return percentile_ci(means, level)


def template_counts(n_templates: int, n_boot: int, seed: int) -> np.ndarray:
    """The template level's draws: B x T counts of each template (see the module docstring)."""
    from .bootstrap import resample_weights

    return resample_weights(n_templates, n_boot, np.random.default_rng([seed, TEMPLATE_STREAM]))


def summarise(
    runs: Sequence[tuple[str, pd.DataFrame, Mapping[tuple[str, str, str], np.ndarray]]],
    *,
    n_boot: int,
    seed: int,
    level: float = 0.95,
) -> pd.DataFrame:
    """The summary table from (template name, metrics, replicates by key) per template."""
    from .metric import headline_metrics

    names = [name for name, _, _ in runs]
    keys: list[tuple[str, str, str]] = []
    for _, metrics, _ in runs:
        for r in overall_rows(metrics).itertuples(index=False):
            key = (str(r.metric), str(r.split), str(r.type))
            if key not in keys:
                keys.append(key)
    headline = set(headline_metrics(list(dict.fromkeys(k[0] for k in keys))))
    counts = template_counts(len(runs), n_boot, seed)
    records = []
    for key in keys:
        values = np.full(len(runs), np.nan)
        reps = np.full((len(runs), n_boot), np.nan)
        for i, (_, metrics, replicates) in enumerate(runs):
            row = metrics[
                (metrics["metric"].astype(str) == key[0])
                & (metrics["split"].astype(str) == key[1])
                & (metrics["type"].astype(str) == key[2])
            ]
            if not row.empty:
                values[i] = float(row["value"].iloc[0])
            if key in replicates and replicates[key].size == n_boot:
                reps[i] = replicates[key]
        defined = ~np.isnan(values)
        reps[~defined] = np.nan  # an undefined value has no interval
        lo, hi = two_level_interval(reps, counts, level) if defined.any() else (math.nan,) * 2
        d = values[defined]
        kept = [n for n, ok in zip(names, defined, strict=True) if ok]
        records.append(
            {
                "metric": key[0],
                "split": key[1],
                "type": key[2],
                "headline": key[0] in headline,
                "templates": int(defined.sum()),
                "mean": float(d.mean()) if d.size else math.nan,
                "ci_low": lo,
                "ci_high": hi,
                "min": float(d.min()) if d.size else math.nan,
                "min_template": kept[int(d.argmin())] if d.size else "",
                "max": float(d.max()) if d.size else math.nan,
                "max_template": kept[int(d.argmax())] if d.size else "",
                "sd": _sd(d),
            }
        )
    frame = pd.DataFrame.from_records(records, columns=SUMMARY_COLUMNS)
    order = {m: i for i, m in enumerate(headline_metrics(list(dict.fromkeys(frame["metric"]))))}
    rank = [order.get(m, len(order)) for m in frame["metric"]]
    return frame.iloc[np.argsort(rank, kind="stable")].reset_index(drop=True)


def _sd(values: np.ndarray) -> float:
    """Sample standard deviation (ddof=1); exactly 0 when every value is the same (numpy's
    two-pass formula leaves rounding noise), NaN with fewer than two values."""
    if values.size < 2:
        return math.nan
    if bool(np.all(values == values[0])):
        return 0.0
    return float(values.std(ddof=1))
