"""Regenerate the stored form lists of the occupation lexicons.

    python scripts/build_occupation_forms.py            # every language with corpus lexicons
    python scripts/build_occupation_forms.py uk

Writes src/winoscope/languages/{lang}/lexicon/forms.tsv and dropped_forms.tsv from the
hand-written sources beside them, as the language's languages/{lang}/corpus_lexicon.py
expands them (Swedish by reviewed paradigm rules, Ukrainian with pymorphy3). Review the diff before committing.
"""

from __future__ import annotations

import sys

from winoscope.occupations.lexicons import lexicon_languages, write_forms


def main(argv: list[str]) -> None:
    for lang in argv or lexicon_languages():
        forms_path, dropped_path = write_forms(lang)
        print(f"wrote {forms_path} and {dropped_path}")


if __name__ == "__main__":
    main(sys.argv[1:])
