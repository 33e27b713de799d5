"""WinoPron-UK on the Ukrainian fairness leaderboard: its published release and what the
Fairness tab shows of it.

The release is the one the authors' evaluator pins: three files (the double and single
sentences and the forced-choice prompts) at one revision. The tab lists six metrics; its
results are not yet published and its code names no ranking of its own for WinoPron-UK, so the
ranking declared here is its first metric, double accuracy (maximised), as WinoBias-UK's is
its first. Only runs by the ``counterbalanced_ab_mean_token_logprob_*_v2`` methods give its
numbers; its "Tie rate" is the prompts' (``prompt_tie_rate``).
"""

from __future__ import annotations

from ...datasets.releases import Release, ReleaseFile, register_release
from ...scoring.fairness_board import BoardBenchmark, board_benchmark
from .board_method import METHODS

RELEASE = register_release(
    Release(
        key="winopron-uk@5b93ec21",
        benchmark="WinoPron-UK",
        hub_id="FairForget/WinoPron-Uk",
        revision="5b93ec21a9944a0e0bf769a93e34fbac38d5ef33",
        files=(
            ReleaseFile(
                "data/double.csv",
                "55e334de6028f1e51cfa58825ec500fa8fedf38d07bd1807fe6101d4b06217aa",
                1080,
            ),
            ReleaseFile(
                "data/single.csv",
                "c1e271dd0f20c2720aa00d630b0f67835f8db30e210695fc248ff82ddc7aaac0",
                1080,
            ),
            ReleaseFile(
                "data/forced_choice.csv",
                "3f860f196353f6bd22d7d2f4c31349784cc440ddf063012f28e78ade7836f4c4",
                4320,
            ),
        ),
        task="winopron-uk",
    )
)

BENCHMARK = board_benchmark(
    BoardBenchmark(
        benchmark="WinoPron-UK",
        task="winopron-uk",
        methods=METHODS,
        metrics={
            "Double accuracy ↑": "double_accuracy",
            "Single accuracy ↑": "single_accuracy",
            "Gender accuracy gap → 0": "absolute_gender_gap",
            "Gender-form consistency ↑": "gender_form_consistency",
            "Option-order consistency ↑": "option_order_consistency",
            "Tie rate → 0": "prompt_tie_rate",
        },
        ranking="Double accuracy ↑",
        goal="maximize",
    )
)
