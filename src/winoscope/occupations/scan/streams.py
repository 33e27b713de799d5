"""Decompressed corpus files as streams of blocks of whole lines.

Memory stays constant in corpus size: every reader yields blocks of whole lines of about
``block_size`` bytes (one sentence per line) and keeps nothing else. ``.gz`` and
``.zst``/``.zstd`` files are decompressed as a stream (plain files pass straight through);
:func:`read_stream` hands out blocks, :func:`fill_slots` decompresses into the slots of a
shared ring that forked workers count in place.
"""

from __future__ import annotations

import gzip
import io
import mmap
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, cast

from ...errors import DatasetError
from ...extras import require

BLOCK_SIZE = 8 << 20
NEWLINE = 0x0A

Progress = Callable[[int], None]  # told the bytes of the input file consumed since last time
Buffer = bytes | memoryview  # a block of whole lines; readers hand out views to avoid copies


def compression(path: str | Path) -> str | None:
    name = str(path).lower()
    if name.endswith(".gz"):
        return "gz"
    if name.endswith((".zst", ".zstd")):
        return "zst"
    return None


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


def decompress_errors() -> tuple[type[Exception], ...]:
    try:
        import zstandard
    except ModuleNotFoundError:  # no .zst file can have been opened without it
        return (OSError, EOFError, ValueError)
    return (OSError, EOFError, ValueError, zstandard.ZstdError)


def open_blocks(path: str) -> tuple[io.BufferedIOBase, BinaryIO]:
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


class Consumed:
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
    errors = decompress_errors()
    fh, raw = open_blocks(path)
    consumed = Consumed(raw, progress if part == 0 else None)
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
    errors = decompress_errors()

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

    fh, raw = open_blocks(path)
    consumed = Consumed(raw, progress)
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
