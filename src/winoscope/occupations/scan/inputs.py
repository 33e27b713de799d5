"""Corpus inputs as units of work, and plain files as byte ranges.

Every reader yields blocks of whole lines of about ``block_size`` bytes (one sentence per
line) and keeps nothing else, so memory stays constant in corpus size:

* plain text (any other suffix): split into byte ranges; a range owns every line whose first
  byte lies inside it, so ranges can be read independently (by processes or Dask workers) and
  together read every line exactly once;
* ``.gz`` and ``.zst``/``.zstd``: decompressed as a stream (one unit of work per file, or
  interleaved parts of it; see :mod:`.streams`);
* ``.conllu`` (also ``.conllu.gz``/``.conllu.zst``): one line per sentence (see
  :mod:`.conllu`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ...errors import DatasetError
from .conllu import CONLLU_FIELDS, read_conllu
from .streams import BLOCK_SIZE, Progress, compression, read_stream


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
