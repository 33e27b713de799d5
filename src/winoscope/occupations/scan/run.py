"""Run a scan in one process, over every core, or on a Dask cluster, with identical counts.

All three share one unit of work (:class:`~.inputs.Unit`: a byte range of a plain file or a
whole compressed/CoNLL-U file) and one counting function; partial counts are summed, so the
result never depends on how the corpus was split or in which order pieces finished.

* ``workers=1``: units one after another in this process;
* ``workers=N``: a pool of N forked processes: byte ranges of plain files and whole CoNLL-U
  files are read by the worker that counts them; a compressed text file is decompressed once,
  by this process, into slots of shared memory that the workers count in place;
* ``dask="local"`` or a scheduler address: one Dask task per unit (a ``LocalCluster`` with
  ``workers`` single-threaded processes, forked where the platform can, for ``local``); a
  compressed file is read by as many tasks as workers, each decompressing the whole stream
  and counting every N-th read of it (nothing to ship between machines). Platforms without
  ``fork`` do the same in the process pool.

Paths are made absolute before any unit is planned, so a worker started in another directory
(or on another machine with the same shared file system) opens the same files. A worker that
cannot read a file reports it back instead of raising; the scan then stops with one
:class:`~winoscope.errors.DatasetError` naming the file, the worker and the reason.
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from ...errors import DatasetError
from ...progress import Tracker, track
from .counts import ScanCounts
from .inputs import (
    BLOCK_SIZE,
    Progress,
    Unit,
    compression,
    fill_slots,
    is_conllu,
    plan_units,
    read_unit,
    unit_input_bytes,
)
from .matcher import Buffer, ScanSpec, count_block, count_block_occupations

MODES = ("full", "occupations")
MB = 1 << 20


def _counter(mode: str) -> Callable[[ScanSpec, Buffer, ScanCounts | None], ScanCounts]:
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
    count = _counter(mode)
    counts = spec.new_counts(full=mode == "full")
    for block in read_unit(unit, block_size, progress):
        count(spec, block, counts)
    return counts


class _InputBar:
    """A progress bar over the corpus files' bytes, shown in MB; safe to feed from the
    executor's callback thread and the main thread at once."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker, self.pending, self.lock = tracker, 0, threading.Lock()
        self.seen = 0  # bytes reported in all

    def __call__(self, nbytes: int) -> None:
        with self.lock:
            self.seen += nbytes
            self.pending += nbytes
            mb, self.pending = divmod(self.pending, MB)
            if mb:
                self.tracker.advance(mb)


# --------------------------------------------------------------------------- process pool

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
def _watching(read: Any, bar: _InputBar, every: float = 0.25) -> Iterator[None]:
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
    return mp.get_context("fork" if _can_fork() else "spawn")


def _scan_pool(
    spec: ScanSpec, units: list[Unit], workers: int, mode: str, block_size: int, bar: _InputBar
) -> ScanCounts:
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
        and _can_fork()
    )


def _can_fork() -> bool:
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
    return _counter(mode)(_WORKER_SPEC, block, _WORKER_SPEC.new_counts(full=mode == "full"))


def _feed_ring(
    pool: ProcessPoolExecutor,
    ring: mmap.mmap,
    units: list[Unit],
    mode: str,
    block_size: int,
    total: ScanCounts,
    bar: _InputBar,
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


# --------------------------------------------------------------------------- dask


@dataclass(frozen=True)
class ReadFailure:
    """What a Dask worker sends back when it cannot read a unit's file."""

    path: str
    worker: str
    reason: str


def dask_unit(
    spec: ScanSpec, unit: Unit, mode: str = "full", block_size: int = BLOCK_SIZE
) -> ScanCounts | ReadFailure:
    """:func:`scan_unit` on a Dask worker; an unreadable file comes back as a ReadFailure
    (a plain value, so no worker traceback travels to the client)."""
    try:
        return scan_unit(spec, unit, mode, block_size)
    except (OSError, EOFError) as exc:
        import socket

        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return ReadFailure(unit.path, socket.gethostname(), reason or type(exc).__name__)


def _scan_dask(
    spec: ScanSpec,
    units: list[Unit],
    address: str,
    workers: int,
    mode: str,
    block_size: int,
    bar: _InputBar,
) -> ScanCounts:
    import dask
    from distributed import Client, LocalCluster

    cluster = None
    if address == "local":
        # Forked workers start with this process' modules already imported; spawned ones
        # would import the whole package again (seconds per worker).
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        with dask.config.set({"distributed.worker.multiprocessing-method": method}):
            cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
        client = Client(cluster)
    else:
        client = Client(address)
    tuned = False
    try:
        tuned = any(client.run(worker_malloc_for_scanning, True).values())
        [spec_future] = client.scatter([spec], broadcast=True)
        futures = client.map(
            dask_unit,
            [spec_future] * len(units),
            units,
            mode=mode,
            block_size=block_size,
            pure=False,
        )
        from distributed import as_completed

        total = spec.new_counts(full=mode == "full")
        unit_of = {f.key: u for f, u in zip(futures, units, strict=True)}
        for future in as_completed(futures):
            got = future.result()
            if isinstance(got, ReadFailure):
                for f in futures:
                    f.cancel()
                raise DatasetError(
                    f"a Dask worker (on {got.worker}) cannot read this corpus file: "
                    f"{got.reason}; every worker needs the file at this path (a shared file "
                    "system)",
                    file=got.path,
                )
            total.add(got)
            bar(unit_input_bytes(unit_of[future.key]))
        return total
    finally:
        if tuned:
            with contextlib.suppress(Exception):
                client.run(worker_malloc_for_scanning, False)
        client.close()
        if cluster is not None:
            cluster.close()


def worker_malloc_for_scanning(scanning: bool) -> bool:
    """On a Dask worker whose nanny set ``MALLOC_TRIM_THRESHOLD_`` (distributed does, to hand
    freed memory back to the system), let glibc keep the scan's block-sized buffers during a
    scan, and put the worker's setting back after it.

    That variable turns off glibc's adaptive mmap threshold, so every 8 MB block and every
    array derived from it is mapped afresh and page-faulted in again: the scan ran about 35%
    slower on such workers (5.3-5.9 s against 4.0 s per GB on 2 cores). Returns whether
    anything was changed (not glibc, or no such variable: nothing is).
    """
    setting = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if setting is None or not setting.isdigit():
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # mallopt parameters (malloc.h)
    if scanning:
        ok = libc.mallopt(m_trim_threshold, 512 << 20) and libc.mallopt(m_mmap_threshold, 32 << 20)
    else:
        ok = libc.mallopt(m_trim_threshold, int(setting)) and libc.mallopt(
            m_mmap_threshold, 128 << 10
        )
        libc.malloc_trim(0)
    return bool(ok)


# --------------------------------------------------------------------------- entry point


def scan_corpus(
    spec: ScanSpec,
    paths: Iterable[str | os.PathLike[str]],
    *,
    workers: int = 1,
    dask: str | None = None,
    mode: str = "full",
    conllu: str = "text",
    block_size: int = BLOCK_SIZE,
    pieces_per_worker: int = 4,
    quiet: bool = False,
) -> ScanCounts:
    """Scan every corpus file and return the summed counts.

    ``workers`` is the number of processes (0 or less: every core); ``dask`` a scheduler
    address or ``"local"``. ``mode="occupations"`` counts only sentences that mention an
    occupation (faster; no corpus-wide share q). A progress bar over the input files' MB
    (compressed files by their compressed size) is drawn on a terminal unless ``quiet``.
    """
    _counter(mode)
    if workers <= 0:
        workers = os.cpu_count() or 1
    parallel = workers > 1 or dask is not None
    units = plan_units(
        [os.path.abspath(os.fspath(p)) for p in paths],  # workers may run elsewhere
        pieces=workers * pieces_per_worker if parallel else 1,
        conllu=conllu,
        # a process pool shares one decompression of each stream (see _feed_ring); Dask
        # workers, which may be on other machines, each read the stream and count a part
        stream_parts=workers if parallel and (dask is not None or not _can_fork()) else 1,
    )
    size = sum(unit_input_bytes(u) for u in units)
    n_files = len({u.path for u in units})
    label = f"scanning {n_files} file{'s' * (n_files != 1)} (MB)"
    size_mb = -(-size // MB)
    with track(label, size_mb, quiet=quiet, errors=False) as tracker:
        bar = _InputBar(tracker)
        if dask is not None:
            total = _scan_dask(spec, units, dask, workers, mode, block_size, bar)
        elif workers == 1:
            total = spec.new_counts(full=mode == "full")
            for u in units:
                total.add(scan_unit(spec, u, mode, block_size, bar))
        else:
            total = _scan_pool(spec, units, workers, mode, block_size, bar)
        if tracker.done < size_mb:  # the last part of an MB
            tracker.advance(size_mb - tracker.done)
    return total
