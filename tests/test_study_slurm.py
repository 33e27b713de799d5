"""A study on a real Slurm cluster (CI's .ci/slurm-up.sh): 6 cells in 2 jobs of one job array;
one job cancelled mid-way (``scancel``), the other killed (``scancel --signal=KILL``); both are
reported with their Slurm state, job id and log, nothing hangs, and a rerun completes the study
with every cell's metrics equal to a local run's."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from study_helpers import build_tiny_models, cell_metrics, write_study

pytestmark = pytest.mark.slurm


def wait_until(check: Any, limit: float, what: str) -> None:
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {limit} s")
        time.sleep(0.5)


def test_a_cancelled_and_a_killed_job_are_reported_and_a_rerun_completes_the_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from winoscope.studies import load_study, plan_cells, run_study
    from winoscope.studies.slurm import SlurmError

    monkeypatch.setenv("STUDY_TINY_DIR", str(build_tiny_models(tmp_path / "tiny")))
    local = run_study(load_study(write_study(tmp_path, "local", "local.toml")), "local")
    assert local.ok and local.cells == 6 and len(local.outcomes) == 2

    study = load_study(write_study(tmp_path, "slurm"))
    jobs = plan_cells(study)
    assert [len(j.cells) for j in jobs] == [3, 3]
    gate = tmp_path / "gate"  # the last value of each job waits for it: the jobs stop mid-way
    monkeypatch.setenv("STUDY_GATE", str(gate))
    ids: list[str] = []
    box: dict[str, Any] = {}
    runner = threading.Thread(
        target=lambda: box.update(result=run_study(study, "slurm", on_submit=ids.extend)),
        daemon=True,
    )
    runner.start()
    wait_until(lambda: len(ids) == 2, 60, "both array tasks submitted")
    with pytest.raises(SlurmError, match=f"job {ids[0]}"):  # no second copy while queued
        run_study(study, "slurm")
    first_two = [c for j in jobs for c in j.cells[:2]]
    wait_until(lambda: all(c.finished() for c in first_two), 240, "two cells of each job")
    subprocess.run(["scancel", ids[0]], check=True, timeout=30)
    subprocess.run(["scancel", "--signal=KILL", ids[1]], check=True, timeout=30)
    runner.join(180)
    assert not runner.is_alive(), "the study still waits on a cancelled or killed job"
    first = box["result"]
    by = {o.model: o for o in first.outcomes}
    assert by["seeds"].state == "CANCELLED" and by["seeds"].job_id == ids[0]
    assert by["steer"].state not in ("COMPLETED", "RUNNING", "PENDING")
    assert by["steer"].job_id == ids[1]
    for o in first.outcomes:
        print(o.line())
        assert not o.ok and Path(o.log).is_file() and o.job_id in o.line() and o.log in o.line()
        assert len(o.done) == 2  # the cells finished before the signal stay finished
    assert sorted(first.unfinished) == ["seeds alpha=5 winobias-uk", "steer alpha=5 winobias-uk"]

    monkeypatch.delenv("STUDY_GATE")
    second = run_study(study, "slurm")
    assert second.ok and not second.unfinished
    assert [len(o.done) for o in second.outcomes] == [1, 1]  # only what was left is run
    assert all(o.state == "COMPLETED" for o in second.outcomes)
    got, want = cell_metrics(study.out), cell_metrics(local.study.out)
    assert sorted(got) == sorted(want) and len(got) == 6
    for cell, frame in want.items():
        pd.testing.assert_frame_equal(got[cell], frame, obj=cell)
    for model in ("seeds", "steer"):
        assert (study.out / "sweeps" / model / "sweep.html").is_file()
        slurm_sweep = pd.read_csv(study.out / "sweeps" / model / "sweep.csv")
        local_sweep = pd.read_csv(local.study.out / "sweeps" / model / "sweep.csv")
        pd.testing.assert_frame_equal(slurm_sweep, local_sweep)
    board = pd.read_csv(study.out / "leaderboard" / "leaderboard.csv")
    assert board.groupby(["model", "tags"]).ngroups == 6
    assert (study.out / "comparison" / "compare.html").is_file()
