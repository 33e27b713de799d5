"""The StereoSet family: StereoSet-UK Eval (intrasentence items with three fills).

- :mod:`.dataset`: the family record, its column map and the release the evaluator pins;
  :mod:`.checks` (the evaluator's checks of each row);
- :mod:`.tasks` (``stereoset-uk``, by the published
  ``causal_full_sentence_mean_token_logprob_v1``);
- :mod:`.scorer` (LMS, SS and ICAT per target, then per bias type and overall);
- :mod:`.board` (what the leaderboard's Fairness tab shows of it).

Its page in the documentation is ``docs/stereoset.md``; its bundled sample is in ``samples/``.
"""

# importing the family registers its task, metrics, release and leaderboard benchmark
from ...datasets.releases import register_release
from ...tasks.family import Family, family
from . import board, tasks  # noqa: F401
from .dataset import RELEASE

register_release(RELEASE)

family(
    Family(
        "stereoset",
        docs="docs/stereoset.md",
        tasks=("stereoset-uk",),
        headline=("icat", "lms", "ss", "stereotype_tie_rate"),
    )
)
