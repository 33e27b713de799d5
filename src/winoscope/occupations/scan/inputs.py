"""Corpus inputs as streams of line blocks, and plain files as byte ranges.

Memory stays constant in corpus size: every reader yields blocks of whole lines of about
``block_size`` bytes (one sentence per line) and keeps nothing else.

* plain text (any other suffix): split into byte ranges; a range owns every line whose first
  byte lies inside it, so ranges can be read independently (by processes or Dask workers) and
  together read every line exactly once;
* ``.gz`` and ``.zst``/``.zstd``: decompressed as a stream (one unit of work per file);
* ``.conllu`` (also ``.conllu.gz``/``.conllu.zst``): one line per sentence, made of its
  ``# text =`` comment (``text``), its word forms (``form``) or its lemmas (``lemma``).
"""

from __future__ import annotations

import gzip
import io
import mmap
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast

from ...errors import DatasetError
from ...extras import require

BLOCK_SIZE = 8 << 20
NEWLINE = 0x0A

Progress = Callable[[int], None]  # told the bytes of the input file consumed since last time
CONLLU_FIELDS = ("text", "form", "lemma")


@dataclass(frozen=True)
class Unit:
    """One piece of work: a byte range of a plain file, or a stream (``end`` is None).

    A compressed text stream can be shared by ``parts`` units: each decompresses the whole
    file (cheap next to scanning) and counts only the blocks ``part``, ``part + parts``, ...
    Block boundaries depend only on the file and the block size, so the parts together count
    every line exactly once.
    """

    path: str
    start: int = 0
    end: int | None = None
    conllu: str = "text"
    part: int = 0
    parts: int = 1

    @property
    def is_range(self) -> bool:
        return self.end is not None


def compression(path: str | Path) -> str | None:
    name = str(path).lower()
    if name.endswith(".gz"):
        return "gz"
    if name.endswith((".zst", ".zstd")):
        return "zst"
    return None


def is_conllu(path: str | Path) -> bool:
    name = str(path).lower()
    for suffix in (".gz", ".zst", ".zstd"):
        name = name.removesuffix(suffix)
    return name.endswith(".conllu")


def plan_units(
    paths: list[str | Path],
    *,
    pieces: int = 1,
    min_range: int = 1 << 20,
    conllu: str = "text",
    stream_parts: int = 1,
) -> list[Unit]:
    """Units of work for ``paths``: plain files cut into about ``pieces`` byte ranges each
    (none smaller than ``min_range``), compressed text files in ``stream_parts`` interleaved
    parts, CoNLL-U files whole (parsing them is the costly part, done once)."""
    if conllu not in CONLLU_FIELDS:
        raise DatasetError(
            f"CoNLL-U field must be one of {', '.join(CONLLU_FIELDS)}, got {conllu!r}"
        )
    units: list[Unit] = []
    for raw in paths:
        path = str(raw)
        if not os.path.exists(path):
            raise DatasetError("no such corpus file", file=path)
        if os.path.isdir(path):
            raise DatasetError("expected a corpus file, got a directory", file=path)
        if is_conllu(path):
            units.append(Unit(path, conllu=conllu))
            continue
        if compression(path):
            units += [Unit(path, part=i, parts=stream_parts) for i in range(stream_parts)]
            continue
        size = os.path.getsize(path)
        n = max(1, min(pieces, size // min_range))
        bounds = [size * i // n for i in range(n + 1)]
        units += [Unit(path, bounds[i], bounds[i + 1]) for i in range(n)]
    return units


def read_range(
    path: str,
    start: int,
    end: int,
    block_size: int = BLOCK_SIZE,
    progress: Progress | None = None,
) -> Iterator[bytes]:
    """Blocks of the lines whose first byte lies in ``[start, end)``; each ends with a newline."""
    if progress is not None:
        blocks = read_range(path, start, end, block_size)
        done = 0
        for block in blocks:
            yield block
            step = min(len(block), end - start - done)
            done += step
            progress(step)
        if done < end - start:
            progress(end - start - done)
        return
    with open(path, "rb") as fh:
        if start > 0:
            fh.seek(start - 1)
            fh.readline()  # the line holding byte start-1 belongs to the previous range
        pos = fh.tell()
        while pos < end:
            block = fh.read(block_size)
            if not block:
                return
            limit = end - pos  # lines starting at offsets < limit are ours
            if len(block) >= limit:
                cut = block.find(b"\n", limit - 1)
                while cut == -1:
                    more = fh.readline()
                    if not more:
                        block += b"\n"
                        cut = len(block) - 1
                        break
                    block += more
                    cut = block.find(b"\n", limit - 1)
                yield block[: cut + 1]
                return
            if not block.endswith(b"\n"):
                block += fh.readline()
                if not block.endswith(b"\n"):
                    block += b"\n"
                    yield block
                    return
            pos += len(block)
            yield block


def open_stream(path: str) -> BinaryIO:
    """A binary stream of the decompressed file."""
    kind = compression(path)
    try:
        if kind == "gz":
            return gzip.open(path, "rb")  # type: ignore[return-value]
        if kind == "zst":
            zstandard = require("zstandard", "reading a .zst corpus file")
            fh = open(path, "rb")  # noqa: SIM115  (closed by the reader: closefd=True)
            reader = zstandard.ZstdDecompressor().stream_reader(fh, read_size=1 << 20, closefd=True)
            return io.BufferedReader(reader, buffer_size=1 << 20)  # type: ignore[arg-type]
        return open(path, "rb")
    except OSError as exc:
        raise DatasetError(f"cannot open: {exc}", file=path) from None


def _decompress_errors() -> tuple[type[Exception], ...]:
    try:
        import zstandard
    except ModuleNotFoundError:  # no .zst file can have been opened without it
        return (OSError, EOFError, ValueError)
    return (OSError, EOFError, ValueError, zstandard.ZstdError)


def _open_blocks(path: str) -> tuple[io.BufferedIOBase, BinaryIO]:
    """The decompressed stream and the file under it (whose position tells the progress).

    Unlike :func:`open_stream`, zstd comes without a Python buffer on top: large reads come
    straight from the decompressor, one copy fewer (as fast as ``zstd -dc``)."""
    try:
        raw = open(path, "rb")  # noqa: SIM115  (closed with the stream over it)
    except OSError as exc:
        raise DatasetError(f"cannot open: {exc}", file=path) from None
    kind = compression(path)
    if kind == "zst":
        zstandard = require("zstandard", "reading a .zst corpus file")
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_size=4 << 20, closefd=True)
        return cast(io.BufferedIOBase, reader), raw
    if kind == "gz":
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw
    return cast(io.BufferedIOBase, raw), raw


class _Consumed:
    """Reports how far into the input file a reader has got, as deltas."""

    def __init__(self, raw: BinaryIO, progress: Progress | None) -> None:
        self.raw, self.progress, self.last = raw, progress, 0
        self.size = os.fstat(raw.fileno()).st_size if progress is not None else 0

    def __call__(self) -> None:
        if self.progress is None:
            return
        try:
            pos = os.lseek(self.raw.fileno(), 0, os.SEEK_CUR)
        except (OSError, ValueError):
            return
        if pos > self.last:
            self.progress(pos - self.last)
            self.last = pos

    def finish(self) -> None:
        """The reader is done: the rest of the file counts as read."""
        if self.progress is not None and self.size > self.last:
            self.progress(self.size - self.last)
            self.last = self.size


def read_stream(
    path: str,
    block_size: int = BLOCK_SIZE,
    part: int = 0,
    parts: int = 1,
    progress: Progress | None = None,
) -> Iterator[bytes | memoryview]:
    """Blocks of whole lines of a (possibly compressed) text file.

    No block is copied: the line a read starts in the middle of is completed with the
    carried-over start of that line and given as a (short) block of its own, and the rest is
    given as a ``memoryview`` of the read, cut at its last newline. ``rest + block`` or a
    ``bytes`` slice would copy every block once more, which costs as much as a third of the
    decompression itself.

    With ``parts > 1`` only the lines of every ``parts``-th read (starting at read ``part``)
    are yielded; a line cut between two reads belongs to the later one. The parts together give
    every line exactly once, and each gets the same share of the text (counting yielded blocks
    instead would hand one part all the large blocks and the other the short cut lines).
    """
    errors = _decompress_errors()
    fh, raw = _open_blocks(path)
    consumed = _Consumed(raw, progress if part == 0 else None)
    with fh, raw:
        carry = b""  # the start of a line that a previous block cut
        k = -1  # index of the current read
        while True:
            try:
                block = fh.read(block_size)
            except errors as exc:
                raise DatasetError(f"cannot decompress: {exc}", file=path) from None
            consumed()
            if not block:
                break
            k += 1
            first = block.find(b"\n")
            if first == -1:
                carry += block
                continue
            last = block.rfind(b"\n")
            if k % parts == part:
                whole = memoryview(block)  # slices of it share the read's memory
                if carry:
                    yield carry + block[: first + 1]
                    if last > first:
                        yield whole[first + 1 : last + 1]
                elif last == len(block) - 1:
                    yield block
                else:
                    yield whole[: last + 1]
            carry = block[last + 1 :]
        if carry and (k + 1) % parts == part:
            yield carry + b"\n"
        consumed.finish()


def fill_slots(
    path: str,
    ring: mmap.mmap,
    slot_size: int,
    acquire: Callable[[], int],
    release: Callable[[int], None],
    progress: Progress | None = None,
) -> Iterator[tuple[int, int] | bytes]:
    """Decompress ``path`` straight into slots of a shared ``ring`` of whole lines.

    For every filled slot (taken with ``acquire``) yields ``(slot, length)``: its first
    ``length`` bytes are whole lines, each ending with a newline, and the slot belongs to the
    caller until it calls ``release``. A line longer than a slot is yielded as ``bytes``. The
    text is decompressed once and copied nowhere else: the workers that count a slot read it
    in place (the ring is an anonymous shared mapping they inherited by fork).
    """
    errors = _decompress_errors()

    def fill(view: memoryview) -> int:
        """Bytes written into ``view``; fewer than it holds only at the end of the stream."""
        n = 0
        while n < len(view):
            try:
                k = fh.readinto(view[n:])
            except errors as exc:
                raise DatasetError(f"cannot decompress: {exc}", file=path) from None
            if not k:
                break
            n += k
        consumed()
        return n

    fh, raw = _open_blocks(path)
    consumed = _Consumed(raw, progress)
    with fh, raw:
        carry = b""  # the start of a line the previous slot cut
        while True:
            if len(carry) >= slot_size // 2:  # a very long line: finish it outside the ring
                chunk = bytearray(slot_size)
                n = fill(memoryview(chunk))
                text = carry + bytes(chunk[:n])
                cut = text.rfind(b"\n")
                if cut == -1:  # the line goes on, or the stream ends inside it
                    carry = text
                    if n == 0:
                        yield carry + b"\n"
                        break
                    continue
                yield text[: cut + 1]
                carry = text[cut + 1 :]
                continue
            slot = acquire()
            base = slot * slot_size
            view = memoryview(ring)[base : base + slot_size]
            c = len(carry)
            view[:c] = carry
            n = fill(view[c:])
            total = c + n
            ended = n < slot_size - c
            if ended and total and view[total - 1] != NEWLINE:
                view[total] = NEWLINE  # a last line without its newline
                total += 1
            view.release()
            if not total:
                release(slot)
                break
            last = ring.rfind(b"\n", base, base + total)
            if last == -1:  # no line ends in this slot yet
                carry = ring[base : base + total]
                release(slot)
                continue
            length = last - base + 1
            carry = ring[base + length : base + total]
            yield slot, length
            if ended:
                break
        consumed.finish()


def read_conllu(
    path: str,
    field: str = "text",
    block_size: int = BLOCK_SIZE,
    progress: Progress | None = None,
) -> Iterator[bytes]:
    """Blocks of sentences of a CoNLL-U file, one sentence per line.

    ``text`` uses the ``# text =`` comment (the word forms joined by spaces when it is
    missing), ``form`` the word forms and ``lemma`` the lemmas, joined by spaces. Multiword
    tokens (``1-2``) give their surface form to ``text``/``form``; their words give lemmas.
    """
    out: list[bytes] = []
    size = 0
    text: str | None = None
    forms: list[str] = []
    lemmas: list[str] = []
    skip_until = 0
    line_no = 0

    def sentence() -> bytes:
        if field == "lemma":
            s = " ".join(lemmas)
        elif field == "text" and text is not None:
            s = text
        else:
            s = " ".join(forms)
        return s.replace("\n", " ").encode("utf-8") + b"\n"

    fh, raw = _open_blocks(path)
    if compression(path) == "zst":
        fh = io.BufferedReader(cast(Any, fh), buffer_size=1 << 20)
    consumed = _Consumed(raw, progress)
    with fh, raw:
        stream = io.TextIOWrapper(cast(Any, fh), encoding="utf-8", errors="strict", newline="\n")
        try:
            for line in stream:
                line_no += 1
                line = line.rstrip("\n").rstrip("\r")
                if not line:
                    if forms or lemmas or text is not None:
                        out.append(sentence())
                        size += len(out[-1])
                    text, forms, lemmas, skip_until = None, [], [], 0
                    if size >= block_size:
                        yield b"".join(out)
                        out, size = [], 0
                        consumed()
                    continue
                if line.startswith("#"):
                    if line.startswith("# text =") or line.startswith("# text="):
                        text = line.split("=", 1)[1].strip()
                    continue
                cols = line.split("\t")
                if len(cols) != 10:
                    raise DatasetError(
                        f"a CoNLL-U word line has 10 tab-separated columns, found {len(cols)}",
                        file=path, row=line_no, field="ID",
                    )  # fmt: skip
                tid = cols[0]
                if "." in tid:  # empty node
                    continue
                if "-" in tid:
                    first, last = tid.split("-", 1)
                    if not (first.isdigit() and last.isdigit()):
                        raise DatasetError(
                            f"bad token range {tid!r}", file=path, row=line_no, field="ID"
                        )
                    forms.append(cols[1])
                    skip_until = int(last)
                    continue
                if not tid.isdigit():
                    raise DatasetError(f"bad token id {tid!r}", file=path, row=line_no, field="ID")
                if int(tid) > skip_until:
                    forms.append(cols[1])
                lemmas.append(cols[2])
        except UnicodeDecodeError as exc:
            raise DatasetError(f"not UTF-8: {exc.reason}", file=path, row=line_no + 1) from None
        except _decompress_errors() as exc:
            raise DatasetError(f"cannot decompress: {exc}", file=path) from None
    if forms or lemmas or text is not None:
        out.append(sentence())
    if out:
        yield b"".join(out)
    consumed.finish()


def read_unit(
    unit: Unit, block_size: int = BLOCK_SIZE, progress: Progress | None = None
) -> Iterator[bytes | memoryview]:
    """The blocks of one unit; ``progress`` hears of the input bytes as they are consumed
    (all of a unit's share by its end, so the parts of one file add up to its size)."""
    if unit.end is not None:
        return read_range(unit.path, unit.start, unit.end, block_size, progress)
    if is_conllu(unit.path):
        return read_conllu(unit.path, unit.conllu, block_size, progress)
    return read_stream(unit.path, block_size, unit.part, unit.parts, progress)


def unit_input_bytes(unit: Unit) -> int:
    """The input-file bytes a unit accounts for in progress (a stream's first part has all)."""
    if unit.end is not None:
        return unit.end - unit.start
    return os.path.getsize(unit.path) if unit.part == 0 else 0
