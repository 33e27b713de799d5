"""What every cross-lingual join shares: row correctness, the answered-in-both filter and the
tables built on the joined rows (UK - EN records, per-row agreement, occupations).

A joined frame has one row per shared source row with ``right_uk`` and ``right_en``; the
family modules (:mod:`.across_winobias`, :mod:`.across_winopron`) build it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..scoring.paired import bootstrap_p
from ..scoring.stats import mcnemar_exact, percentile_ci


def row_correct(table: pd.DataFrame, gold: str) -> pd.Series:
    """Whether each row's ``prediction_role`` is its ``gold`` role; NA where unanswered."""
    pred = table["prediction_role"].astype("string").str.strip().str.lower()
    answered = pred.notna() & pred.ne("")
    right = pred.eq(table[gold].astype("string").str.strip().str.lower())
    return right.astype("boolean").mask(~answered, pd.NA)


def answered_in_both(joined: pd.DataFrame, uk_rows: int) -> tuple[pd.DataFrame, dict[str, int]]:
    """The joined rows both languages answered (``right_uk``/``right_en`` as bools), and the
    counts of the join: shared rows, Ukrainian rows (of ``uk_rows``) without an English
    counterpart, and shared rows left out for want of an answer."""
    both = joined["right_uk"].notna() & joined["right_en"].notna()
    out = joined[both].copy()
    out["right_uk"] = out["right_uk"].astype(bool)
    out["right_en"] = out["right_en"].astype(bool)
    counts = {
        "shared_rows": len(joined),
        "uk_rows_without_en": uk_rows - len(joined),
        "unanswered_shared_rows": int((~both).sum()),
    }
    return out.reset_index(drop=True), counts


def paired_record(
    m: str, split: str, typ: str, uk: float, en: float, d: np.ndarray, n: int, level: float
) -> dict[str, Any]:
    """One metric row: UK and EN values, UK - EN with the percentile interval and bootstrap p
    of its replicates ``d`` (NaN when either value is)."""
    diff = uk - en
    lo, hi = (math.nan, math.nan) if math.isnan(diff) else percentile_ci(d, level)
    return {
        "metric": m,
        "split": split,
        "type": typ,
        "uk": uk,
        "en": en,
        "diff": diff,
        "ci_low": lo,
        "ci_high": hi,
        "p_boot": math.nan if math.isnan(diff) else bootstrap_p(d),
        "n_items": n,
    }


def agreement_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per condition and overall: both right, only EN right, only UK right, both wrong."""
    records = []
    for cond, part in [*rows.groupby("condition", sort=True), ("all", rows)]:
        u, e = part["right_uk"], part["right_en"]
        only_en, only_uk = int((e & ~u).sum()), int((u & ~e).sum())
        records.append(
            {
                "condition": cond,
                "rows": len(part),
                "both_right": int((u & e).sum()),
                "only_en_right": only_en,
                "only_uk_right": only_uk,
                "both_wrong": int((~u & ~e).sum()),
                "mcnemar_p": mcnemar_exact(only_en, only_uk),
            }
        )
    return pd.DataFrame.from_records(records)


def occupation_table(rows: pd.DataFrame, limit: int = 10) -> pd.DataFrame:
    """Occupations (English target, Ukrainian beside) by |UK - EN| accuracy, largest first."""
    by = (
        "target_occupation_en" if "target_occupation_en" in rows.columns else "target_occupation_uk"
    )
    g = rows.groupby(by, sort=True)
    out = pd.DataFrame(
        {
            "occupation_uk": g["target_occupation_uk"].agg(lambda s: "; ".join(sorted(set(s)))),
            "rows": g.size(),
            "accuracy_uk": g["right_uk"].mean(),
            "accuracy_en": g["right_en"].mean(),
        }
    )
    out["diff"] = out["accuracy_uk"] - out["accuracy_en"]
    out = out.reset_index().rename(columns={by: "occupation"})
    order = out["diff"].abs().sort_values(ascending=False, kind="stable").index
    return out.loc[order].head(limit).reset_index(drop=True)
