"""Scoring SweWinogender's pronoun-resolution view (``swewinogender/resolution``).

One row per premise with ``prediction_role`` (occupation, participant or invalid): accuracy
overall and per pronoun with the gaps hon - han and hen - han, ``gender_parity`` over templates
(the three premises of a template differ only in the pronoun), ``occupation_share`` (among the
valid answers, the share naming the occupation; ``invalid`` ones are left out, as they name
neither) per pronoun with the gap hon - han, and ``option_order_consistency``. The cluster
bootstrap and the shared pieces are those of :mod:`winoscope.families.swewinogender.scorer`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...errors import ScoringError
from ...scoring.base import ScoreResult, order_consistency, prediction_labels
from ...scoring.metric import Declarations
from .cluster_stats import (
    CLUSTER,
    PRONOUNS,
    MetricFn,
    SizeFn,
    cluster_metrics,
    need_columns,
    parity_stats,
    pronoun_counts,
    ratio,
    size_of,
)
from .scorer import add_pronoun_accuracy

declare = Declarations(__name__)

ROLES = ("occupation", "participant", "invalid")
RESOLUTION_METRICS = ("accuracy", "gender_parity", "occupation_share", "option_order_consistency")

declare.metric(
    "occupation_share",
    kind="share",
    direction="none",
    card="Among valid answers, the share naming the occupation.",
)
declare.metric(
    "occupation_share_gap",
    kind="gap",
    direction="zero",
    components=("occupation_share", "occupation_share"),
    label="hon − han occupation share",
    card="Occupation share with hon minus with han: above 0, hon goes to the occupation more.",
)


def check_roles(table: pd.DataFrame, source: str = "predictions") -> pd.Series:
    return prediction_labels(table, ROLES, source)


@declare.scorer
def score_resolution(
    table: pd.DataFrame,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    source: str = "predictions",
) -> ScoreResult:
    """Score the pronoun-resolution view: one row per premise with ``prediction_role``."""
    need_columns(table, ("gold_referent", "pronoun", "template_id", CLUSTER), source)
    pred = check_roles(table, source)
    rows = table.assign(prediction_role=pred)
    scored = rows[pred.notna()]
    if scored.empty:
        raise ScoringError(f"{source}: no row has a prediction")
    gold = scored["gold_referent"].astype(str)
    s: dict[str, Any] = {
        "n": np.ones(len(scored)),
        "k": (scored["prediction_role"].astype(str) == gold).to_numpy(float),
        "occ": (scored["prediction_role"].astype(str) == "occupation").to_numpy(float),
        "valid": (scored["prediction_role"].astype(str) != "invalid").to_numpy(float),
    }
    if "order_consistent" in scored.columns:
        oc = order_consistency(table, source)[pred.notna().to_numpy()]
        s["oc_n"] = oc.notna().to_numpy(float)
        s["oc_k"] = oc.fillna(False).astype(bool).to_numpy(float)
    pron = scored["pronoun"].astype(str)
    for p in PRONOUNS:
        s[f"n_{p}"] = (pron == p).to_numpy(float)
        s[f"k_{p}"] = s[f"n_{p}"] * s["k"]
        s[f"occ_{p}"] = s[f"n_{p}"] * s["occ"]
        s[f"valid_{p}"] = s[f"n_{p}"] * s["valid"]
    stats = pd.DataFrame(s, index=scored.index)
    stats[CLUSTER] = scored[CLUSTER].astype(str).to_numpy()
    par = parity_stats(scored, "template_id", "prediction_role", ROLES[:2])
    stats = pd.concat([stats, par[[CLUSTER, "par_n", "par_k"]]], ignore_index=True).fillna(0.0)

    n_all = size_of("n")

    def occ(p: str) -> MetricFn:
        return lambda t: ratio(t[f"occ_{p}"], t[f"valid_{p}"])

    metrics: dict[tuple[str, str, str], tuple[MetricFn, SizeFn]] = {
        ("accuracy", "all", "all"): (lambda t: ratio(t["k"], t["n"]), n_all),
        ("gender_parity", "all", "all"): (
            lambda t: ratio(t["par_k"], t["par_n"]),
            size_of("par_n"),
        ),
        ("occupation_share", "all", "all"): (
            lambda t: ratio(t["occ"], t["valid"]),
            size_of("valid"),
        ),
    }
    if "oc_n" in stats.columns:
        metrics[("option_order_consistency", "all", "all")] = (
            lambda t: ratio(t["oc_k"], t["oc_n"]),
            size_of("oc_n"),
        )
    add_pronoun_accuracy(metrics)

    for p in PRONOUNS:
        metrics[("occupation_share", "pronoun", p)] = (occ(p), size_of(f"valid_{p}"))
    metrics[("occupation_share_gap", "pronoun", "hon-han")] = (
        lambda t: occ("hon")(t) - occ("han")(t),
        size_of("valid_hon", "valid_han"),
    )
    frame, replicates = cluster_metrics(stats, metrics, n_boot=n_boot, seed=seed, level=level)
    return ScoreResult(
        metrics=frame,
        counts=pronoun_counts(rows, pred),
        settings={
            "n_boot": n_boot,
            "seed": seed,
            "level": level,
            "resampling_unit": "schema/template",
            "resampling_key": "template number",
        },
        replicates=replicates,
    )
