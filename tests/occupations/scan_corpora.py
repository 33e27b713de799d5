"""Text shared by the corpus-scan tests: the hand-counted Swedish corpus, a CoNLL-U file and
files of numbered lines."""

from __future__ import annotations

import random
from pathlib import Path

F, M, T, N = 0, 1, 2, 3  # class columns: female, male, tie, none
SMALL, MEDIUM, LARGE = 0, 1, 2  # collocate sets


# Worked out by hand (Swedish, with the names table of the sv_lexicon_names fixture). Per line:
# female/male collocate tokens per set (small | medium | large) and the occupations mentioned.
SV_TEXT = """\
Hon är läkare och hennes bror är polis.
Han och hon träffade läkaren.
Läkaren kom.
Inga läkare kom, sa Inga till Per.
Hans bror är lärare; Hans är lärare.
Lärarnas fru kom hem. Hon var glad.
HON KÖPTE EN HONA TILL LÄRAREN.
Kim och Eva hälsade på Annas läkare.
"""


def lines_file(tmp_path: Path, n: int, *, trailing_newline: bool = True, seed: int = 0) -> Path:
    rng = random.Random(seed)
    words = ["hon", "han", "läkare", "polis", "och", "är", "Inga", "lärarna", "x" * 50]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(n)]
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    return path


CONLLU = """\
# sent_id = 1
# text = Läkaren, hon kom.
1\tLäkaren\tläkare\tNOUN\t_\t_\t3\tnsubj\t_\tSpaceAfter=No
2\t,\t,\tPUNCT\t_\t_\t1\tpunct\t_\t_
3\thon\thon\tPRON\t_\t_\t0\troot\t_\t_
4\tkom\tkomma\tVERB\t_\t_\t3\tconj\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

# sent_id = 2
1-2\tHenne\t_\t_\t_\t_\t_\t_\t_\t_
1\tHen\thenne\tPRON\t_\t_\t0\troot\t_\t_
2\tne\tx\tPART\t_\t_\t1\tdep\t_\t_
2.1\tghost\tghost\tX\t_\t_\t_\t_\t_\t_
3\tpoliserna\tpolis\tNOUN\t_\t_\t1\tobj\t_\t_

"""
