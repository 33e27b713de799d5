"""Reading the shipped word tables: one reader for the occupation lexicon and the lexicons'
hand-written TSV/CSV sources and word lists.

Lines starting with ``#`` are comments; cells are stripped and a missing cell is ``""``.
"""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources
from pathlib import Path

OCCUPATION_LEXICONS = {"uk": "occupations_uk.csv"}  # language -> file in winoscope.data


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
    """The shipped occupation lexicon of ``language``: for Ukrainian one row per occupation
    with ``occupation_uk`` (masculine form, the canonical label), ``feminine_uk``,
    ``occupation_en`` and ``stereotype``."""
    name = OCCUPATION_LEXICONS.get(language)
    if name is None:
        raise KeyError(f"no occupation lexicon for language {language!r}")
    path = resources.files("winoscope.data").joinpath(name)
    return tuple(read_rows(Path(str(path))))
