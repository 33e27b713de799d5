"""Identical counts across one process, a process pool and Dask; the pool shares one
decompression of each stream; the progress bar reaches the corpus size."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from scan_corpora import names_lexicon, write_mixed_corpus

from winoscope.occupations.scan import (
    build_spec,
    count_block,
    scan_corpus,
)


@pytest.fixture(scope="module")
def sv_names_spec(tmp_path_factory):
    return build_spec(names_lexicon(tmp_path_factory.mktemp("names")))


@pytest.fixture(scope="module")
def mixed_corpus(tmp_path_factory):
    return write_mixed_corpus(tmp_path_factory.mktemp("corpus"))


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
