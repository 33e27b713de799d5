"""Model behaviour against occupation statistics (Rudinger et al. 2018, section 4).

Per occupation and pronoun gender, the share of items where the system resolves the pronoun
to the occupation; per occupation the *gender preference* ``female - male`` of those shares
(+1: female pronouns always go to the occupation and male ones never; -1 the reverse; 0 no
difference). Each of these is correlated, across occupations, with every statistic of an
occupation statistics frame (:mod:`winoscope.occupations.stats`: shares of women):

- Pearson's r with a Fisher-z interval, ``tanh(atanh(r) +- z_{1-a/2} / sqrt(n - 3))``;
- Spearman's rho with a percentile bootstrap interval over occupations (the occupations are
  the units; each replicate draws n occupations with replacement);
- two-sided p-values from :func:`scipy.stats.pearsonr` / :func:`scipy.stats.spearmanr`.

A correlation with a constant side (a system with no gender preference at all) is undefined
and reported as NaN, never as 0.

Items come from a run's predictions through :func:`items_from_predictions`, which knows
``swewinogender/resolution`` (the predicted role), ``swewinogender/nli`` (an occupation
hypothesis judged ``entailment`` resolves the pronoun to the occupation; participant hypotheses
are not used, and a premise/hypothesis pair repeated in the release counts once) and any table with an occupation column, the pronoun's gender and ``prediction_role``
(``occupation``/``participant``): English Winogender and the WinoPron family (``occupation_en``
or ``occupation_group_*``; ``pronoun_set`` with masculine/feminine mapped to male/female and
plural/they to neutral; double-context rows only). Unanswered and invalid items are
left out and counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..datasets.schema import GENDER_COLUMNS, OCCUPATION_COLUMNS
from ..errors import ScoringError
from .stats import percentile_ci

GENDERS = ("female", "male", "neutral")
GENDER_ALIASES = {
    "masculine": "male",
    "feminine": "female",
    "he": "male",
    "she": "female",
    "they": "neutral",
    "plural": "neutral",
}
PREFERENCE = "female_minus_male"
MEASURES = (*GENDERS, PREFERENCE)


def _key(s: pd.Series) -> pd.Series:
    """Join key: NFC, case-folded (see :func:`winoscope.occupations.names.occupation_key`)."""
    from ..occupations.names import key_series

    return key_series(s)


def items_from_predictions(pred: pd.DataFrame, task: str | None = None) -> pd.DataFrame:
    """``occupation``, ``pronoun_gender`` and ``resolved`` (bool; NA when not answered)."""
    cols = set(pred.columns)
    # an NLI view (SweWinogender's): the hypothesis names the occupation or the participant
    if "prediction_role" not in cols and {"hypothesis_referent", "prediction"} <= cols:
        need = {"occupation_participant", "pronoun_gender", "hypothesis_referent", "prediction"}
        _need(need, cols, task)
        rows = pred[pred["hypothesis_referent"].astype(str) == "occupation"]
        if {"premise", "hypothesis"} <= cols:  # the same question twice (27A) counts once
            rows = rows.drop_duplicates(["premise", "hypothesis"])
        answer = rows["prediction"].astype("string").str.lower()
        resolved = answer.map({"entailment": True, "neutral": False, "contradiction": False})
        occ = rows["occupation_participant"]
    elif "prediction_role" in cols:
        occ_col = next((c for c in OCCUPATION_COLUMNS if c in cols), OCCUPATION_COLUMNS[0])
        gender_col = next((c for c in GENDER_COLUMNS if c in cols), GENDER_COLUMNS[0])
        _need({occ_col, gender_col, "prediction_role"}, cols, task)
        rows = pred
        if "context" in cols:  # WinoPron family: single-context sentences name one entity only
            rows = rows[rows["context"].astype(str) == "double"]
        answer = rows["prediction_role"].astype("string").str.lower()
        resolved = answer.map({"occupation": True, "participant": False})
        occ = rows[occ_col]
        genders = rows[gender_col].astype(str).str.lower().replace(GENDER_ALIASES)
        return pd.DataFrame(
            {
                "occupation": occ.astype(str).to_numpy(),
                "pronoun_gender": genders.to_numpy(),
                "resolved": pd.array(resolved.to_numpy(), dtype="boolean"),
            }
        )
    else:
        raise ScoringError(
            f"cannot tell which items resolve to the occupation in these predictions (task "
            f"{task or 'unknown'}); need prediction_role or a swewinogender/nli prediction"
        )
    return pd.DataFrame(
        {
            "occupation": occ.astype(str).to_numpy(),
            "pronoun_gender": rows["pronoun_gender"].astype(str).to_numpy(),
            "resolved": pd.array(resolved.to_numpy(), dtype="boolean"),
        }
    )


def _need(need: set[str], cols: set[str], task: str | None) -> None:
    missing = sorted(need - cols)
    if missing:
        raise ScoringError(
            f"predictions of {task or 'this task'} lack column(s) {', '.join(missing)}"
        )


def occupation_shares(items: pd.DataFrame) -> pd.DataFrame:
    """Per occupation: ``n_<g>`` answered items and ``<g>`` share resolved to the occupation
    for g in female/male/neutral, and ``female_minus_male``; ``unanswered`` counts NA items."""
    answered = items[items["resolved"].notna()]
    out = pd.DataFrame(index=pd.Index(sorted(items["occupation"].unique()), name="occupation"))
    for g in GENDERS:
        sub = answered[answered["pronoun_gender"] == g]
        grp = sub.groupby("occupation")["resolved"]
        out[f"n_{g}"] = grp.size().reindex(out.index).fillna(0).astype(int)
        out[g] = grp.mean().astype(float).reindex(out.index)
    out[PREFERENCE] = out["female"] - out["male"]
    out["unanswered"] = (
        items[items["resolved"].isna()].groupby("occupation").size().reindex(out.index).fillna(0)
    ).astype(int)
    return out.reset_index()


def fisher_ci(r: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Fisher-z interval of a Pearson r from n pairs; NaN when n <= 3 or r is undefined."""
    if n <= 3 or not np.isfinite(r):
        return (math.nan, math.nan)
    if abs(r) >= 1:
        return (float(r), float(r))
    z = math.atanh(r)
    half = sps.norm.ppf(0.5 + level / 2) / math.sqrt(n - 3)
    return (math.tanh(z - half), math.tanh(z + half))


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    den = np.sqrt((xc**2).sum(axis=-1) * (yc**2).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (xc * yc).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def bootstrap_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` x ``n`` occupation indices drawn with replacement (the resampling plan)."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def spearman_bootstrap(x: np.ndarray, y: np.ndarray, *, n_boot: int, seed: int) -> np.ndarray:
    """Spearman's rho on each bootstrap resample (average ranks for ties), NaN if constant."""
    idx = bootstrap_indices(len(x), n_boot, seed)
    rx = sps.rankdata(x[idx], axis=1)
    ry = sps.rankdata(y[idx], axis=1)
    return _rowwise_pearson(rx, ry)


def _constant(v: np.ndarray) -> bool:
    return bool(np.all(v == v[0]))


def correlate(
    shares: pd.DataFrame,
    statistics: pd.DataFrame,
    *,
    statistic_columns: Sequence[str] | None = None,
    measures: Sequence[str] = MEASURES,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """Tidy table: measure, statistic, method, value, ci_low, ci_high, ci_method, p_value, n."""
    from ..occupations.shares import statistic_columns as stat_cols

    columns = list(statistic_columns or stat_cols(statistics))
    if not columns:
        raise ScoringError("the statistics table has no share column to correlate with")
    left = shares.assign(_key=_key(shares["occupation"]))
    right = statistics.assign(_key=_key(statistics["occupation"]))[["_key", *columns]]
    joined = left.merge(right, on="_key", how="inner")
    records: list[dict[str, Any]] = []
    for measure in measures:
        for col in columns:
            both = joined[[measure, col]].dropna()
            x, y = both[col].to_numpy(float), both[measure].to_numpy(float)
            n = len(both)
            defined = n >= 3 and not _constant(x) and not _constant(y)
            if defined:
                pr = sps.pearsonr(x, y)
                sr = sps.spearmanr(x, y)
                r, p_r = float(pr.statistic), float(pr.pvalue)
                rho, p_rho = float(sr.statistic), float(sr.pvalue)
                lo_r, hi_r = fisher_ci(r, n, level)
                lo_s, hi_s = percentile_ci(
                    spearman_bootstrap(x, y, n_boot=n_boot, seed=seed), level
                )
            else:
                r = p_r = rho = p_rho = lo_r = hi_r = lo_s = hi_s = math.nan
            base = {"measure": measure, "statistic": col, "n": n}
            records.append(
                base
                | {
                    "method": "pearson",
                    "value": r,
                    "ci_low": lo_r,
                    "ci_high": hi_r,
                    "ci_method": "fisher_z",
                    "p_value": p_r,
                }
            )
            records.append(
                base
                | {
                    "method": "spearman",
                    "value": rho,
                    "ci_low": lo_s,
                    "ci_high": hi_s,
                    "ci_method": f"bootstrap_occupations_{n_boot}",
                    "p_value": p_rho,
                }
            )
    return pd.DataFrame.from_records(
        records,
        columns=[
            "measure",
            "statistic",
            "method",
            "value",
            "ci_low",
            "ci_high",
            "ci_method",
            "p_value",
            "n",
        ],
    )


def unmatched(shares: pd.DataFrame, statistics: pd.DataFrame) -> dict[str, list[str]]:
    """Occupations only in the run and only in the statistics (case- and Unicode-normalised)."""
    a, b = set(_key(shares["occupation"])), set(_key(statistics["occupation"]))
    return {"without_statistics": sorted(a - b), "without_items": sorted(b - a)}
