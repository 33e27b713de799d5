"""Shared by the study tests: tiny models per seed and a study file of two factory models."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

TESTS = Path(__file__).resolve().parent

STUDY = """\
name = "tiny"
out = "{out}"
key = "alpha"
tasks = ["winobias-uk"]
bootstrap = 200
tags = {{method = "study-test"}}
pythonpath = ["{tests}"]

[[models]]
name = "seeds"
factory = "study_models:seeded"
values = [0, 1, 5]

[[models]]
name = "steer"
factory = "study_models:steered"
values = [0, 2, 5]

[slurm]
time = 10
array_parallelism = 2
wait = 4
"""


def build_tiny_models(folder: Path, seeds: tuple[int, ...] = (0, 1, 5)) -> Path:
    from tiny_lm import build_tiny_gpt2

    for s in seeds:
        if not (folder / f"seed-{s}" / "config.json").is_file():
            build_tiny_gpt2(folder / f"seed-{s}", seed=s)
    return folder


def write_study(folder: Path, out: str, name: str = "study.toml") -> Path:
    path = folder / name
    path.write_text(STUDY.format(out=out, tests=TESTS), encoding="utf-8")
    return path


def cell_metrics(out: Path) -> dict[str, pd.DataFrame]:
    """Every cell's metrics.csv under ``out/runs``, by its path below it."""
    runs = out / "runs"
    return {
        str(p.parent.relative_to(runs)): pd.read_csv(p) for p in sorted(runs.rglob("metrics.csv"))
    }
