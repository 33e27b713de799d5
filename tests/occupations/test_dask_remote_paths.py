"""Remote Dask workers: relative corpus paths are made absolute before they travel; a worker
that cannot read a file gives one clear error line, not a worker traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from winoscope.errors import DatasetError
from winoscope.occupations.lexicons import load_lexicon
from winoscope.occupations.scan import build_spec, scan_corpus
from winoscope.occupations.scan.dask_cluster import scan_on_dask
from winoscope.occupations.scan.inputs import Unit
from winoscope.occupations.scan.run import _InputBar
from winoscope.progress import track

distributed = pytest.importorskip("distributed")

TEXT = "Hon är läkare och han är lärare.\nHan arbetar som ingenjör.\nHon är sjuksköterska.\n"


@pytest.fixture(scope="module")
def spec():
    return build_spec(load_lexicon("sv"))


@pytest.fixture()
def scheduler():
    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None
    ) as cluster:
        yield cluster


def test_relative_paths_reach_a_worker_started_elsewhere(spec, scheduler, tmp_path, monkeypatch):
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    (corpus_dir / "a.txt").write_text(TEXT * 200, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            scheduler.scheduler_address,
            "--nthreads",
            "1",
            "--no-nanny",
            "--no-dashboard",
        ],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with distributed.Client(scheduler.scheduler_address) as client:
            client.wait_for_workers(1, timeout=90)
        monkeypatch.chdir(corpus_dir)
        local = scan_corpus(spec, ["a.txt"], workers=1, quiet=True)
        remote = scan_corpus(
            spec, ["a.txt"], workers=1, dask=scheduler.scheduler_address, quiet=True
        )
        assert local.equals(remote)
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a graceful shutdown that hangs on a loaded machine
            worker.kill()
            worker.wait(timeout=30)


def test_a_worker_that_cannot_read_a_file_gives_one_line(spec, tmp_path) -> None:
    missing = str(tmp_path / "only-on-the-client.txt")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        track("scan", 1, quiet=True, errors=False) as tracker,
    ):
        start = time.time()
        with pytest.raises(DatasetError) as err:
            scan_on_dask(
                spec,
                [Unit(missing, 0, 100)],
                cluster.scheduler_address,
                1,
                "full",
                1 << 16,
                _InputBar(tracker),
            )
    message = str(err.value)
    assert "cannot read this corpus file" in message and "No such file" in message
    assert missing in message and "\n" not in message and "Traceback" not in message
    assert time.time() - start < 60


def test_cli_reports_an_unreadable_file_in_one_line(tmp_path) -> None:
    from typer.testing import CliRunner

    from winoscope.cli import app

    res = CliRunner().invoke(
        app,
        [
            "associate",
            str(tmp_path / "nope.txt"),
            "--lang",
            "sv",
            "--dask",
            "local",
            "--out",
            str(tmp_path / "o"),
            "-q",
        ],
    )
    assert res.exit_code == 2
    assert "nope.txt" in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
