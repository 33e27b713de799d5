"""Surface forms of occupations and gendered words: inflection, spelling variants, conflicts.

Corpus scanning matches surface forms, never lemmas (lemmatising a gigaword corpus is 10-100x
slower than matching bytes, and less accurate). So every word a lexicon names is expanded here,
once and offline, into the forms a corpus can contain:

* Swedish nouns by reviewed rules (:mod:`winoscope.languages.sv.morphology`):
  indefinite/definite x singular/plural, each with its s-genitive
  (``lärare -> läraren, lärarna, lärares, lärarens, lärarnas``);
* Ukrainian nouns and first names by pymorphy3's lexeme (every case and number,
  :mod:`winoscope.languages.uk.morphology`), with the apostrophe written as U+02BC (``Дарʼя``);
* spelling variants at match time: lower/Capitalised/UPPER case and the three apostrophes
  Ukrainian text uses (``'``, ``’``, ``ʼ``), so the scanner never lower-cases or normalises text.

A form claimed by both genders (``Олександра`` is a woman's name and the genitive of
``Олександр``) cannot vote for either: :func:`split_shared` drops it and reports it.
"""

from __future__ import annotations

from dataclasses import dataclass


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
