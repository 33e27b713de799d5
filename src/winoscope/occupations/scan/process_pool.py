"""A scan over a pool of forked processes, sharing one decompression of each stream.

Byte ranges of plain files and whole CoNLL-U files are read by the worker that counts them; a
compressed text file is decompressed once, by this process, into slots of shared memory that
the workers count in place. Workers add the input bytes they read to a shared counter, which a
thread of this process passes on to the progress bar.
"""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing as mp
import threading
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from .counts import ScanCounts
from .inputs import Unit, is_conllu
from .serial import counter, scan_unit
from .spec import ScanSpec
from .streams import Buffer, Progress, compression, fill_slots

_WORKER_SPEC: ScanSpec | None = None
_WORKER_READ: Any = None  # a shared counter of the input bytes the workers have read


def _init_worker(spec: ScanSpec, read: Any = None) -> None:
    global _WORKER_SPEC, _WORKER_READ
    _WORKER_SPEC, _WORKER_READ = spec, read


def _add_read(nbytes: int) -> None:
    with _WORKER_READ.get_lock():
        _WORKER_READ.value += nbytes


def _pool_unit(unit: Unit, mode: str, block_size: int) -> ScanCounts:
    assert _WORKER_SPEC is not None
    progress = _add_read if _WORKER_READ is not None else None
    return scan_unit(_WORKER_SPEC, unit, mode, block_size, progress)


@contextlib.contextmanager
def _watching(read: Any, bar: Progress, every: float = 0.25) -> Iterator[None]:
    """Pass the workers' shared byte count on to the bar, a few times a second."""
    stop = threading.Event()
    seen = 0

    def move() -> None:
        nonlocal seen
        now = read.value
        if now > seen:
            bar(now - seen)
            seen = now

    def watch() -> None:
        while not stop.wait(every):
            move()

    thread = threading.Thread(target=watch, name="winoscope-scan-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        move()


def _context() -> mp.context.BaseContext:
    return mp.get_context("fork" if can_fork() else "spawn")


def scan_in_pool(
    spec: ScanSpec, units: list[Unit], workers: int, mode: str, block_size: int, bar: Progress
) -> ScanCounts:
    """Counts of ``units`` over ``workers`` processes (forked where the platform can)."""
    total = spec.new_counts(full=mode == "full")
    shared = [u for u in units if _shares_a_ring(u)]
    others = [u for u in units if not _shares_a_ring(u)]
    ring = _make_ring(workers, block_size) if shared else None
    read = _context().Value("q", 0)  # workers add the bytes they read, per block
    try:
        with (
            ProcessPoolExecutor(
                workers, mp_context=_context(), initializer=_init_worker, initargs=(spec, read)
            ) as pool,
            _watching(read, bar),
        ):
            futures = [pool.submit(_pool_unit, u, mode, block_size) for u in others]
            if ring is not None:
                _feed_ring(pool, ring, shared, mode, block_size, total, bar)
            for f in futures:
                total.add(f.result())
    finally:
        _set_ring(None)
        if ring is not None:
            ring.close()
    return total


# --------------------------------------------------------------- compressed streams, shared

# One process decompresses each compressed text stream into a ring of slots in an anonymous
# shared mapping, which the forked workers inherit; a worker counts a slot in place and hands
# it back. The text is decompressed once, whatever the number of workers (each worker
# decompressing the whole stream and counting its share would spend ``workers`` times the
# decompression, more than the scan itself at 8 cores), and it is never copied between
# processes.

_RING: mmap.mmap | None = None
_SLOT = 0


def _set_ring(ring: mmap.mmap | None, slot_size: int = 0) -> None:
    global _RING, _SLOT
    _RING, _SLOT = ring, slot_size


def _shares_a_ring(unit: Unit) -> bool:
    return (
        unit.end is None
        and unit.parts == 1
        and compression(unit.path) is not None
        and not is_conllu(unit.path)
        and can_fork()
    )


def can_fork() -> bool:
    return "fork" in mp.get_all_start_methods()


def _make_ring(workers: int, block_size: int) -> mmap.mmap:
    """Slots for every worker plus two being filled, set before the pool forks its workers."""
    ring = mmap.mmap(-1, (workers + 2) * block_size)
    _set_ring(ring, block_size)
    return ring


def _count_slot(slot: int, length: int, mode: str) -> ScanCounts:
    assert _RING is not None
    return _count_block(memoryview(_RING)[slot * _SLOT : slot * _SLOT + length], mode)


def _count_block(block: Buffer, mode: str) -> ScanCounts:
    assert _WORKER_SPEC is not None
    return counter(mode)(_WORKER_SPEC, block, _WORKER_SPEC.new_counts(full=mode == "full"))


def _feed_ring(
    pool: ProcessPoolExecutor,
    ring: mmap.mmap,
    units: list[Unit],
    mode: str,
    block_size: int,
    total: ScanCounts,
    bar: Progress,
) -> None:
    n_slots = len(ring) // block_size
    free = list(range(n_slots))
    busy: dict[Future[ScanCounts], int] = {}
    loose: list[Future[ScanCounts]] = []

    def settle(done: set[Future[ScanCounts]]) -> None:
        for f in done:
            total.add(f.result())
            free.append(busy.pop(f))

    def acquire() -> int:
        while not free:
            done, _ = wait(list(busy), return_when=FIRST_COMPLETED)
            settle(done)
        return free.pop()

    for unit in units:
        for item in fill_slots(unit.path, ring, block_size, acquire, free.append, bar):
            if isinstance(item, bytes):
                loose.append(pool.submit(_count_block, item, mode))
            else:
                slot, length = item
                busy[pool.submit(_count_slot, slot, length, mode)] = slot
    settle(set(busy))
    for f in loose:
        total.add(f.result())
