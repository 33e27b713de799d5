"""Languages as data: one :class:`Language` record per language, registered by code.

>>> from winoscope.languages import get_language
>>> get_language("sv").pronoun_gender("henne")
'female'

Importing the package registers Ukrainian (``uk``), English (``en``) and Swedish (``sv``); a
new language is ``register_language(Language(code="da", ...))``, or a ``Language`` passed where
a code is accepted. Nothing heavy loads here: the Ukrainian analyser (pymorphy3) loads when a
lemma or a grammatical gender is first asked for.
"""

from __future__ import annotations

from . import en, sv, uk  # noqa: F401  (registers the bundled languages)
from .base import (
    CASES,
    GENDERS,
    LANGUAGES,
    Analyser,
    Language,
    LexiconSpec,
    UnknownLanguageError,
    Wording,
    get_language,
    register_language,
)

__all__ = [
    "CASES",
    "GENDERS",
    "LANGUAGES",
    "Analyser",
    "Language",
    "LexiconSpec",
    "UnknownLanguageError",
    "Wording",
    "get_language",
    "register_language",
]
