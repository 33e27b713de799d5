"""The WinoPron family: WinoPron-UK, English WinoPron, English Winogender and further adaptations.

- :mod:`.dataset`: the family record and its column maps, with :mod:`.sentence_templates`
  (readers of the English WinoPron and Winogender sentence-template files);
- :mod:`.checks` (the family's structural checks, every language) and :mod:`.checks_uk`
  (WinoPron-UK's entity inflection and released-prompt integrity);
- :mod:`.tasks` (forced choice and the four-step protocol: ``winopron-uk``, ``winopron-en``,
  ``winogender-en``) and :mod:`.coref_tasks` (``winopron-uk/coref``);
- :mod:`.scorer` (the card's metrics, declared next to their code);
- :mod:`.crosslingual` (WinoPron-UK rows joined to English WinoPron on the source template);
- :mod:`.board_method` and :mod:`.board_metrics` (the Ukrainian fairness leaderboard's scoring
  methods and its evaluator's metrics) and :mod:`.board` (its published release, and what the
  leaderboard's Fairness tab shows).

Its page in the documentation is ``docs/winopron.md``; its bundled samples are in ``samples/``.
"""

# importing the family registers its tasks, their metrics and its cross-lingual links
from ...tasks.family import Family, family
from . import board, coref_tasks, crosslingual, tasks  # noqa: F401

family(
    Family(
        "winopron",
        docs="docs/winopron.md",
        tasks=("winopron-uk", "winopron-en", "winogender-en", "winopron-uk/coref"),
        headline=(
            "pair_consistency",
            "option_order_consistency",
            "double_accuracy",
            "single_accuracy",
            "gender_gap",
            "double_conll_f1",
            "single_conll_f1",
            "conll_f1_female_minus_male",
        ),
    )
)
