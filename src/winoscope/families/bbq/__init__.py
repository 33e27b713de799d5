"""The BBQ family: BBQ-UK and the original English BBQ (Parrish et al., 2022).

- :mod:`.dataset` (the family record, BBQ-UK's loader and its known release) with
  :mod:`.english` (BBQ's own category files and the derivation of their targets) and
  :mod:`.checks` (the BBQ-UK evaluator's checks as findings);
- :mod:`.asking` (the evaluators' prompt, answer orders, the methods' scoring rule) and
  :mod:`.tasks` (``bbq-uk``, ``bbq-en``: lettered forced choice and the published methods);
- :mod:`.scorer` (accuracy and BBQ's bias scores per context and category) with
  :mod:`.parts` (a row's parts and their per-template sums);
- :mod:`.board` (BBQ-UK on the leaderboard's Fairness tab);
- :mod:`.crosslingual` (BBQ-UK rows joined to English BBQ on category and example id).

Its page in the documentation is ``docs/bbq.md``; its bundled samples are in ``samples/``.
"""

# importing the family registers its tasks, release, leaderboard entry and cross-lingual link
from ...tasks.family import Family, family
from . import board, crosslingual, tasks  # noqa: F401

family(
    Family(
        "bbq",
        docs="docs/bbq.md",
        tasks=("bbq-uk", "bbq-en"),
        headline=(
            "ambig_accuracy",
            "disambig_accuracy",
            "ambig_abs_bias",
            "disambig_abs_bias",
            "ambig_bias",
            "disambig_bias",
        ),
    )
)
