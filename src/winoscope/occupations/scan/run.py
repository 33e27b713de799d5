"""Run a scan in one process, over every core, or on a Dask cluster, with identical counts.

All three share one unit of work (:class:`~.inputs.Unit`: a byte range of a plain file or a
whole compressed/CoNLL-U file) and one counting function; partial counts are summed, so the
result never depends on how the corpus was split or in which order pieces finished.

* ``workers=1``: units one after another in this process;
* ``workers=N``: a pool of N forked processes: byte ranges of plain files and whole CoNLL-U
  files are read by the worker that counts them; a compressed text file is decompressed once,
  by this process, into slots of shared memory that the workers count in place
  (:mod:`.process_pool`);
* ``dask="local"`` or a scheduler address: one Dask task per unit (a ``LocalCluster`` with
  ``workers`` single-threaded processes, forked where the platform can, for ``local``); a
  compressed file is read by as many tasks as workers, each decompressing the whole stream
  and counting every N-th read of it (nothing to ship between machines). Platforms without
  ``fork`` do the same in the process pool (:mod:`.dask_cluster`).

Paths are made absolute before any unit is planned, so a worker started in another directory
(or on another machine with the same shared file system) opens the same files. A worker that
cannot read a file reports it back instead of raising; the scan then stops with one
:class:`~winoscope.errors.DatasetError` naming the file, the worker and the reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

from ...progress import Tracker, track
from .counts import ScanCounts
from .dask_cluster import scan_on_dask
from .inputs import plan_units, unit_input_bytes
from .process_pool import can_fork, scan_in_pool
from .serial import counter, scan_unit
from .spec import ScanSpec
from .streams import BLOCK_SIZE

MB = 1 << 20


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
    counter(mode)
    if workers <= 0:
        workers = os.cpu_count() or 1
    parallel = workers > 1 or dask is not None
    units = plan_units(
        [os.path.abspath(os.fspath(p)) for p in paths],  # workers may run elsewhere
        pieces=workers * pieces_per_worker if parallel else 1,
        conllu=conllu,
        # a process pool shares one decompression of each stream (see .process_pool); Dask
        # workers, which may be on other machines, each read the stream and count a part
        stream_parts=workers if parallel and (dask is not None or not can_fork()) else 1,
    )
    size = sum(unit_input_bytes(u) for u in units)
    n_files = len({u.path for u in units})
    label = f"scanning {n_files} file{'s' * (n_files != 1)} (MB)"
    size_mb = -(-size // MB)
    with track(label, size_mb, quiet=quiet, errors=False) as tracker:
        bar = _InputBar(tracker)
        if dask is not None:
            total = scan_on_dask(spec, units, dask, workers, mode, block_size, bar)
        elif workers == 1:
            total = spec.new_counts(full=mode == "full")
            for u in units:
                total.add(scan_unit(spec, u, mode, block_size, bar))
        else:
            total = scan_in_pool(spec, units, workers, mode, block_size, bar)
        if tracker.done < size_mb:  # the last part of an MB
            tracker.advance(size_mb - tracker.done)
    return total
