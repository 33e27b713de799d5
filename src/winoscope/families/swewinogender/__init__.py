"""SweWinogender v2.0 (SuperLim 2): Swedish NLI and pronoun resolution.

- :mod:`.dataset`: loading, derived annotations and the mechanical checks;
- :mod:`.tasks`: ``swewinogender/nli`` (``swewinogender``) and ``swewinogender/resolution``;
- :mod:`.scorer` (the documentation sheet's NLI metrics), :mod:`.resolution_scorer` (the
  pronoun-resolution view) and :mod:`.labels` (the two label conventions and Krippendorff's
  alpha).

Its page in the documentation is ``docs/swewinogender.md``; its bundled samples are in ``samples/``.
"""

# importing the family registers its tasks, their metrics and its cross-lingual links
from ...tasks.family import Family, family
from . import crosslingual, tasks  # noqa: F401

family(
    Family(
        "swewinogender",
        docs="docs/swewinogender.md",
        tasks=("swewinogender", "swewinogender/nli", "swewinogender/resolution"),
        headline=(
            "option_order_consistency",
            "accuracy",
            "krippendorff_alpha",
            "gender_parity",
            "occupation_share",
        ),
    )
)
