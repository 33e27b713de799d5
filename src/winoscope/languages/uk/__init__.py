"""Ukrainian: the answer words of Ukrainian prompts, the Cyrillic option letters, the
third-person pronouns, pymorphy3 (:mod:`.morphology`, ``languages/uk/morphology.py``) as the
analyser and the corpus lexicons (:mod:`.corpus_lexicon`).

Cyrillic letters. A Ukrainian model may answer a prompt labelled A/B in its own alphabet, whose
order is А, Б, В. ``А`` (also Latin A's look-alike) is the first option and ``Б`` the second;
``В`` is the third letter (option C) although it looks like Latin B, so in a prompt offering A
and B only it is ambiguous; ``С`` is Latin C's look-alike.
"""

from __future__ import annotations

from ..base import Analyser, Language, register_language
from .corpus_lexicon import LEXICON
from .prompts import CLOZE, DEFAULT, WORDINGS


def _analyser() -> Analyser:
    from . import morphology as uk_morphology  # pymorphy3 itself loads on the first parse

    return uk_morphology


_POSSESSIVE_PLURAL = (
    "їхній",
    "їхня",
    "їхнє",
    "їхні",
    "їхнього",
    "їхньої",
    "їхньому",
    "їхнім",
    "їхню",
    "їхньою",
    "їхніх",
    "їхніми",
    "їх",
)

UKRAINIAN = register_language(
    Language(
        wordings=WORDINGS,
        default_prompt=DEFAULT,
        default_cloze=CLOZE,
        lexicon=LEXICON,
        code="uk",
        name="Ukrainian",
        # English ones too: a model may answer a Ukrainian prompt with "Answer: B"
        answer_words=("відповідь", "answer", "варіант", "option", "правильна відповідь"),
        or_words=("або", "чи", "or"),
        and_words=("і", "й", "та", "and"),
        letter_lookalikes={"А": "A", "Б": "B", "В": "C", "С": "C"},
        ambiguous_letters={"В": "B"},
        # third person; the forms with н- follow prepositions ("в нього", "на ній")
        pronouns={
            ("male", "nom"): ("він",),
            ("male", "gen"): ("його", "нього"),
            ("male", "dat"): ("йому",),
            ("male", "acc"): ("його", "нього"),
            ("male", "ins"): ("ним",),
            ("male", "loc"): ("ньому", "нім"),
            ("male", "poss"): ("його",),
            ("female", "nom"): ("вона",),
            ("female", "gen"): ("її", "неї"),
            ("female", "dat"): ("їй",),
            ("female", "acc"): ("її", "неї"),
            ("female", "ins"): ("нею",),
            ("female", "loc"): ("ній",),
            ("female", "poss"): ("її",),
            ("plural", "nom"): ("вони",),
            ("plural", "gen"): ("їх", "них"),
            ("plural", "dat"): ("їм", "ним"),
            ("plural", "acc"): ("їх", "них"),
            ("plural", "ins"): ("ними",),
            ("plural", "loc"): ("них",),
            ("plural", "poss"): _POSSESSIVE_PLURAL,
        },
        analyser=_analyser,
    )
)
