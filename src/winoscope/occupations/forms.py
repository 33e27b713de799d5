"""Surface forms of occupations and gendered words: inflection, spelling variants, conflicts.

Corpus scanning matches surface forms, never lemmas (lemmatising a gigaword corpus is 10-100x
slower than matching bytes, and less accurate). So every word a lexicon names is expanded here,
once and offline, into the forms a corpus can contain:

* Swedish nouns by reviewed rules: indefinite/definite x singular/plural, each with its
  s-genitive (``lärare -> läraren, lärarna, lärares, lärarens, lärarnas``);
* Ukrainian nouns and first names by pymorphy3's lexeme (every case and number), with the
  apostrophe written as U+02BC (``Дарʼя``);
* spelling variants at match time: lower/Capitalised/UPPER case and the three apostrophes
  Ukrainian text uses (``'``, ``’``, ``ʼ``), so the scanner never lower-cases or normalises text.

A form claimed by both genders (``Олександра`` is a woman's name and the genitive of
``Олександр``) cannot vote for either: :func:`split_shared` drops it and reports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

APOSTROPHES = ("ʼ", "'", "’")
_APOSTROPHE_BETWEEN_LETTERS = re.compile(r"(?<=[^\W\d_])['’ʼ](?=[^\W\d_])")


def normalise_apostrophes(text: str) -> str:
    """Write every apostrophe between two letters as U+02BC, the Ukrainian letter apostrophe.

    >>> normalise_apostrophes("Дар'я та сім’я, 'цитата'")
    "Дарʼя та сімʼя, 'цитата'"
    """
    return _APOSTROPHE_BETWEEN_LETTERS.sub("ʼ", text)


def apostrophe_variants(form: str) -> list[str]:
    """The form with each apostrophe spelling; a form without an apostrophe is returned alone."""
    form = normalise_apostrophes(form)
    if "ʼ" not in form:
        return [form]
    return [form.replace("ʼ", a) for a in APOSTROPHES]


def case_variants(form: str, *, proper: bool = False) -> list[str]:
    """Spellings a corpus uses for a form: lower, Capitalised (sentence start) and UPPER.

    Proper names are never written in lower case, so they get only the last two.

    >>> case_variants("hon")
    ['hon', 'Hon', 'HON']
    >>> case_variants("Inga", proper=True)
    ['Inga', 'INGA']
    """
    base = form if proper else form.lower()
    capital = base[:1].upper() + base[1:]
    out = [capital, base.upper()] if proper else [base, capital, base.upper()]
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------- Swedish nouns

#: Paradigm name -> (definite singular, indefinite plural, definite plural) built from the lemma.
#: Each entry is a pair (characters to cut from the end, suffix to add).
SWEDISH_PARADIGMS: dict[str, tuple[tuple[int, str], ...]] = {
    # lärare, läraren, lärare, lärarna
    "are": ((0, "n"), (0, ""), (1, "na")),
    # tekniker, teknikern, tekniker, teknikerna
    "er": ((0, "n"), (0, ""), (0, "na")),
    # 3rd declension, stressed last syllable: frisör, frisören, frisörer, frisörerna
    "3": ((0, "en"), (0, "er"), (0, "erna")),
    # unstressed -or: revisor, revisorn, revisorer, revisorerna
    "or": ((0, "n"), (0, "er"), (0, "erna")),
    # 2nd declension: kung, kungen, kungar, kungarna
    "2": ((0, "en"), (0, "ar"), (0, "arna")),
    # 1st declension: flicka, flickan, flickor, flickorna
    "a": ((0, "n"), (1, "or"), (1, "orna")),
    # pojke, pojken, pojkar, pojkarna
    "e": ((0, "n"), (1, "ar"), (1, "arna")),
    # bibliotekarie, bibliotekarien, bibliotekarier, bibliotekarierna
    "ie": ((0, "n"), (0, "r"), (0, "rna")),
    # neuter: kommunalråd, kommunalrådet, kommunalråd, kommunalråden
    "neut": ((0, "et"), (0, ""), (0, "en")),
    # mass noun: kassapersonal, kassapersonalen
    "mass": ((0, "en"),),
    "fixed": (),
}
_SWEDISH_TAGS = ("sg.def", "pl.indef", "pl.def")


def swedish_genitive(form: str) -> str | None:
    """The s-genitive (``läraren -> lärarens``); None after s, x or z, where it adds nothing."""
    return None if form[-1:].lower() in {"s", "x", "z"} else form + "s"


def swedish_noun_forms(
    lemma: str, paradigm: str, extra: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """Every (form, tag) of a Swedish noun: its paradigm's four forms, extra forms, genitives.

    >>> [f for f, _ in swedish_noun_forms("lärare", "are")]
    ['lärare', 'läraren', 'lärarna', 'lärares', 'lärarens', 'lärarnas']
    >>> [f for f, _ in swedish_noun_forms("polis", "3")]
    ['polis', 'polisen', 'poliser', 'poliserna', 'polisens', 'polisers', 'polisernas']
    """
    if paradigm not in SWEDISH_PARADIGMS:
        raise ValueError(f"unknown Swedish paradigm {paradigm!r} for {lemma!r}")
    base: list[tuple[str, str]] = [(lemma, "sg.indef")]
    for (cut, suffix), tag in zip(SWEDISH_PARADIGMS[paradigm], _SWEDISH_TAGS, strict=False):
        stem = lemma[: len(lemma) - cut] if cut else lemma
        base.append((stem + suffix, tag))
    base += [(f, "extra") for f in extra]
    out: dict[str, str] = {}
    for form, tag in base:
        out.setdefault(form, tag)
    for form, tag in list(out.items()):
        gen = swedish_genitive(form)
        if gen is not None:
            out.setdefault(gen, tag + ".gen")
    return list(out.items())


def swedish_name_forms(name: str) -> list[tuple[str, str]]:
    """A first name and its genitive: ``Anna -> Anna, Annas``; ``Hans`` has no separate one."""
    gen = swedish_genitive(name)
    return [(name, "name")] + ([(gen, "name.gen")] if gen else [])


# --------------------------------------------------------------------------- Ukrainian nouns

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
    from ..languages.uk.morphology import analyzer

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


# --------------------------------------------------------------------------- conflicts


@dataclass(frozen=True)
class DroppedForm:
    """A form left out of the lexicon and why (written to ``dropped_forms.tsv``)."""

    form: str
    reason: str
    lemmas: str


def split_shared(
    forms: dict[str, dict[str, set[str]]],
) -> tuple[dict[str, dict[str, set[str]]], list[DroppedForm]]:
    """Remove forms claimed by more than one gender.

    ``forms`` maps gender -> {form: lemmas that produce it}. Returns the same without the
    shared forms, and one :class:`DroppedForm` per shared form (compared case-insensitively,
    since the scanner also tries the capitalised variant of every common word).

    >>> kept, dropped = split_shared({"female": {"Олександра": {"Олександра"}},
    ...                               "male": {"Олександра": {"Олександр"}, "Олександр": {"Олександр"}}})
    >>> sorted(kept["male"]), [d.form for d in dropped]
    (['Олександр'], ['Олександра'])
    """
    owners: dict[str, set[str]] = {}
    for gender, table in forms.items():
        for form in table:
            owners.setdefault(form.lower(), set()).add(gender)
    shared = {f for f, g in owners.items() if len(g) > 1}
    kept = {g: {f: ls for f, ls in t.items() if f.lower() not in shared} for g, t in forms.items()}
    dropped: list[DroppedForm] = []
    for low in sorted(shared):
        lemmas = sorted(
            f"{lemma} ({g})"
            for g, t in forms.items()
            for f, ls in t.items()
            if f.lower() == low
            for lemma in ls
        )
        spelled = next(f for t in forms.values() for f in t if f.lower() == low)
        dropped.append(DroppedForm(spelled, "shared by both genders", "; ".join(lemmas)))
    return kept, dropped
