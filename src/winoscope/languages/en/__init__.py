"""English: answer words, third-person pronouns (singular *they* as ``neutral``), no analyser."""

from __future__ import annotations

from ..base import Language, register_language
from .prompts import CLOZE, DEFAULT, WORDINGS

ENGLISH = register_language(
    Language(
        wordings=WORDINGS,
        default_prompt=DEFAULT,
        default_cloze=CLOZE,
        code="en",
        name="English",
        answer_words=("answer", "option", "correct answer"),
        or_words=("or",),
        and_words=("and",),
        determiners=("the", "a", "an"),
        pronouns={
            ("male", "nom"): ("he",),
            ("male", "acc"): ("him",),
            ("male", "poss"): ("his",),
            ("male", "refl"): ("himself",),
            ("female", "nom"): ("she",),
            ("female", "acc"): ("her",),
            ("female", "poss"): ("her", "hers"),
            ("female", "refl"): ("herself",),
            ("neutral", "nom"): ("they",),
            ("neutral", "acc"): ("them",),
            ("neutral", "poss"): ("their", "theirs"),
            ("neutral", "refl"): ("themselves", "themself"),
        },
    )
)
