"""What the corpus-scan tests share: the hand-counted Swedish corpus, the Swedish lexicon with a
tiny names table, a mixed plain/gzip/zstd corpus, a CoNLL-U file and files of random lines."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import zstandard

from winoscope.occupations.lexicons import Lexicon, load_lexicon

F, M, T, N = 0, 1, 2, 3  # class columns: female, male, tie, none
SMALL, MEDIUM, LARGE = 0, 1, 2  # collocate sets


# Worked out by hand (Swedish, with the names table of names_lexicon below). Per line:
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


def names_lexicon(folder: Path) -> Lexicon:
    """The Swedish lexicon with a tiny names table, so its large set is known exactly."""
    path = folder / "names.csv"
    path.write_text(
        "name,gender,persons\nInga,female,5000\nPer,male,9000\nHans,male,7000\nAnna,female,8000\n"
        "Kim,female,3000\nKim,male,8000\nEva,female,500\n",
        encoding="utf-8",
    )
    return load_lexicon("sv", names=path)


def write_mixed_corpus(folder: Path) -> list[Path]:
    """Plain, gzip and zstd files whose lines mix every case of SV_TEXT, about 1.5 MB in all."""
    lines = SV_TEXT.splitlines()
    rng = random.Random(7)
    body = "\n".join(rng.choice(lines) for _ in range(30000)) + "\n"
    plain = folder / "a.txt"
    plain.write_text(body, encoding="utf-8")
    gz = folder / "b.txt.gz"
    gz.write_bytes(gzip.compress(body[: len(body) // 3].encode()))
    zst = folder / "c.txt.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(body[len(body) // 2 :].encode()))
    return [plain, gz, zst]
