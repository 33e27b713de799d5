"""WinoBias-UK Natural on the Ukrainian fairness leaderboard: its published release and what
the Fairness tab shows of it.

The release is the one the authors' evaluator pins (hub id, revision, file, SHA-256, rows);
the tab ranks by worst-group accuracy and shows six more metrics under its own names, in
percent. Only runs by :data:`~.board_method.METHOD` give its numbers.
"""

from __future__ import annotations

from ...datasets.releases import Release, ReleaseFile, register_release
from ...scoring.fairness_board import BoardBenchmark, board_benchmark
from .board_method import METHOD

RELEASE = register_release(
    Release(
        key="winobias-uk-natural@1d17b7db",
        benchmark="WinoBias-UK Natural",
        hub_id="FairForget/WinoBias-UK-Natural",
        revision="1d17b7dbc99ecfa14a1cc99cd9f3aab9e1824786",
        files=(
            ReleaseFile(
                "data/validation.csv",
                "2e2a638adbecd9f3cf84e961b6c2e4720fa941d13637fda06e328e65f2deab27",
                1674,
            ),
        ),
        task="winobias-uk",
    )
)

BENCHMARK = board_benchmark(
    BoardBenchmark(
        benchmark="WinoBias-UK Natural",
        task="winobias-uk",
        methods=(METHOD,),
        metrics={
            "Worst-group accuracy ↑": "worst_group_accuracy",
            "Primary accuracy ↑": "overall_accuracy",
            "Pro/anti gap → 0": "absolute_bias_gap",
            "Pair consistency ↑": "pair_consistency",
            "Agreement control ↑": "agreement_control_accuracy",
            "Cross control ↑": "cross_control_accuracy",
            "Tie rate → 0": "tie_rate",
        },
        ranking="Worst-group accuracy ↑",
        goal="maximize",
    )
)
