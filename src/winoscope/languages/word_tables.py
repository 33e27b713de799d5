"""The one reader of the shipped word tables: each language's occupation lexicon and the
corpus lexicons' hand-written TSV/CSV sources and word lists, all kept in the language's folder.

``languages/uk/occupations.csv`` is the WinoBias-UK occupation lexicon (one row per
occupation: ``occupation_uk``, the masculine form and canonical label, ``feminine_uk``,
``occupation_en`` and ``stereotype``); ``languages/<code>/lexicon/`` holds the corpus lexicons'
sources and generated forms (:mod:`winoscope.occupations.lexicons`). Lines starting with ``#``
are comments; cells are stripped and a missing cell is ``""``.
"""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources
from pathlib import Path

OCCUPATION_FILE = "occupations.csv"  # in the language's folder


def language_folder(language: str) -> Path:
    """The folder of a bundled language (``languages/<code>/``)."""
    return Path(str(resources.files(f"winoscope.languages.{language}")))


def read_rows(path: str | Path) -> list[dict[str, str]]:
    """Rows of a CSV or TSV (by suffix) whose lines starting with '#' are comments."""
    p = Path(path)
    with open(p, encoding="utf-8", newline="") as fh:
        lines = [line for line in fh if line.strip() and not line.startswith("#")]
    if p.suffix.lower() == ".tsv":  # the lexicons' sources: tabs, no quoting
        reader = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    else:
        reader = csv.DictReader(lines)
    return [{k: (v or "").strip() for k, v in row.items() if k is not None} for row in reader]


def read_word_list(path: str | Path) -> list[str]:
    """One word a line; blank lines and '#' comments skipped."""
    with open(path, encoding="utf-8") as fh:
        return [w.strip() for w in fh if w.strip() and not w.startswith("#")]


@cache
def occupation_lexicon(language: str = "uk") -> tuple[dict[str, str], ...]:
    """The shipped occupation lexicon of ``language`` (a KeyError for a language without one)."""
    try:
        path = language_folder(language) / OCCUPATION_FILE
    except ModuleNotFoundError:
        path = None
    if path is None or not path.is_file():
        raise KeyError(f"no occupation lexicon for language {language!r}")
    return tuple(read_rows(path))


@cache
def occupation_entries(language: str = "uk") -> dict[str, dict[str, str]]:
    """The lexicon's rows keyed by the occupation's form in either grammatical gender."""
    table: dict[str, dict[str, str]] = {}
    for row in occupation_lexicon(language):
        table[row[f"occupation_{language}"]] = row
        table[row[f"feminine_{language}"]] = row
    return table


def occupation_forms(canonical: str, language: str = "uk") -> tuple[str, ...]:
    """The occupation as given, then its masculine and feminine forms (when in the lexicon)."""
    entry = occupation_entries(language).get(canonical.lower())
    if entry is None:
        return (canonical,)
    return (canonical, entry[f"occupation_{language}"], entry[f"feminine_{language}"])


def stereotype(occupation: str, language: str = "uk") -> str | None:
    """The occupation's stereotyped gender by the lexicon; None when it is not listed."""
    entry = occupation_entries(language).get(occupation.lower())
    return entry["stereotype"] if entry else None
