"""Ukrainian morphology through pymorphy3 and its Ukrainian dictionary.

Used to read free-text answers ("лікарці" names the occupation "лікарка"/"лікар"), to give
answer options in the nominative as the sentence uses them, and by the grammatical-agreement
baseline to read the grammatical gender of a mention. It is the analyser behind
``get_language("uk")`` (:mod:`winoscope.languages.uk`); the module itself is light, pymorphy3
loads on the first parse.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from ..base import get_language

_WORD = re.compile(r"[^\W\d_]+(?:[ʼ'’-][^\W\d_]+)*", re.UNICODE)
APOSTROPHES = str.maketrans({"'": "ʼ", "’": "ʼ"})


@cache
def analyzer():  # type: ignore[no-untyped-def]
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="uk")


def words(text: str) -> list[str]:
    return [w.translate(APOSTROPHES) for w in _WORD.findall(text)]


@lru_cache(maxsize=65536)
def lemmas(word: str) -> frozenset[str]:
    """Every normal form the analyser offers for ``word`` (lower-cased), plus the word itself."""
    w = word.lower().translate(APOSTROPHES)
    forms = {w}
    for p in analyzer().parse(w):
        forms.add(p.normal_form)
    return frozenset(forms)


def phrase_lemmas(text: str) -> set[str]:
    out: set[str] = set()
    for w in words(text):
        out |= lemmas(w)
    return out


def noun_lemmas(word: str) -> set[str]:
    """The normal forms of the noun readings of ``word`` (nothing for a word with none)."""
    return {p.normal_form for p in analyzer().parse(word.lower()) if p.tag.POS == "NOUN"}


def noun_readings(word: str) -> set[str]:
    """The pronoun sets (``male``, ``female``, ``plural``) a nominative noun reading of ``word``
    agrees with: masculine or feminine singular, plural; common gender (суддя, колега) is both
    male and female. Empty for a word with no nominative noun reading."""
    out = set()
    for p in analyzer().parse(word.lower()):
        tag = p.tag
        if tag.POS != "NOUN" or tag.case not in ("nomn", None):  # some entries carry no case
            continue
        if tag.number == "plur":
            out.add("plural")
        elif tag.gender == "masc":
            out.add("male")
        elif tag.gender == "femn":
            out.add("female")
        elif tag.gender == "ms-f" or "Ms-f" in tag:  # common gender (суддя, колега)
            out |= {"male", "female"}
    return out


_GENDER = {"masc": "male", "femn": "female"}

# Third-person singular personal pronouns in every case, from the Ukrainian Language record (a
# closed class: a table is exact where the analyser is ambiguous, e.g. "вона" vs the noun "вон",
# "його" vs "йога"). Singular only: "ним" is also a plural form, and reads as male here.
PRONOUN_GENDER = get_language("uk").pronoun_table(("male", "female"))


@lru_cache(maxsize=65536)
def word_gender(word: str, pos: tuple[str, ...] = ("NOUN", "NPRO")) -> str | None:
    """Grammatical gender ('male'/'female') of ``word`` when the analyser is unanimous.

    Only parses with a part of speech in ``pos`` are considered; plural or neuter readings and
    disagreement between parses give None.
    """
    w = word.lower().translate(APOSTROPHES)
    if w in PRONOUN_GENDER:
        return PRONOUN_GENDER[w]
    found = set()
    for p in analyzer().parse(w):
        if p.tag.POS not in pos:
            continue
        g = _GENDER.get(p.tag.gender or "")
        if g is not None:
            found.add(g)
        elif p.tag.gender == "neut":
            found.add("neuter")
    if len(found) == 1:
        g = next(iter(found))
        return g if g in ("male", "female") else None
    return None


def phrase_gender(text: str) -> str | None:
    """Gender of the head noun of a short mention: the last word with a decided gender."""
    for w in reversed(words(text)):
        g = word_gender(w)
        if g is not None:
            return g
    return None


@lru_cache(maxsize=16384)
def nominative(text: str) -> str:
    """Put a short noun phrase in the nominative singular, keeping its gender.

    ``"лікарці"`` -> ``"лікарка"``, ``"лікареві"`` -> ``"лікар"``. Words the analyser cannot
    inflect stay as they are; the result is lower-cased unless the word is a proper name.
    """
    out = []
    for w in words(text):
        parses = [p for p in analyzer().parse(w.lower()) if p.tag.POS in ("NOUN", "ADJF")]
        # prefer animate common nouns (occupations) over surnames and inanimate homographs
        parses.sort(key=lambda p: ("anim" not in p.tag, "Surn" in p.tag, p.tag.POS != "NOUN"))
        if not parses:
            out.append(w.lower())
        elif parses[0].tag.POS == "NOUN":
            out.append(parses[0].normal_form)
        else:
            gender = parses[0].tag.gender
            inflected = parses[0].inflect({"nomn", gender} if gender else {"nomn"})
            out.append(inflected.word if inflected is not None else w.lower())
    return " ".join(out) if out else text
