"""Per-occupation behaviour: how often a pronoun is resolved to each occupation, by its gender.

For every scored row an occupation *appears* in, the row counts once in that occupation's
denominator; it counts in the numerator when the model resolved the pronoun to that
occupation. Shares are reported per (occupation, pronoun gender) with a 95% Wilson interval, next
to the occupation statistic the task ships (a stereotype label, or a numeric share such as the
percentage of women in the occupation).

Two prediction layouts are understood:

- **WinoBias-style** (``target_occupation_*``, ``other_occupation_*``, ``pronoun_gender``,
  ``prediction_role``): the target occupation is chosen when ``prediction_role == "target"``,
  the other one when ``prediction_role == "distractor"``; ``invalid`` chooses neither but stays
  in the denominator. Only ``primary_balanced`` rows are used where ``score_group`` exists:
  there both occupations share the pronoun's grammatical gender, so the choice is driven by the
  occupation and not by agreement morphology.
- **long**: ``occupation``, ``pronoun_gender`` and a boolean ``resolved_to_occupation``, with an
  optional numeric ``occupation_statistic`` column (tasks whose items have one occupation).

Worked example: the rows ``(target=лікар, other=секретар, he, target)`` and
``(target=лікар, other=секретар, she, distractor)`` give лікар/male 1/1, лікар/female 0/1,
секретар/male 0/1, секретар/female 1/1.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pandas as pd

from ..datasets.schema import GENDER_COLUMNS, OCCUPATION_COLUMNS
from ..languages.word_tables import occupation_lexicon

BEHAVIOUR_COLUMNS = [
    "occupation",
    "label",
    "pronoun_gender",
    "k",
    "n",
    "share",
    "ci_low",
    "ci_high",
    "statistic",
]


@cache
def uk_occupation_statistics() -> pd.DataFrame:
    """The shipped Ukrainian lexicon: one row per occupation form (masculine and feminine)."""
    rows = []
    for r in occupation_lexicon("uk"):
        for form in (r["occupation_uk"], r["feminine_uk"]):
            rows.append(
                {
                    "form": form,
                    "occupation": r["occupation_uk"],
                    "label": f"{r['occupation_uk']} ({r['occupation_en']})",
                    "statistic": r["stereotype"],
                }
            )
    return pd.DataFrame(rows).drop_duplicates("form")


#: the normal quantile ``scipy.special.ndtri(0.5 + 0.5 * level)`` of the usual level, so that a
#: run does not import scipy.stats (over a second on 2 cores) for a few square roots
_Z = {0.95: 1.959963984540054}


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The two-sided Wilson score interval of ``k`` successes in ``n`` trials, computed as
    ``scipy.stats.binomtest(k, n).proportion_ci(level, method="wilson")`` does (Newcombe 1998),
    operation for operation, so the bounds are the same floats (a test holds it to scipy)."""
    if n == 0:
        return (np.nan, np.nan)
    z = _Z.get(level)
    if z is None:
        from scipy.special import ndtri

        z = float(ndtri(0.5 + 0.5 * level))
    p = k / n
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    q = 1 - p
    delta = z / denom * math.sqrt(4 * n * p * q + z**2)
    lo = 0.0 if k == 0 else center - delta
    hi = 1.0 if k == n else center + delta
    return (float(lo), float(hi))


def _occupation_columns(pred: pd.DataFrame) -> tuple[str, str] | None:
    targets = sorted(c for c in pred.columns if c.startswith("target_occupation"))
    for t in targets:
        other = t.replace("target_", "other_", 1)
        if other in pred.columns:
            return t, other
    return None


NUMERIC_STATISTICS = {
    "occupation_statistic": "occupation statistic",
    "bls_pct_female": "% women in the occupation (BLS)",
}
LABEL_STATISTICS = ("occupation_stereotype",)


def _first(pred: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((c for c in names if c in pred.columns), None)


def _answered(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    role = rows["prediction_role"].astype("string").str.strip().str.lower()
    keep = role.notna() & role.ne("")
    return rows[keep], role[keep]


def _with_statistic(out: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    numeric = _first(rows, tuple(NUMERIC_STATISTICS))
    if numeric is not None:
        out["statistic"] = pd.to_numeric(rows[numeric], errors="coerce").to_numpy()
        out.attrs["statistic"] = NUMERIC_STATISTICS[numeric]
    elif (label := _first(rows, LABEL_STATISTICS)) is not None:
        out["statistic"] = rows[label].astype("string").to_numpy()
        out.attrs["statistic"] = "stereotype"
    return out


def resolutions(pred: pd.DataFrame) -> pd.DataFrame | None:
    """One row per (scored row, occupation it mentions): occupation, pronoun_gender, resolved.

    ``None`` when the predictions carry no occupations. Three layouts: the explicit long one,
    WinoBias-style rows with two occupations (``target_occupation_*`` / ``other_occupation_*``),
    and Winogender-style rows with one occupation and one participant, scored
    ``occupation`` / ``participant`` (only the ``double`` context where a ``context`` column
    exists: in single-entity sentences the occupation is the only candidate).
    """
    if {"occupation", "pronoun_gender", "resolved_to_occupation"} <= set(pred.columns):
        rows = pred[pred["resolved_to_occupation"].notna()]
        out = pd.DataFrame(
            {
                "occupation": rows["occupation"].astype(str).to_numpy(),
                "pronoun_gender": rows["pronoun_gender"].astype(str).to_numpy(),
                "resolved": rows["resolved_to_occupation"].astype(bool).to_numpy(),
            }
        )
        return _with_statistic(out, rows)
    gender_col = _first(pred, GENDER_COLUMNS)
    if gender_col is None or "prediction_role" not in pred.columns:
        return None
    cols = _occupation_columns(pred)
    if cols is not None:
        rows = pred
        if "score_group" in rows.columns:
            rows = rows[rows["score_group"].astype(str) == "primary_balanced"]
        rows, role = _answered(rows)
        target_col, other_col = cols
        parts = []
        for occ_col, chosen, stereo_col in (
            (target_col, "target", "target_stereotype"),
            (other_col, "distractor", "other_stereotype"),
        ):
            part = pd.DataFrame(
                {
                    "occupation": rows[occ_col].astype(str).to_numpy(),
                    "pronoun_gender": rows[gender_col].astype(str).to_numpy(),
                    "resolved": role.eq(chosen).to_numpy(),
                }
            )
            if stereo_col in rows.columns:
                part["statistic"] = rows[stereo_col].astype("string").to_numpy()
            parts.append(part)
        out = pd.concat(parts, ignore_index=True)
        if "statistic" in out.columns:
            out.attrs["statistic"] = "stereotype"
        return out
    single_col = _first(pred, OCCUPATION_COLUMNS)
    if single_col is None:
        return None
    rows = pred
    if "context" in rows.columns and rows["context"].astype(str).eq("double").any():
        rows = rows[rows["context"].astype(str) == "double"]
    rows, role = _answered(rows)
    if not role.isin(["occupation", "participant", "invalid"]).all():
        return None
    out = pd.DataFrame(
        {
            "occupation": rows[single_col].astype(str).to_numpy(),
            "pronoun_gender": rows[gender_col].astype(str).to_numpy(),
            "resolved": role.eq("occupation").to_numpy(),
        }
    )
    return _with_statistic(out, rows)


def occupation_behaviour(
    pred: pd.DataFrame, statistics: pd.DataFrame | None = None, level: float = 0.95
) -> pd.DataFrame | None:
    """Share resolved to each occupation by pronoun gender (columns :data:`BEHAVIOUR_COLUMNS`).

    ``statistics`` maps a surface ``form`` to its canonical ``occupation``, a display ``label``
    and a ``statistic``; the Ukrainian lexicon is used when the occupations are found in it.
    """
    res = resolutions(pred)
    if res is None or res.empty:
        return None
    statistic_name = res.attrs.get("statistic")
    if "statistic" not in res.columns:
        stats = uk_occupation_statistics() if statistics is None else statistics
        found = res["occupation"].str.lower().isin(stats["form"])
        if bool(found.any()):
            lut = stats.set_index("form")
            low = res["occupation"].str.lower()
            res = res.assign(
                statistic=low.map(lut["statistic"]),
                label=low.map(lut["label"]).fillna(res["occupation"]),
                occupation=low.map(lut["occupation"]).fillna(res["occupation"]),
            )
            statistic_name = "stereotype"
        else:
            res = res.assign(statistic=np.nan)
    if "label" not in res.columns:
        res = res.assign(label=res["occupation"])
    grouped = (
        res.groupby(["occupation", "pronoun_gender"], sort=True)
        .agg(
            k=("resolved", "sum"),
            n=("resolved", "size"),
            label=("label", "first"),
            statistic=("statistic", "first"),
        )
        .reset_index()
    )
    grouped["k"] = grouped["k"].astype(int)
    grouped["n"] = grouped["n"].astype(int)
    grouped["share"] = grouped["k"] / grouped["n"]
    cis = [wilson_interval(k, n, level) for k, n in zip(grouped["k"], grouped["n"], strict=True)]
    grouped["ci_low"] = [c[0] for c in cis]
    grouped["ci_high"] = [c[1] for c in cis]
    out = grouped[BEHAVIOUR_COLUMNS].copy()
    out.attrs["statistic"] = statistic_name
    return out
