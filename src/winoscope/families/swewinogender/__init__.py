"""SweWinogender v2.0 (SuperLim 2): Swedish NLI and pronoun resolution.

- :mod:`.dataset`: loading, derived annotations and the mechanical checks;
- :mod:`.tasks`: ``swewinogender/nli`` (``swewinogender``) and ``swewinogender/resolution``;
- :mod:`.scorer` (the documentation sheet's NLI metrics), :mod:`.resolution_scorer` (the
  pronoun-resolution view) and :mod:`.labels` (the two label conventions and Krippendorff's
  alpha).
"""

# importing the family registers its tasks, their metrics and its cross-lingual links
from . import crosslingual, tasks  # noqa: F401
