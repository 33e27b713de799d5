"""SweWinogender has no cross-lingual link to English Winogender, and says why.

``winoscope crosslingual`` refuses these pairs (in either order) with the reason below instead of
"no link", because the question is a fair one: the Swedish set adapts Winogender.
"""

from __future__ import annotations

from ...compare.links import Unlinkable, register_link

TASKS = ("swewinogender", "swewinogender/nli", "swewinogender/resolution")
REASON = (
    "SweWinogender rows cannot be linked to English Winogender rows: the SweWinogender "
    "release numbers its own templates (template_id 1A, 1B, ...; schema 1) and does not say "
    "which Winogender schema or sentence (answer 0 or 1) each one adapts, and its "
    "occupations and participants are Swedish lemmas with no English form, so pairing the "
    "runs would rest on a mapping the release does not give. Compare the two runs' own "
    "reports side by side instead (winoscope compare)"
)

for _sv in TASKS:
    for _en in ("winogender-en", "winopron-en"):
        register_link(Unlinkable(_sv, _en, REASON))
