"""Swedish inflection of occupation nouns and first names, by reviewed rules (no analyser).

The corpus lexicons (:mod:`winoscope.occupations.lexicons`) expand every Swedish occupation
and name into the surface forms a corpus can contain with these paradigms.
"""

from __future__ import annotations

from collections.abc import Iterable

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
