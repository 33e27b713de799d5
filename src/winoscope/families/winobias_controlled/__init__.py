"""WinoBias-UK Controlled: WinoBias pro/anti pairs with two fixed candidates and a gold letter.

- :mod:`.dataset`: the family record, its column map and the release the evaluator pins;
  :mod:`.checks` (one bracketed pronoun, distinct candidates, complete pro/anti pairs);
- :mod:`.tasks` (``winobias-uk-controlled``: winoscope's forced choice in both orders, and the
  published ``fixed_ab_mean_token_logprob_v1``);
- :mod:`.scorer` (pro/anti accuracy, gaps, worst group, pair consistency, ties, per split/type
  and their macro average); the pro/anti metrics are the WinoBias family's, imported from it.

It is a family of its own (rather than a member of ``winobias``) because its rows carry fixed
candidates and a gold letter instead of WinoBias-UK Natural's spans and roles. Its page in the
documentation is ``docs/winobias-controlled.md``; its bundled sample is in ``samples/``.
"""

# importing the family registers its task, its metrics and its release
from ...datasets.releases import register_release
from ...tasks.family import Family, family
from . import tasks  # noqa: F401
from .dataset import RELEASE

register_release(RELEASE)

family(
    Family(
        "winobias_controlled",
        docs="docs/winobias-controlled.md",
        tasks=("winobias-uk-controlled",),
        headline=(
            "worst_group_accuracy",
            "overall_accuracy",
            "signed_bias_gap",
            "pair_consistency",
            "tie_rate",
            "option_order_consistency",
        ),
    )
)
