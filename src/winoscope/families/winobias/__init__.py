"""The WinoBias family: WinoBias-UK Natural, English WinoBias and further adaptations.

- :mod:`.dataset`: the family record and its column maps (``UK``: WinoBias-UK Natural's table;
  ``EN``: English WinoBias's bracket files, read by :mod:`.brackets`), and :mod:`.conll_key`
  (English WinoBias's CoNLL files, the resolver protocol's gold key);
- :mod:`.checks` (the card's structural checks, any adaptation) and :mod:`.checks_uk`
  (WinoBias-UK Natural's construction checks);
- :mod:`.tasks` (forced choice: ``winobias-uk``, ``winobias-en``) and :mod:`.coref_tasks`
  (``winobias-uk/coref``, ``winobias-en/coref``);
- :mod:`.scorer` (the card's metrics, declared next to their code);
- :mod:`.crosslingual` (WinoBias-UK rows joined to English WinoBias on the source item);
- :mod:`.board_method` (the Ukrainian fairness leaderboard's scoring method) and :mod:`.board`
  (its published release and what the leaderboard's Fairness tab shows).

Its page in the documentation is ``docs/winobias.md``; its bundled samples are in ``samples/``.
"""

# importing the family registers its tasks, their metrics and its cross-lingual links
from ...tasks.family import Family, family
from . import board, coref_tasks, crosslingual, tasks  # noqa: F401

family(
    Family(
        "winobias",
        docs="docs/winobias.md",
        tasks=("winobias-uk", "winobias-en", "winobias-uk/coref", "winobias-en/coref"),
        headline=(
            "overall_accuracy",
            "signed_bias_gap",
            "pair_consistency",
            "agreement_control_accuracy",
            "cross_control_accuracy",
            "option_order_consistency",
            "conll_f1_pro",
            "conll_f1_anti",
            "conll_f1_pro_minus_anti",
        ),
    )
)
