"""Counting one unit of work in this process: what every way of running a scan calls.

A single-process scan calls :func:`scan_unit` for its units one after another; pool workers
and Dask tasks call it for the units they are given. Partial counts are summed by the caller.
"""

from __future__ import annotations

from collections.abc import Callable

from .counts import ScanCounts
from .inputs import Unit, read_unit
from .matcher import count_block, count_block_occupations
from .spec import ScanSpec
from .streams import BLOCK_SIZE, Buffer, Progress

MODES = ("full", "occupations")


def counter(mode: str) -> Callable[[ScanSpec, Buffer, ScanCounts | None], ScanCounts]:
    if mode not in MODES:
        raise ValueError(f"scan mode must be one of {MODES}, got {mode!r}")
    return count_block if mode == "full" else count_block_occupations


def scan_unit(
    spec: ScanSpec,
    unit: Unit,
    mode: str = "full",
    block_size: int = BLOCK_SIZE,
    progress: Progress | None = None,
) -> ScanCounts:
    """Counts of one unit of work (runs in any process or Dask worker)."""
    count = counter(mode)
    counts = spec.new_counts(full=mode == "full")
    for block in read_unit(unit, block_size, progress):
        count(spec, block, counts)
    return counts
