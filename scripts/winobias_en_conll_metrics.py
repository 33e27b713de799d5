"""CoNLL metrics on the English WinoBias CoNLL files for gold-as-system and perturbed systems.

Usage: python scripts/winobias_en_conll_metrics.py [../shared/data/winobias-en/conll_format]

Systems: gold (the key itself), swapped_antecedent (the pronoun linked to the other
occupation instead of the referent), dropped_pronoun (the evaluated pronoun left out),
extra_mention (the other occupation added to the entity), empty (no output at all).
Prints MUC, B-cubed, CEAF-e F1 and the CoNLL average per file and over all eight files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from winoscope.datasets.conll import read_conll
from winoscope.families.winobias.conll_key import (
    CONDITIONS,
    SPLITS,
    TYPES,
    _find_occupation,
    _occupations,
    file_name,
)
from winoscope.scoring.coref_metrics import DocumentScore, score_corpus

SYSTEMS = {
    "gold": lambda k, o: [k],
    "swapped_antecedent": lambda k, o: [[o, *k[1:]]],
    "dropped_pronoun": lambda k, o: [[k[0], *k[2:]]],
    "extra_mention": lambda k, o: [[*k, o]],
    "empty": lambda k, o: [],
}


def main(folder: Path) -> None:
    occupations = _occupations(folder)
    totals = {s: DocumentScore() for s in SYSTEMS}
    print("| file | system | MUC F1 | B3 F1 | CEAF-e F1 | CoNLL F1 |")
    print("|---|---|---|---|---|---|")
    for sp in SPLITS:
        for ty in TYPES:
            for co in CONDITIONS:
                name = file_name(sp, ty, co)
                docs = read_conll(folder / name)
                key = {}
                resp: dict[str, dict] = {s: {} for s in SYSTEMS}
                for d in docs:
                    k = sorted(d.clusters[0])
                    taken = {t for s, e in k for t in range(s, e + 1)}
                    occ = _find_occupation(d.tokens, taken, occupations)
                    other = (occ[0], occ[1])  # type: ignore[index]
                    key[d.name] = [k]
                    for s, make in SYSTEMS.items():
                        resp[s][d.name] = make(k, other)
                for s in SYSTEMS:
                    sc = score_corpus(key, resp[s])
                    totals[s] = totals[s] + sc
                    print(_row(name, s, sc))
    for s in SYSTEMS:
        print(_row("all eight files", s, totals[s]))


def _row(name: str, system: str, s: DocumentScore) -> str:
    vals = [100 * s.rpf(m)[2] for m in ("muc", "bcub", "ceafe")] + [100 * s.conll_f1]
    return f"| {name} | {system} | " + " | ".join(f"{v:.2f}" for v in vals) + " |"


if __name__ == "__main__":
    default = (
        Path(__file__).resolve().parents[2] / "shared" / "data" / "winobias-en" / "conll_format"
    )
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
