"""Corpus inputs: byte ranges read every line once, streams (gzip, zstd) and their parts,
CoNLL-U sentences, the shared ring's slots, and progress in input bytes."""

from __future__ import annotations

import gzip
import itertools
import mmap
import random

import pytest
import zstandard
from scan_corpora import CONLLU, SMALL, lines_file, write_mixed_corpus

from winoscope.errors import DatasetError
from winoscope.occupations.lexicons import load_lexicon
from winoscope.occupations.scan import (
    build_spec,
    plan_units,
    read_conllu,
    read_range,
    read_stream,
    read_unit,
    scan_corpus,
)
from winoscope.occupations.scan.inputs import unit_input_bytes
from winoscope.occupations.scan.streams import fill_slots


@pytest.fixture(scope="module")
def sv_spec():
    return build_spec(load_lexicon("sv"))


@pytest.fixture(scope="module")
def mixed_corpus(tmp_path_factory):
    return write_mixed_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.mark.parametrize("trailing", [True, False])
def test_byte_ranges_read_every_line_exactly_once(tmp_path, trailing):
    path = lines_file(tmp_path, 500, trailing_newline=trailing)
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
    path = lines_file(tmp_path, 50)
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
    path = lines_file(tmp_path, 3000)
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
    path = lines_file(tmp_path, 3000)
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


def test_blocks_stay_small_whatever_the_file_size(tmp_path):
    path = lines_file(tmp_path, 20000)
    longest = max(len(line) for line in path.read_bytes().split(b"\n")) + 1
    sizes = [len(b) for b in read_range(str(path), 0, path.stat().st_size, 4096)]
    assert len(sizes) > 50
    assert max(sizes) <= 4096 + longest
