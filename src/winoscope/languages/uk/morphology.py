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

from ..apostrophes import APOSTROPHE_SPELLINGS as APOSTROPHE_SPELLINGS  # re-exported
from ..apostrophes import apostrophe_variants as apostrophe_variants
from ..apostrophes import normalise_apostrophes
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


# --------------------------------------------------------------------------- occupation forms

_UK_GENDER = {"female": "femn", "male": "masc", "femn": "femn", "masc": "masc"}


def ukrainian_forms(
    lemma: str, gender: str, *, name: bool = False, singular_only: bool = False
) -> list[tuple[str, str]]:
    """Every (form, tag) of a Ukrainian noun or first name, from pymorphy3's lexeme.

    The parse used is a noun whose normal form is ``lemma`` with the given grammatical gender
    (and the ``Name`` tag for first names; common nouns prefer parses without it). Forms keep
    the lemma's capitalisation and write the apostrophe as U+02BC.

    >>> sorted({f for f, _ in ukrainian_forms("лікарка", "femn")})[:3]
    ['лікарками', 'лікарках', 'лікарки']
    """
    target = _UK_GENDER[gender]
    query = normalise_apostrophes(lemma).replace("ʼ", "'").lower()
    candidates = []
    for p in analyzer().parse(query):
        if p.tag.POS != "NOUN" or p.normal_form != query:
            continue
        if name and "anim" not in p.tag:
            continue
        if p.tag.gender != target:
            continue
        rank = ("Name" in p.tag) != name, "Surn" in p.tag, "anim" not in p.tag
        candidates.append((rank, p))
    if not candidates:
        raise ValueError(f"pymorphy3 has no {target} noun parse for {lemma!r}")
    candidates.sort(key=lambda c: c[0])
    parse = candidates[0][1]
    out: dict[str, str] = {}
    for f in parse.lexeme:
        if singular_only and "plur" in f.tag:
            continue
        word = normalise_apostrophes(f.word)
        if lemma[:1].isupper():
            word = word[:1].upper() + word[1:]
        tag = f"{f.tag.number or 'sing'}.{f.tag.case or ''}"
        out.setdefault(word, tag)
    return list(out.items())
