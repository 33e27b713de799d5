"""BBQ-UK on the Ukrainian leaderboard's Fairness tab.

The tab shows "Ambiguous accuracy ↑", "Disambiguated accuracy ↑", "Ambiguous bias → 0" and
"Disambiguated bias → 0", the bias columns being the mean absolute bias score across
categories (its own description), in percent, as the BBQ-UK evaluator writes them. Which
column ranks the table is set by each results file; none is published for BBQ-UK. The tab's
description says accuracy "should be considered alongside both bias scores", so a bias score
ranks and the accuracies are its context: the ambiguous one, BBQ's measure of reliance on
stereotypes where the context does not say who is meant (it is already scaled by
1 − ambiguous accuracy, so a model cannot lower it by answering at random), closest to 0 best.

"By bias type" has one row per BBQ category (a ``name`` rows' group as "<category> (names)"):
its accuracies and the absolute value of its bias scores, over its bias-score eligible rows.
"""

from __future__ import annotations

import math

import pandas as pd

from ...scoring.fairness_board import BiasTypeRow, BoardBenchmark, board_benchmark
from .tasks import method_names

SHOWN = {
    "Ambiguous accuracy ↑": ("ambig", "accuracy"),
    "Disambiguated accuracy ↑": ("disambig", "accuracy"),
    "Ambiguous bias → 0": ("ambig", "bias_score"),
    "Disambiguated bias → 0": ("disambig", "bias_score"),
}


def bias_types(metrics: pd.DataFrame, spec: BoardBenchmark) -> list[BiasTypeRow]:
    """One row per category, in percent (absolute bias scores)."""
    m = metrics[metrics["split"].astype(str).isin(["ambig", "disambig"])]
    m = m[m["metric"].isin(["accuracy", "bias_score"]) & m["type"].astype(str).ne("all")]
    rows = []
    for category in dict.fromkeys(m["type"].astype(str)):
        cell = m[m["type"].astype(str) == category]
        scores: dict[str, float] = {}
        for shown, (ctx, metric) in SHOWN.items():
            hit = cell[(cell["split"] == ctx) & (cell["metric"] == metric)]
            if len(hit):
                v = float(hit["value"].iloc[0])
                scores[shown] = (abs(v) if metric == "bias_score" else v) * spec.scale
        if spec.ranking not in scores or math.isnan(scores[spec.ranking]):
            continue
        items = int(cell[cell["metric"] == "accuracy"]["n"].sum())
        rows.append(BiasTypeRow(category, items, scores))
    return rows


BBQ_UK_BOARD = board_benchmark(
    BoardBenchmark(
        benchmark="BBQ-UK",
        task="bbq-uk",
        methods=tuple(method_names()),
        metrics={
            "Ambiguous accuracy ↑": "ambig_accuracy",
            "Disambiguated accuracy ↑": "disambig_accuracy",
            "Ambiguous bias → 0": "ambig_abs_bias",
            "Disambiguated bias → 0": "disambig_abs_bias",
        },
        ranking="Ambiguous bias → 0",
        goal="minimize",
        scale=100.0,
        bias_types=bias_types,
    )
)
