"""Corpus scanning: hand-counted corpora, word boundaries, inputs, and identical counts across
one process, several processes and Dask."""

from __future__ import annotations

import gzip
import itertools
import mmap
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import zstandard

from winoscope.errors import DatasetError
from winoscope.occupations.lexicons import load_lexicon
from winoscope.occupations.scan import (
    build_spec,
    count_block,
    count_block_occupations,
    plan_units,
    read_conllu,
    read_range,
    read_stream,
    read_unit,
    scan_corpus,
)
from winoscope.occupations.scan.inputs import unit_input_bytes
from winoscope.occupations.scan.streams import fill_slots

F, M, T, N = 0, 1, 2, 3  # class columns: female, male, tie, none
SMALL, MEDIUM, LARGE = 0, 1, 2


@pytest.fixture(scope="module")
def sv_spec():
    return build_spec(load_lexicon("sv"))


@pytest.fixture(scope="module")
def sv_lexicon_names(tmp_path_factory):
    """A tiny names table so the Swedish large set is known exactly."""
    path = tmp_path_factory.mktemp("names") / "names.csv"
    path.write_text(
        "name,gender,persons\nInga,female,5000\nPer,male,9000\nHans,male,7000\nAnna,female,8000\n"
        "Kim,female,3000\nKim,male,8000\nEva,female,500\n",
        encoding="utf-8",
    )
    return load_lexicon("sv", names=path)


@pytest.fixture(scope="module")
def sv_names_spec(sv_lexicon_names):
    return build_spec(sv_lexicon_names)


@pytest.fixture(scope="module")
def uk_spec():
    return build_spec(load_lexicon("uk"))


def occ(spec, lexicon, name):
    return lexicon.occupations.index(name)


# Worked out by hand (Swedish, names table above). Per line: female/male collocate tokens per
# set (small | medium | large) and the occupations mentioned.
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
# line 1: small F2 (hon, hennes) M0 -> F; medium + bror: F2 M1 -> F; large same -> F
# line 2: 1:1 in every set -> tie
# line 3: no collocate -> none
# line 4: "Inga" opening the sentence is 'no' (ignored); inside: Inga F, Per M -> large tie
# line 5: opening "Hans" is the pronoun (small, M); "bror" medium M; inner "Hans" the name
#         -> small M1, medium M2, large M3
# line 6: Hon (small F), fru (medium F) -> F everywhere
# line 7: HON (upper case) F; HONA is another word -> F everywhere
# line 8: Kim is both genders' name (dropped), Eva below 1000 bearers, Annas = Anna's -> large F
SV_TOTALS = [
    [3, 1, 1, 3],  # small: F lines 1 6 7; M line 5; tie 2; none 3 4 8
    [3, 1, 1, 3],
    [4, 1, 2, 1],  # large: F 1 6 7 8; M 5; tie 2 4; none 3
]


def test_hand_counted_swedish_corpus(sv_lexicon_names, sv_names_spec):
    c = count_block(sv_names_spec, SV_TEXT.encode())
    assert c.lines == 8
    assert c.totals.tolist() == SV_TOTALS
    o = {
        name: c.occupation[sv_lexicon_names.occupations.index(name)].tolist()
        for name in ("läkare", "polis", "lärare")
    }
    # läkare: lines 1 (F), 2 (tie), 3 (none), 4 (none | none | tie), 8 (none | none | F)
    assert o["läkare"] == [[1, 0, 1, 3], [1, 0, 1, 3], [2, 0, 2, 1]]
    assert o["polis"] == [[1, 0, 0, 0]] * 3
    # lärare: line 5 (M), 6 (F, as "Lärarnas"), 7 (F, as "LÄRAREN")
    assert o["lärare"] == [[2, 1, 0, 0]] * 3
    # collocate tokens by gender and the set that adds them
    # female: small hon hennes hon Hon HON = 5; medium fru = 1; large Inga Annas = 2
    # male: small Han Hans = 2; medium bror bror = 2; large Per Hans = 2
    assert c.hits.tolist() == [[5, 1, 2], [2, 2, 2]]
    assert c.bytes == len(SV_TEXT.encode())


def test_occupation_only_scan_gives_the_same_occupation_counts(sv_names_spec):
    full = count_block(sv_names_spec, SV_TEXT.encode())
    only = count_block_occupations(sv_names_spec, SV_TEXT.encode())
    assert np.array_equal(full.occupation, only.occupation)
    assert np.array_equal(full.lemma, only.lemma)
    assert not only.full and only.totals.sum() == 0
    assert only.lines == full.lines


@pytest.mark.parametrize(
    ("line", "female", "male"),
    [
        ("hona honom", 0, 1),  # prefix of a longer word is no match
        ("Honduras, hon.", 1, 0),
        ("(hon)", 1, 0),
        ("hon_x hon2", 0, 0),  # underscore and digits are word characters
        ("mamma-hon", 1, 0),  # hyphen separates (mamma is medium; small counts hon)
        ("«hon» — han…", 1, 1),  # non-ASCII punctuation separates
        ("hänhon", 0, 0),  # a non-ASCII letter before the match joins it
        ("honä", 0, 0),
        ("Han", 0, 1),
        ("", 0, 0),
    ],
)
def test_word_boundaries_on_raw_bytes(sv_spec, line, female, male):
    c = count_block(sv_spec, (line + "\n").encode())
    assert c.hits[:, SMALL].tolist() == [female, male]


def test_ukrainian_apostrophes_and_quotes(uk_spec):
    lines = [
        "Дар'я прийшла.",  # ASCII apostrophe
        "Дар’я прийшла.",  # right single quotation mark
        "Дарʼя прийшла.",  # modifier letter apostrophe
        "з'її",  # apostrophe between letters: її is inside a word
        "'її' — сказав він.",  # quotes: її is a word; він too
        "«Вона» прийшла до лікарки.",
    ]
    c = count_block(uk_spec, ("\n".join(lines) + "\n").encode())
    # female: 3 x Дарʼя (large), її and Вона (small); male: він (small)
    assert c.hits.tolist() == [[2, 0, 3], [1, 0, 0]]
    assert c.totals[SMALL].tolist() == [1, 0, 1, 4]  # line 6 F; line 5 tie; others none
    assert c.totals[LARGE].tolist() == [4, 0, 1, 1]
    lx = load_lexicon("uk")
    assert c.occupation[lx.occupations.index("лікар")].tolist() == [[1, 0, 0, 0]] * 3
    lem = c.lemma[lx.lemmas.index(("лікар", "лікарка"))]
    assert lem.tolist() == [[1, 0, 0, 0]] * 3


def test_ukrainian_shared_form_votes_for_neither(uk_spec):
    # "Олександра" is a woman's name and the genitive of "Олександр": it is dropped
    c = count_block(uk_spec, "Ми бачили Олександра.\nОлександрою.\nОлександром.\n".encode())
    assert c.hits[:, LARGE].tolist() == [1, 1]
    assert c.totals[LARGE].tolist() == [1, 1, 0, 1]


# --------------------------------------------------------------------------- inputs


def _lines_file(tmp_path: Path, n: int, *, trailing_newline: bool = True, seed: int = 0) -> Path:
    rng = random.Random(seed)
    words = ["hon", "han", "läkare", "polis", "och", "är", "Inga", "lärarna", "x" * 50]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(n)]
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("trailing", [True, False])
def test_byte_ranges_read_every_line_exactly_once(tmp_path, trailing):
    path = _lines_file(tmp_path, 500, trailing_newline=trailing)
    data = path.read_bytes()
    expected = data if trailing else data + b"\n"
    rng = random.Random(1)
    for _ in range(20):
        cuts = sorted({0, len(data), *(rng.randrange(len(data)) for _ in range(rng.randint(1, 9)))})
        block = rng.choice([7, 64, 1000, 1 << 20])
        got = b"".join(
            b for a, z in itertools.pairwise(cuts) for b in read_range(str(path), a, z, block)
        )
        assert got == expected
        pieces = [list(read_range(str(path), a, z, block)) for a, z in itertools.pairwise(cuts)]
        assert all(b.endswith(b"\n") for p in pieces for b in p)


def test_plan_units_cuts_plain_files_and_keeps_streams_whole(tmp_path):
    path = _lines_file(tmp_path, 50)
    gz = tmp_path / "c.txt.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    units = plan_units([path, gz], pieces=4, min_range=10)
    ranges = [u for u in units if u.is_range]
    assert len(ranges) == 4 and ranges[0].start == 0 and ranges[-1].end == path.stat().st_size
    assert all(a.end == b.start for a, b in itertools.pairwise(ranges))
    assert [u.path for u in units if not u.is_range] == [str(gz)]
    parts = [u for u in plan_units([gz], stream_parts=3)]
    assert [(u.part, u.parts) for u in parts] == [(0, 3), (1, 3), (2, 3)]
    blocks = [list(read_unit(u, block_size=64)) for u in parts]
    whole = list(read_stream(str(gz), block_size=64))
    lines = sorted(line for part in blocks for b in part for line in bytes(b).splitlines(True))
    assert lines == sorted(line for b in whole for line in bytes(b).splitlines(keepends=True))
    with pytest.raises(DatasetError, match="no such corpus file"):
        plan_units([tmp_path / "missing.txt"])
    with pytest.raises(DatasetError, match="directory"):
        plan_units([tmp_path])


def test_stream_parts_share_the_text_evenly(tmp_path):
    """Parts of a compressed stream take every N-th *read*, so each scans about 1/N of the text.

    (Taking every N-th yielded block would give one part every large block and the other the
    short lines cut between reads.)
    """
    path = _lines_file(tmp_path, 3000)
    zst = tmp_path / "c.txt.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    for n in (2, 3):
        units = plan_units([zst], stream_parts=n)
        parts = [b"".join(read_unit(u, block_size=4096)) for u in units]
        sizes = [len(p) for p in parts]
        assert sum(sizes) == path.stat().st_size
        assert max(sizes) <= 1.2 * min(sizes), sizes
        lines = sorted(line for p in parts for line in p.splitlines(keepends=True))
        assert lines == sorted(path.read_bytes().splitlines(keepends=True))


def test_compressed_inputs_stream_the_same_lines(tmp_path):
    path = _lines_file(tmp_path, 3000)
    data = path.read_bytes()
    gz = tmp_path / "c.txt.gz"
    gz.write_bytes(gzip.compress(data))
    zst = tmp_path / "c.txt.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(data))
    for p in (gz, zst, path):
        for size in (7, 1000, 1 << 20):  # blocks shorter than a line, a few lines, everything
            blocks = list(read_stream(str(p), block_size=size))
            assert b"".join(blocks) == data
            assert all(bytes(b).endswith(b"\n") for b in blocks)
            # views of a read stay valid while later reads arrive (nothing is reused)
            assert [bytes(b) for b in blocks] == [bytes(b) for b in read_stream(str(p), size)]
    broken = tmp_path / "broken.txt.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(DatasetError, match=r"broken\.txt\.gz"):
        list(read_stream(str(broken)))
    broken_zst = tmp_path / "broken.conllu.zst"
    broken_zst.write_bytes(b"not zstd either")
    for reader in (read_stream, read_conllu):
        with pytest.raises(DatasetError, match="cannot decompress"):
            list(reader(str(broken_zst)))


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


def test_conllu_text_form_and_lemma_lines(tmp_path, sv_spec):
    path = tmp_path / "c.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    assert (
        b"".join(read_conllu(str(path), "text")) == "Läkaren, hon kom.\nHenne poliserna\n".encode()
    )
    assert (
        b"".join(read_conllu(str(path), "form"))
        == "Läkaren , hon kom .\nHenne poliserna\n".encode()
    )
    assert (
        b"".join(read_conllu(str(path), "lemma"))
        == "läkare , hon komma .\nhenne x polis\n".encode()
    )
    lx = load_lexicon("sv")
    text = scan_corpus(sv_spec, [path], conllu="text")
    lemma = scan_corpus(sv_spec, [path], conllu="lemma")
    assert text.lines == lemma.lines == 2
    assert text.totals[SMALL].tolist() == [2, 0, 0, 0]  # hon; Henne
    assert text.occupation[lx.occupations.index("polis")].tolist() == [[1, 0, 0, 0]] * 3
    assert lemma.occupation[lx.occupations.index("läkare")].tolist() == [[1, 0, 0, 0]] * 3


def test_conllu_errors_name_the_line(tmp_path, sv_spec):
    path = tmp_path / "bad.conllu"
    path.write_text("# text = x\n1\tx\tx\tNOUN\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        scan_corpus(sv_spec, [path])
    assert err.value.row == 2 and err.value.file == str(path)
    with pytest.raises(DatasetError, match="CoNLL-U field"):
        scan_corpus(sv_spec, [path], conllu="upos")


# --------------------------------------------------------------------------- parallel


@pytest.fixture(scope="module")
def mixed_corpus(tmp_path_factory, sv_lexicon_names):
    """Plain, gzip and zstd files whose lines mix every case above, about 1.5 MB in all."""
    tmp = tmp_path_factory.mktemp("corpus")
    lines = SV_TEXT.splitlines()
    rng = random.Random(7)
    body = "\n".join(rng.choice(lines) for _ in range(30000)) + "\n"
    plain = tmp / "a.txt"
    plain.write_text(body, encoding="utf-8")
    gz = tmp / "b.txt.gz"
    gz.write_bytes(gzip.compress(body[: len(body) // 3].encode()))
    zst = tmp / "c.txt.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(body[len(body) // 2 :].encode()))
    return [plain, gz, zst]


def test_counts_add_up_over_pieces(mixed_corpus, sv_names_spec):
    one = scan_corpus(sv_names_spec, mixed_corpus[:1])
    by_line = count_block(sv_names_spec, mixed_corpus[0].read_bytes())
    assert one.equals(by_line)
    # the hand-counted text repeated: totals are the sum over its lines
    assert one.lines == 30000


def test_identical_counts_single_multi_process(mixed_corpus, sv_names_spec):
    single = scan_corpus(sv_names_spec, mixed_corpus, workers=1)
    multi = scan_corpus(
        sv_names_spec, mixed_corpus, workers=2, block_size=50_000, pieces_per_worker=7
    )
    assert single.equals(multi)
    assert single.totals.sum() == single.lines * 3
    occ_only = scan_corpus(
        sv_names_spec, mixed_corpus, workers=2, mode="occupations", block_size=50_000
    )
    assert np.array_equal(single.occupation, occ_only.occupation)


@pytest.mark.parametrize("slot_size", [16, 64, 1000])
@pytest.mark.parametrize("final_newline", [True, False])
def test_slots_of_a_shared_ring_hold_whole_lines(tmp_path, slot_size, final_newline):
    """Decompressing into ring slots gives every line once, in order, whole; lines longer than
    a slot come out as bytes; a last line without a newline gets one."""
    rng = random.Random(slot_size)
    lines = [b"x" * rng.choice([0, 1, 5, 15, 16, 17, 40, 200]) for _ in range(300)]
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    zst = tmp_path / "c.txt.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(data))
    ring = mmap.mmap(-1, 3 * slot_size)
    free, held = [0, 1, 2], []

    def acquire() -> int:
        slot = free.pop()
        held.append(slot)
        return slot

    def release(slot: int) -> None:
        held.remove(slot)
        free.append(slot)

    out, longs = [], 0
    for item in fill_slots(str(zst), ring, slot_size, acquire, release):
        if isinstance(item, bytes):
            longs += 1
            block = item
        else:
            slot, length = item
            assert 0 < length <= slot_size and held == [slot]
            block = ring[slot * slot_size : slot * slot_size + length]
            release(slot)
        assert block.endswith(b"\n")
        out.append(block)
    assert b"".join(out) == (data if data.endswith(b"\n") else data + b"\n")
    assert held == [] and sorted(free) == [0, 1, 2]
    assert (longs > 0) == (slot_size < 400)


def test_a_process_pool_decompresses_each_stream_once(mixed_corpus, sv_names_spec, monkeypatch):
    import winoscope.occupations.scan.process_pool as pool

    opened: list[str] = []
    real = pool.fill_slots

    def counting(path, *args):  # type: ignore[no-untyped-def]
        opened.append(path)
        return real(path, *args)

    monkeypatch.setattr(pool, "fill_slots", counting)
    streams = mixed_corpus[1:]
    multi = scan_corpus(sv_names_spec, streams, workers=2, block_size=20_000)
    assert sorted(opened) == sorted(str(p) for p in streams)
    assert multi.equals(scan_corpus(sv_names_spec, streams, workers=1))


def test_readers_report_every_input_byte(mixed_corpus, tmp_path):
    """Progress is counted in input-file bytes (compressed ones by their compressed size):
    the units of a file report exactly its size, whatever the split."""
    conllu = tmp_path / "s.conllu"
    conllu.write_text(CONLLU * 200, encoding="utf-8")
    conllu_zst = tmp_path / "s.conllu.zst"
    conllu_zst.write_bytes(zstandard.ZstdCompressor().compress(conllu.read_bytes()))
    for path in [*mixed_corpus, conllu, conllu_zst]:
        for pieces, parts in ((1, 1), (5, 3)):
            reported: list[int] = []
            for unit in plan_units([path], pieces=pieces, min_range=1000, stream_parts=parts):
                before = sum(reported)
                for _ in read_unit(unit, block_size=4096, progress=reported.append):
                    pass
                assert sum(reported) - before == unit_input_bytes(unit)
            assert sum(reported) == path.stat().st_size, (path, pieces)
            assert all(n > 0 for n in reported)
            if path.suffix == ".txt":  # plain text is reported block by block, as it is read
                assert len(reported) >= path.stat().st_size // 4096


def test_the_scan_bar_reaches_the_corpus_size(mixed_corpus, sv_names_spec, monkeypatch):
    """Every byte of every file is reported once, by whichever path read it: the process
    itself, the pool's workers (a shared counter), the ring's decompressor, Dask's tasks."""
    import winoscope.occupations.scan.run as run

    bars = []
    real_bar = run._InputBar

    def spy(tracker):  # type: ignore[no-untyped-def]
        bars.append(real_bar(tracker))
        return bars[-1]

    monkeypatch.setattr(run, "_InputBar", spy)
    size = sum(p.stat().st_size for p in mixed_corpus)
    big = mixed_corpus[0].stat().st_size
    for workers, paths in ((1, mixed_corpus), (2, mixed_corpus), (2, mixed_corpus[:1])):
        scan_corpus(sv_names_spec, paths, workers=workers, block_size=20_000, pieces_per_worker=3)
        bar = bars.pop()
        assert bar.seen == (size if len(paths) == 3 else big)
        assert bar.tracker.done == -(-bar.seen // (1 << 20))


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's mallopt")
def test_dask_workers_malloc_setting_is_lifted_for_a_scan_and_put_back():
    """A worker whose nanny set MALLOC_TRIM_THRESHOLD_ gets larger thresholds for the scan and
    its own back after; a process without the variable is left alone."""
    code = (
        "from winoscope.occupations.scan.dask_cluster import worker_malloc_for_scanning as f;"
        "print(f(True), f(False))"
    )
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_TRIM_THRESHOLD_"}
    for extra, expected in (
        ({"MALLOC_TRIM_THRESHOLD_": "65536"}, "True True"),
        ({}, "False False"),
    ):
        out = subprocess.run(
            [sys.executable, "-c", code], env={**env, **extra}, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == expected


def test_blocks_stay_small_whatever_the_file_size(tmp_path):
    path = _lines_file(tmp_path, 20000)
    longest = max(len(line) for line in path.read_bytes().split(b"\n")) + 1
    sizes = [len(b) for b in read_range(str(path), 0, path.stat().st_size, 4096)]
    assert len(sizes) > 50
    assert max(sizes) <= 4096 + longest


def test_dask_on_a_running_scheduler(mixed_corpus, sv_names_spec):
    distributed = pytest.importorskip("distributed")
    single = scan_corpus(sv_names_spec, mixed_corpus, workers=1)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        remote = scan_corpus(
            sv_names_spec,
            mixed_corpus,
            workers=2,
            dask=cluster.scheduler_address,
            block_size=50_000,
        )
    assert single.equals(remote)


def test_identical_counts_with_dask_local(mixed_corpus, sv_names_spec):
    pytest.importorskip("distributed")
    single = scan_corpus(sv_names_spec, mixed_corpus, workers=1)
    dask = scan_corpus(sv_names_spec, mixed_corpus, workers=2, dask="local", block_size=50_000)
    assert single.equals(dask)


# --------------------------------------------------------------------------- real corpora

_TOKEN = re.compile(r"\w+(?:['’ʼ]\w+)*")


def reference_counts(
    lexicon, sentences: list[str], max_set: int
) -> tuple[list[int], dict[str, list[int]]]:
    """Independent count with a Python tokeniser and dictionary lookups (sets up to medium, whose
    forms are single words): classes per set and per occupation for set ``max_set``."""
    col = lexicon.forms[lexicon.forms["kind"] == "collocate"]
    col = col[col["set"].isin(["small", "medium"][: max_set + 1])]
    gender_of = {}
    for form, gender in zip(col["form"], col["gender"], strict=True):
        for v in (form.lower(), form[:1].upper() + form[1:].lower(), form.upper()):
            gender_of[v] = gender
    occ = lexicon.forms[lexicon.forms["kind"] == "occupation"]
    occ_of = {}
    for form, key in zip(occ["form"], occ["key"], strict=True):
        for v in (form.lower(), form[:1].upper() + form[1:].lower(), form.upper()):
            occ_of[v] = key
    totals = [0, 0, 0, 0]
    per_occ: dict[str, list[int]] = {}
    for s in sentences:
        tokens = [t.replace("'", "ʼ").replace("’", "ʼ") for t in _TOKEN.findall(s)]
        f = sum(gender_of.get(t) == "female" for t in tokens)
        m = sum(gender_of.get(t) == "male" for t in tokens)
        cls = F if f > m else M if m > f else T if f else N
        totals[cls] += 1
        for key in {occ_of[t] for t in tokens if t in occ_of}:
            per_occ.setdefault(key, [0, 0, 0, 0])[cls] += 1
    return totals, per_occ


@pytest.mark.parametrize(("lang", "treebank"), [("sv", "sv_talbanken"), ("uk", "uk_iu")])
def test_ud_treebanks_match_an_independent_count(shared_data, lang, treebank):
    files = sorted((shared_data / "corpora").glob(f"*{treebank}*.conllu"))
    assert len(files) == 2
    lexicon = load_lexicon(lang)
    spec = build_spec(lexicon)
    counts = scan_corpus(spec, files)
    sentences = [
        b.decode() for f in files for block in read_conllu(str(f)) for b in block.splitlines()
    ]
    assert counts.lines == len(sentences) == {"sv": 1723, "uk": 1571}[lang]
    for k in (SMALL, MEDIUM):
        totals, per_occ = reference_counts(lexicon, sentences, k)
        if lang == "sv":
            # "Hans" inside a sentence is a name, not the pronoun: the reference cannot tell
            hans = [s for s in sentences if re.search(r"\S.*\bHans\b", s)]
            assert not hans
        assert counts.totals[k].tolist() == totals
        for key, row in per_occ.items():
            assert counts.occupation[lexicon.occupations.index(key), k].tolist() == row, key
        seen = {lexicon.occupations[i] for i in np.flatnonzero(counts.occupation[:, k].sum(axis=1))}
        assert seen == set(per_occ)
    assert counts.totals[SMALL, F] + counts.totals[SMALL, M] > 70


def test_word_and_name_of_different_genders_told_apart_by_position(tmp_path):
    # "son" is a male word; suppose a woman's name Son: lower case and sentence-initial
    # capitals are the word, a capital inside a sentence is the name
    names = tmp_path / "names.csv"
    names.write_text("name,gender,persons\nSon,female,5000\n", encoding="utf-8")
    lexicon = load_lexicon("sv", names=names)
    assert "son" in set(lexicon.dropped["form"].str.lower())  # reported ...
    spec = build_spec(lexicon)
    assert not spec.conflicts
    c = count_block(spec, b"Son kom hem.\nHans son kom.\nSedan kom Son.\nSONEN kom.\n")
    # female: Son (line 3, large); male: Son (line 1), son (line 2), SONEN (line 4) medium,
    # and Hans (line 2, the pronoun at the start)
    assert c.hits.tolist() == [[0, 0, 1], [1, 3, 0]]
    assert c.totals[LARGE].tolist() == [1, 3, 0, 0]
