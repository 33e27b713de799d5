"""Swedish: answer words, third-person pronouns (*hen* as ``neutral``), no analyser, and the
corpus lexicons (:mod:`.corpus_lexicon`).

*hen*'s object form is *hen* or *henom* (both in SAOL); SweWinogender writes *henom*.
"""

from __future__ import annotations

from ..base import Language, register_language
from .corpus_lexicon import LEXICON
from .prompts import CLOZE, RESOLUTION, WORDINGS

SWEDISH = register_language(
    Language(
        wordings=WORDINGS,
        default_prompt=RESOLUTION,
        default_cloze=CLOZE,
        lexicon=LEXICON,
        code="sv",
        name="Swedish",
        # English ones too: a model may answer a Swedish prompt in English
        answer_words=("svar", "svaret", "rätt svar", "alternativ", "answer", "option"),
        or_words=("eller", "or"),
        and_words=("och", "and"),
        determiners=("en", "ett"),
        pronouns={
            ("male", "nom"): ("han",),
            ("male", "acc"): ("honom",),
            ("male", "poss"): ("hans",),
            ("female", "nom"): ("hon",),
            ("female", "acc"): ("henne",),
            ("female", "poss"): ("hennes",),
            ("neutral", "nom"): ("hen",),
            ("neutral", "acc"): ("henom", "hen"),
            ("neutral", "poss"): ("hens",),
        },
    )
)
