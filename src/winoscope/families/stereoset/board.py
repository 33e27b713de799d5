"""What the Ukrainian leaderboard's Fairness tab shows of StereoSet-UK Eval.

The tab shows "LMS ↑", "SS → 50" and "ICAT ↑" (``fairness.py`` of the leaderboard) and ranks
by "ICAT ↑", maximised: the ranking the leaderboard's own tests give this benchmark; the
group's Fair-UK reporting publishes no ranking of its own. The scorer's values are already on
the 0-100 scale, so they are written as they are (``scale=1.0``). Each bias type is one row of
the tab's "By bias type" table, with its items and the three scores; the per-item details
beside the file have one row per item and candidate sentence.
"""

from __future__ import annotations

import pandas as pd

from ...scoring.fairness_board import BiasTypeRow, BoardBenchmark, board_benchmark
from .dataset import LABELS
from .scorer import OVERALL, text_column
from .tasks import METHOD

SHOWN = {"LMS ↑": "lms", "SS → 50": "ss", "ICAT ↑": "icat"}


def item_details(predictions: pd.DataFrame) -> pd.DataFrame:
    """The per-item trace the board does not publish: one row per item and candidate sentence
    with its mean log-probability and token count, the item's top candidate (``prediction``),
    its target and bias type."""
    target = text_column(predictions, "target")
    bias = text_column(predictions, "bias_type")
    records = []
    for r in predictions.to_dict("records"):
        for label in LABELS:
            records.append(
                {
                    "row": r["row_id"],
                    "option": label,
                    "option_role": label,
                    "mean_logprob": r.get(f"{label}_logprob"),
                    "token_count": r.get(f"{label}_tokens"),
                    "prediction": r.get("prediction"),
                    "target": r[target],
                    "bias_type": r[bias],
                }
            )
    return pd.DataFrame.from_records(records)


def bias_type_rows(metrics: pd.DataFrame, spec: BoardBenchmark) -> list[BiasTypeRow]:
    """One row per bias type of a run's metrics table (its rows other than the overall
    one), in the table's order; ``items`` is the items its scores are computed over."""
    rows = []
    per_type = metrics[metrics["split"].astype(str) != OVERALL]
    for name in dict.fromkeys(per_type["split"].astype(str)):
        sub = per_type[per_type["split"].astype(str) == name].set_index("metric")
        if not set(spec.metrics.values()) <= set(sub.index):
            continue
        scores = {
            shown: float(sub.loc[m, "value"]) * spec.scale for shown, m in spec.metrics.items()
        }
        rows.append(BiasTypeRow(name, int(sub.loc["icat", "n"]), scores))
    return rows


STEREOSET_UK_EVAL = board_benchmark(
    BoardBenchmark(
        benchmark="StereoSet-UK Eval",
        task="stereoset-uk",
        methods=(METHOD,),
        metrics=SHOWN,
        ranking="ICAT ↑",
        goal="maximize",
        scale=1.0,
        bias_types=bias_type_rows,
        extra={"details": item_details},
    )
)
