"""The :class:`Language` record and the registry of languages by code.

A language is data: the words a model uses to introduce an answer or join two options, the
letters of its alphabet a model may write for the Latin option letters, the third-person
pronoun forms by gender and case, and optionally a morphological analyser. Code that reads
answers, checks pronouns or judges grammatical gender asks the record, so a new language is one
``Language(...)`` and a :func:`register_language` call.

Genders in :attr:`Language.pronouns` are the pronoun sets the datasets use: ``male``,
``female``, ``neutral`` (a singular gender-neutral pronoun: English *they*, Swedish *hen*),
``plural`` (Ukrainian *вони*, the WinoPron-UK neutral set) and ``neuter`` (a grammatical
neuter). Cases are ``nom``, ``gen``, ``dat``, ``acc``, ``ins``, ``loc``, ``poss`` (the
possessive), ``refl`` (the reflexive, English *himself*); a language lists the ones it has.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol

from ..errors import TaskError
from ..registry import Registry

GENDERS = ("male", "female", "neutral", "plural", "neuter")
CASES = ("nom", "gen", "dat", "acc", "ins", "loc", "poss", "refl")

_WORD = re.compile(r"[^\W\d_]+(?:[ʼ'’-][^\W\d_]+)*", re.UNICODE)


WORDING_KINDS = ("choice", "nli", "cloze")


@dataclass(frozen=True)
class Wording:
    """One prompt or cloze template of a language, as data (the protocols make it a template).

    ``kind``: ``choice`` (lettered forced choice: ``{sentence}``, ``{pronoun}``,
    ``{option_a}``, ``{option_b}``), ``nli`` (premise and hypothesis: ``{hypothesis}`` instead
    of ``{pronoun}``) or ``cloze`` (ending in ``{candidate}``). ``name`` ends in a version
    (``uk-plain-v1``): a changed text gets a new version, because name and text key the
    stored answers.
    """

    name: str
    kind: str
    text: str
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in WORDING_KINDS:
            raise ValueError(
                f"wording {self.name!r}: kind {self.kind!r} is not one of {WORDING_KINDS}"
            )


FormsOf = Callable[[Mapping[str, str]], list[tuple[str, str]]]  # a source row -> (form, tag)s


@dataclass(frozen=True)
class LexiconSpec:
    """A language's corpus lexicons (:mod:`winoscope.occupations.lexicons` reads them).

    ``folder`` holds the sources (``collocates.tsv``, ``occupations.tsv``, ...) and the
    generated ``forms.tsv``. ``collocate_forms`` and ``occupation_forms`` turn one source row
    into its (form, tag) pairs; ``name_forms(name, gender)`` does the same for a first name of
    the large set. ``ships_names``: the folder's ``names.tsv`` is the large set (without it the
    large set needs a names table, and equals the medium set when none is given).
    """

    folder: Path
    collocate_forms: FormsOf
    occupation_forms: FormsOf
    name_forms: Callable[[str, str], list[tuple[str, str]]]
    ships_names: bool = False


class Analyser(Protocol):
    """What a morphological analyser must offer a :class:`Language` (a module satisfies it).

    Optional, used where present: ``noun_lemmas(word) -> set[str]`` (the lemmas of a word's
    noun readings), ``noun_readings(word) -> set[str]`` (the pronoun sets a nominative noun
    reading agrees with: ``male``, ``female``, ``plural``) and ``nominative(text) -> str`` (a
    short noun phrase in the nominative singular). :mod:`winoscope.languages.uk.morphology`
    (``languages/uk/morphology.py``) has all of them.
    """

    def words(self, text: str) -> list[str]:
        """The words of ``text`` as the analyser reads them."""
        ...

    def phrase_lemmas(self, text: str) -> set[str]:
        """Every lemma (lower-cased) of every word of ``text``, plus the words themselves."""
        ...

    def phrase_gender(self, text: str) -> str | None:
        """Grammatical gender (``male``/``female``) of the head noun of a short mention."""
        ...


@dataclass(frozen=True, eq=False)
class Language:
    """One language's facts. ``eq=False``: records compare (and hash) by identity.

    ``analyser`` is a factory called once, on first use (so a heavy analyser such as pymorphy3
    loads only when a lemma or a gender is asked for); without one, :meth:`phrase_lemmas` gives
    the casefolded words, :meth:`phrase_gender` None and :meth:`nominative` the text itself.
    """

    code: str
    name: str
    answer_words: tuple[str, ...] = ()  # "answer", "Відповідь" ... before the option letter
    or_words: tuple[str, ...] = ()  # "A or B": an answer naming two letters
    and_words: tuple[str, ...] = ()  # "A and B": read like "A or B" (two letters)
    letter_lookalikes: Mapping[str, str] = field(default_factory=dict)  # upper case -> label
    # a look-alike whose look differs from its alphabet position (Ukrainian В looks like B but
    # is the third letter): where its position's label is not offered but its look is, the
    # letter is ambiguous
    ambiguous_letters: Mapping[str, str] = field(default_factory=dict)
    pronouns: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    determiners: tuple[str, ...] = ()  # articles a mention may start with ("the", "a", "an")
    analyser: Callable[[], Analyser] | None = None
    # the language's prompt and cloze templates (the task defaults first), which every task in
    # this language may be asked through (winoscope.prompt_templates registers them)
    wordings: tuple[Wording, ...] = ()
    # the defaults a task in this language is asked through: a lettered prompt (``choice``) and
    # a cloze template; the protocols take them from here
    default_prompt: Wording | None = None
    default_cloze: Wording | None = None
    lexicon: LexiconSpec | None = None  # the corpus lexicons, where the language has them
    _memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.code or not self.code.strip():
            raise ValueError("a Language needs a code (e.g. 'uk')")
        # own copies as tuples and plain dicts: the record stays as it was declared
        object.__setattr__(self, "wordings", tuple(self.wordings))
        for name, kind in (("default_prompt", "choice"), ("default_cloze", "cloze")):
            wording = getattr(self, name)
            if wording is not None and wording.kind != kind:
                raise ValueError(
                    f"language {self.code!r}: {name} {wording.name!r} is a {wording.kind} "
                    f"wording, not {kind}"
                )
        for name in ("answer_words", "or_words", "and_words", "determiners"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise ValueError(
                    f"language {self.code!r}: {name} must be a tuple of words, not the string "
                    f"{value!r}"
                )
            object.__setattr__(self, name, tuple(value))
        object.__setattr__(
            self, "pronouns", {key: _forms(forms) for key, forms in self.pronouns.items()}
        )
        object.__setattr__(self, "letter_lookalikes", dict(self.letter_lookalikes))
        object.__setattr__(self, "ambiguous_letters", dict(self.ambiguous_letters))
        for (gender, case), forms in self.pronouns.items():
            if isinstance(forms, str):
                raise ValueError(
                    f"language {self.code!r}: pronouns[{gender!r}, {case!r}] must be a tuple "
                    f"of forms, not the string {forms!r}"
                )
            if gender not in GENDERS:
                raise ValueError(
                    f"language {self.code!r}: pronoun gender {gender!r} is not one of {GENDERS}"
                )
            if case not in CASES:
                raise ValueError(
                    f"language {self.code!r}: pronoun case {case!r} is not one of {CASES}"
                )
            if not forms:
                raise ValueError(
                    f"language {self.code!r}: pronouns[{gender!r}, {case!r}] has no forms"
                )
        for key, label in (*self.letter_lookalikes.items(), *self.ambiguous_letters.items()):
            if len(key) != 1 or key != key.upper():
                raise ValueError(
                    f"language {self.code!r}: letter look-alike {key!r} must be one upper-case "
                    "letter"
                )
            if not re.fullmatch(r"[A-Z]", label):
                raise ValueError(
                    f"language {self.code!r}: look-alike {key!r} maps to {label!r}, not to an "
                    "option letter A-Z"
                )
        for key in self.ambiguous_letters:
            if key not in self.letter_lookalikes:
                raise ValueError(
                    f"language {self.code!r}: ambiguous letter {key!r} is not a letter look-alike"
                )
        by_form: dict[str, set[str]] = {}
        for (gender, _case), forms in self.pronouns.items():
            for f in forms:
                by_form.setdefault(f.lower(), set()).add(gender)
        self._memo["genders"] = {f: frozenset(g) for f, g in by_form.items()}

    def __repr__(self) -> str:
        return f"Language({self.code!r}, {self.name!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle a registered language as its code (it unpickles to the registered record),
        any other as its fields (the made analyser is not pickled: the factory remakes it)."""
        if LANGUAGES.peek(self.code) is self:
            return (get_language, (self.code,))
        return (_rebuild, ({f.name: getattr(self, f.name) for f in fields(self) if f.init},))

    # pronouns -------------------------------------------------------------------------------
    def pronoun_forms(self, gender: str, cases: Iterable[str] | None = None) -> frozenset[str]:
        """Every form of ``gender``'s pronoun in ``cases`` (all cases when None), lower-cased."""
        wanted = None if cases is None else set(cases)
        return frozenset(
            f.lower()
            for (g, c), forms in self.pronouns.items()
            if g == gender and (wanted is None or c in wanted)
            for f in forms
        )

    def pronoun_table(
        self, genders: Iterable[str] | None = None, cases: Iterable[str] | None = None
    ) -> dict[str, str]:
        """Form -> gender over ``genders`` and ``cases`` (all when None), in table order; a form
        two of the chosen genders share (Ukrainian *ним*: male and plural) is left out.

        >>> from winoscope.languages import get_language
        >>> get_language("en").pronoun_table(["male"])
        {'he': 'male', 'him': 'male', 'his': 'male', 'himself': 'male'}
        """
        keep_g = None if genders is None else set(genders)
        keep_c = None if cases is None else set(cases)
        table: dict[str, str] = {}
        shared: set[str] = set()
        for (g, c), forms in self.pronouns.items():
            if (keep_g is not None and g not in keep_g) or (keep_c is not None and c not in keep_c):
                continue
            for f in (f.lower() for f in forms):
                if table.setdefault(f, g) != g:
                    shared.add(f)
        return {f: g for f, g in table.items() if f not in shared}

    def wording(self, name: str) -> Wording:
        """The language's wording called ``name`` (a KeyError naming the known ones)."""
        for w in self.wordings:
            if w.name == name:
                return w
        known = ", ".join(w.name for w in self.wordings) or "none"
        raise KeyError(f"language {self.code!r} has no wording {name!r} (known: {known})")

    def pronoun_genders(self, word: str) -> frozenset[str]:
        """The genders whose pronoun has ``word`` as a form (several for Ukrainian *ним*)."""
        genders: dict[str, frozenset[str]] = self._memo["genders"]
        return genders.get(word.strip().lower(), frozenset())

    def pronoun_gender(self, word: str) -> str | None:
        """The gender of a pronoun form when the table names exactly one, else None."""
        found = self.pronoun_genders(word)
        return next(iter(found)) if len(found) == 1 else None

    # morphology -----------------------------------------------------------------------------
    def get_analyser(self) -> Analyser | None:
        """The analyser (made by the factory on the first call), or None."""
        if self.analyser is None:
            return None
        if "analyser" not in self._memo:
            self._memo["analyser"] = self.analyser()
        an: Analyser = self._memo["analyser"]
        return an

    def _optional(self, name: str) -> Callable[..., Any] | None:
        fn: Callable[..., Any] | None = getattr(self.get_analyser(), name, None)
        return fn

    def words(self, text: str) -> list[str]:
        """The words of ``text`` (letters, with inner apostrophes and hyphens)."""
        an = self.get_analyser()
        return an.words(text) if an is not None else _WORD.findall(text)

    def phrase_lemmas(self, text: str) -> set[str]:
        """Lemmas of every word of ``text`` by the analyser; without one, the words themselves
        (casefolded, with one apostrophe)."""
        an = self.get_analyser()
        if an is not None:
            return an.phrase_lemmas(text)
        return {_plain(w) for w in self.words(text)}

    def phrase_gender(self, text: str) -> str | None:
        """Grammatical gender of a short mention's head by the analyser; None without one."""
        an = self.get_analyser()
        return an.phrase_gender(text) if an is not None else None

    def noun_lemmas(self, word: str) -> set[str]:
        """Lemmas of ``word``'s noun readings by the analyser; the casefolded word without one."""
        fn = self._optional("noun_lemmas")
        return set(fn(word)) if fn is not None else {_plain(word)}

    def noun_readings(self, word: str) -> set[str]:
        """Pronoun sets ``word`` agrees with as a nominative noun; empty without an analyser
        (agreement is then not judged)."""
        fn = self._optional("noun_readings")
        return set(fn(word)) if fn is not None else set()

    def nominative(self, text: str) -> str:
        """A short noun phrase in the nominative singular by the analyser ("лікарці" ->
        "лікарка"); the text as it is without one."""
        fn = self._optional("nominative")
        return str(fn(text)) if fn is not None else text


def _forms(forms: Iterable[str]) -> tuple[str, ...] | str:
    """A pronoun entry as a tuple (a bare string is kept, so the check can name it)."""
    return forms if isinstance(forms, str) else tuple(forms)


def _rebuild(kwargs: dict[str, Any]) -> Language:
    return Language(**kwargs)


_APOSTROPHES = str.maketrans({"’": "'", "ʼ": "'"})


def _plain(word: str) -> str:
    """A word as its own lemma: casefolded, one apostrophe (nurse’s = nurse's)."""
    return word.casefold().translate(_APOSTROPHES)


def _same_record(a: Language, b: Language) -> bool:
    """Whether two records state the same facts (every init field equal)."""
    return all(getattr(a, f.name) == getattr(b, f.name) for f in fields(a) if f.init)


#: the languages by code, in registration order: the bundled ones (registered when
#: :mod:`winoscope.languages` is imported), then any plugin's, loaded on the first listing or
#: the first unknown code
LANGUAGES: Registry[Language] = Registry(
    "language",
    ValueError,
    same=_same_record,
    twice=lambda code, old: (
        f"language {code!r} is already registered ({old.name}); pass replace=True"
    ),
    plugin_error=TaskError,
    ordered=False,
)
LANGUAGES.discover_with(plugins=True)


def register_language(lang: Language, *, replace: bool = False) -> Language:
    """Add ``lang`` to :data:`LANGUAGES` under its code. Registering the same record again (or
    an equal one: every field the same) is harmless and keeps the first; a different record
    under a code already taken needs ``replace``."""
    if not isinstance(lang, Language):
        raise TypeError(f"register_language takes a Language, not {type(lang).__name__}")
    return LANGUAGES.add(lang.code, lang, replace=replace)


class UnknownLanguageError(KeyError, ValueError):
    """A language code that is not registered; the message lists the known codes."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def get_language(code: str | Language) -> Language:
    """The registered language with ``code`` (a :class:`Language` is returned as it is)."""
    if isinstance(code, Language):
        return code
    lang = None
    if isinstance(code, str):  # a registered code is no look-up; an unknown one loads plugins
        lang = LANGUAGES.peek(code) or LANGUAGES.get(code, None)
    if lang is None:
        known = ", ".join(sorted(LANGUAGES.names())) or "none"
        raise UnknownLanguageError(
            f"unknown language {code!r}; known languages: {known} "
            "(add one with winoscope.languages.register_language(Language(...)))"
        )
    return lang
