"""Run a scan in one process, over every core, or on a Dask cluster, with identical counts.

All three share one unit of work (:class:`~.inputs.Unit`: a byte range of a plain file or a
whole compressed/CoNLL-U file) and one counting function; partial counts are summed, so the
result never depends on how the corpus was split or in which order pieces finished.

* ``workers=1``: units one after another in this process;
* ``workers=N``: a pool of N forked processes, each reading its own units: byte ranges of plain
  files, every N-th block of a compressed file (each part decompresses the whole stream, which
  costs a fraction of scanning it and ships no text between processes), whole CoNLL-U files;
* ``dask="local"`` or a scheduler address: one Dask task per unit (a ``LocalCluster`` with
  ``workers`` single-threaded processes, forked where the platform can, for ``local``).
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor

from .counts import ScanCounts
from .inputs import BLOCK_SIZE, Unit, plan_units, read_unit
from .matcher import ScanSpec, count_block, count_block_occupations

MODES = ("full", "occupations")


def _counter(mode: str) -> Callable[[ScanSpec, bytes, ScanCounts | None], ScanCounts]:
    if mode not in MODES:
        raise ValueError(f"scan mode must be one of {MODES}, got {mode!r}")
    return count_block if mode == "full" else count_block_occupations


def scan_unit(
    spec: ScanSpec, unit: Unit, mode: str = "full", block_size: int = BLOCK_SIZE
) -> ScanCounts:
    """Counts of one unit of work (runs in any process or Dask worker)."""
    count = _counter(mode)
    counts = spec.new_counts(full=mode == "full")
    for block in read_unit(unit, block_size):
        count(spec, block, counts)
    return counts


# --------------------------------------------------------------------------- process pool

_WORKER_SPEC: ScanSpec | None = None


def _init_worker(spec: ScanSpec) -> None:
    global _WORKER_SPEC
    _WORKER_SPEC = spec


def _pool_unit(unit: Unit, mode: str, block_size: int) -> ScanCounts:
    assert _WORKER_SPEC is not None
    return scan_unit(_WORKER_SPEC, unit, mode, block_size)


def _context() -> mp.context.BaseContext:
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def _scan_pool(
    spec: ScanSpec, units: list[Unit], workers: int, mode: str, block_size: int
) -> ScanCounts:
    total = spec.new_counts(full=mode == "full")
    with ProcessPoolExecutor(
        workers, mp_context=_context(), initializer=_init_worker, initargs=(spec,)
    ) as pool:
        for part in pool.map(_pool_unit, units, [mode] * len(units), [block_size] * len(units)):
            total.add(part)
    return total


# --------------------------------------------------------------------------- dask


def _scan_dask(
    spec: ScanSpec, units: list[Unit], address: str, workers: int, mode: str, block_size: int
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
    try:
        [spec_future] = client.scatter([spec], broadcast=True)
        futures = client.map(
            scan_unit,
            [spec_future] * len(units),
            units,
            mode=mode,
            block_size=block_size,
            pure=False,
        )
        total = spec.new_counts(full=mode == "full")
        for part in client.gather(futures):
            total.add(part)
        return total
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


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
) -> ScanCounts:
    """Scan every corpus file and return the summed counts.

    ``workers`` is the number of processes (0 or less: every core); ``dask`` a scheduler
    address or ``"local"``. ``mode="occupations"`` counts only sentences that mention an
    occupation (faster; no corpus-wide share q).
    """
    _counter(mode)
    if workers <= 0:
        workers = os.cpu_count() or 1
    parallel = workers > 1 or dask is not None
    units = plan_units(
        [os.fspath(p) for p in paths],
        pieces=workers * pieces_per_worker if parallel else 1,
        conllu=conllu,
        stream_parts=workers if parallel else 1,
    )
    if dask is not None:
        return _scan_dask(spec, units, dask, workers, mode, block_size)
    if workers == 1:
        total = spec.new_counts(full=mode == "full")
        for u in units:
            total.add(scan_unit(spec, u, mode, block_size))
        return total
    return _scan_pool(spec, units, workers, mode, block_size)
