"""A corpus of the mistakes a new user makes, generated for the command line's every command.

:func:`build_corpus` writes, under one folder, the broken inputs (data files in another
encoding, with a byte-order mark, blank lines, a JSON array, list cells, a true in a number
field, cut short; run directories whose ``manifest.json``, ``metrics.csv`` or
``predictions.csv`` is cut short or not UTF-8; study files with a task, template or value given
twice, equal-valued points, numbers out of range, unknown names and missing paths) and the
output folders a run must not write into (a file, a path under a file, a folder no one can
write, the user's own files, a finished run of other settings), and returns
the inputs by name; ``test_hostile_inputs`` runs every command over them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

import winoscope
from winoscope.cli import app

#: a folder no process can write in, not even root's (the kernel's own files)
UNWRITABLE = Path("/sys/kernel")


def unwritable_folder() -> Path | None:
    """A real folder this process cannot write in, or None where there is none."""
    try:
        fd, probe = tempfile.mkstemp(dir=UNWRITABLE)
    except OSError:
        return UNWRITABLE
    os.close(fd)
    os.unlink(probe)
    return None


SAMPLE = (
    Path(winoscope.__file__).parent / "families/winobias/samples/winobias_uk_natural_sample.csv"
)


def _records() -> list[dict[str, str]]:
    return pd.read_csv(SAMPLE, dtype=str, keep_default_na=False).to_dict("records")  # type: ignore[return-value]


def write_data_files(d: Path) -> dict[str, Path]:
    """The sample of WinoBias-UK in every broken shape a user's file comes in."""
    d.mkdir(parents=True, exist_ok=True)
    text = SAMPLE.read_text(encoding="utf-8")
    recs = _records()
    lines = [json.dumps(r, ensure_ascii=False) for r in recs]
    files = {
        "cp1251": d / "cp1251.csv",  # Ukrainian text in Windows-1251: the header is ASCII
        "bom": d / "bom.csv",
        "blank_lines": d / "blank_lines.jsonl",  # a bad record on line 12, after blank lines
        "array": d / "array.json",
        "list_cells": d / "list_cells.parquet",
        "bool_number": d / "bool_number.jsonl",
        "truncated": d / "truncated.csv",
        "cp1251_jsonl": d / "cp1251.jsonl",
    }
    files["cp1251"].write_bytes(text.encode("cp1251"))
    files["bom"].write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    files["blank_lines"].write_text("\n\n".join(lines[:5]) + "\n\n{bad\n", encoding="utf-8")
    files["array"].write_text(json.dumps(recs, ensure_ascii=False), encoding="utf-8")
    frame = pd.DataFrame(recs)
    frame["sentence_uk"] = frame["sentence_uk"].map(lambda s: [s])
    frame.to_parquet(files["list_cells"])
    flagged = [dict(r) for r in recs]
    flagged[0]["item_number"] = True  # type: ignore[assignment]
    files["bool_number"].write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in flagged) + "\n", encoding="utf-8"
    )
    files["truncated"].write_text(text[:3000], encoding="utf-8")
    files["cp1251_jsonl"].write_bytes(("\n".join(lines) + "\n").encode("cp1251"))
    files["pipe"] = d / "pipe.csv"
    os.mkfifo(files["pipe"])  # reading it would wait for a writer: it must not be read
    return files


def damaged_runs(good: Path, d: Path) -> dict[str, Path]:
    """Copies of a written run directory, each damaged in one file."""
    out: dict[str, Path] = {}

    def copy(name: str) -> Path:
        target = d / name
        shutil.copytree(good, target)
        out[name] = target
        return target

    p = copy("cut_manifest")
    p.joinpath("manifest.json").write_bytes(p.joinpath("manifest.json").read_bytes()[:100])
    p = copy("cp1251_metrics")
    text = p.joinpath("metrics.csv").read_text(encoding="utf-8")
    p.joinpath("metrics.csv").write_bytes(text.replace("macro", "макро").encode("cp1251"))
    p = copy("cut_predictions")
    (p / "predictions.parquet").unlink()
    p.joinpath("predictions.csv").write_bytes(p.joinpath("predictions.csv").read_bytes()[:2500])
    p = copy("short_predictions")  # cut at a line's end: it parses, with fewer rows
    (p / "predictions.parquet").unlink()
    head = p.joinpath("predictions.csv").read_text(encoding="utf-8").splitlines()[:6]
    p.joinpath("predictions.csv").write_text("\n".join(head) + "\n", encoding="utf-8")
    (d / "empty_folder").mkdir()
    out["empty_folder"] = d / "empty_folder"
    foreign = d / "foreign"
    foreign.mkdir()
    (foreign / "report.md").write_text("my own notes\n", encoding="utf-8")
    (foreign / "metrics.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    out["foreign"] = foreign
    return out


TOP = {"name": '"probe"', "tasks": '["winobias-uk"]', "bootstrap": "20", "limit": "1"}
POINTS = 'points = {0 = "baseline:random", 1 = "baseline:agreement"}'


def study_text(top: dict[str, str] | None = None, model: str = POINTS) -> str:
    """A study of two baseline points; ``top`` replaces or adds top-level settings."""
    settings = {**TOP, **(top or {})}
    head = "".join(f"{k} = {v}\n" for k, v in settings.items())
    return f'{head}\n[[models]]\nname = "b"\n{model}\n'


def study_files(d: Path) -> dict[str, tuple[Path, tuple[str, ...]]]:
    """Study files, each with one mistake, and the words (file, key) its refusal names."""
    d.mkdir(parents=True, exist_ok=True)
    cases: dict[str, tuple[str, tuple[str, ...]]] = {
        "task_twice": (
            study_text({"tasks": '["winobias-uk", "winobias-uk"]'}),
            ("tasks[1]", "twice"),
        ),
        "task_twice_data": (
            study_text({"tasks": '["winobias-uk", {name = "winobias-uk", data = "x.csv"}]'}),
            ("tasks[1]", "twice"),
        ),
        "template_twice": (
            study_text({"templates": '["uk-plain-v1", "uk-plain-v1"]'}),
            ("templates[1]", "twice"),
        ),
        "unknown_task": (study_text({"tasks": '["winobias-ukk"]'}), ("tasks[0].name",)),
        "unknown_template": (
            study_text({"templates": '["nosuch.txt"]'}),
            ("templates[0]", "no such template file"),
        ),
        "scorer_option": (
            study_text({"tasks": '[{name = "winobias-uk", scorer_options = {nosuch = 1}}]'}),
            ("tasks[0].scorer_options", "nosuch"),
        ),
        "missing_data": (
            study_text({"tasks": '[{name = "winobias-uk", data = "nosuch.csv"}]'}),
            ("tasks[0].data", "no such"),
        ),
        "model_args": (
            study_text(model=POINTS + "\nmodel_args = {nosuch = 1}"),
            ("models[0].model_args.nosuch",),
        ),
        "reference": (study_text(model=POINTS + "\nreference = 7"), ("models[0].reference",)),
        "bootstrap": (study_text({"bootstrap": "-5"}), ("bootstrap", "-5")),
        "seed": (study_text({"seed": "-1"}), ("seed", "-1")),
        "key_model": (study_text({"key": '"model"'}), ("key", "model")),
        "equal_points": (
            study_text(model='points = {"1" = "baseline:random", "01" = "baseline:agreement"}'),
            ("models[0].points.01", "same value"),
        ),
        "factory_twice": (
            study_text(model='factory = "m:f"\nvalues = [1, 1.0]'),
            ("models[0].values[1]", "twice"),
        ),
        "adapters_on_baseline": (
            study_text(model=f'base = "baseline:random"\nadapters = {{1 = "{d}"}}'),
            ("models[0].base", "adapters"),
        ),
        "missing_hf": (study_text(model='points = {1 = "hf:./nosuch"}'), ("models[0].points.1",)),
        "missing_checkpoints": (
            study_text(model='checkpoints = "./nosuch"'),
            ("models[0].checkpoints",),
        ),
    }
    out: dict[str, tuple[Path, tuple[str, ...]]] = {}
    for name, (text, says) in cases.items():
        path = d / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        out[name] = (path, (path.name, *says))
    twice = d / "yaml_key_twice.yaml"
    twice.write_text(
        "name: probe\ntasks: [winobias-uk]\nbootstrap: 20\nbootstrap: 30\nmodels:\n"
        '  - name: b\n    points: {0: "baseline:random"}\n',
        encoding="utf-8",
    )
    out["yaml_key_twice"] = (twice, (twice.name, "line 4", "'bootstrap' is given twice"))
    encoded = d / "cp1251.toml"
    encoded.write_bytes(study_text({"name": '"дослід"'}).encode("cp1251"))
    out["cp1251"] = (encoded, (encoded.name, "line 1", "UTF-8"))
    return out


@dataclass(frozen=True)
class Corpus:
    root: Path
    data: dict[str, Path]
    runs: dict[str, Path]
    studies: dict[str, tuple[Path, tuple[str, ...]]]
    unwritable: Path | None

    @property
    def afile(self) -> Path:
        return self.root / "a-file"


@contextlib.contextmanager
def unrendered_figures() -> Iterator[None]:
    """Figures are made as usual; saving one writes an empty file (rendering is most of a
    small run's time, and the report tests render every figure)."""
    from unittest import mock

    from matplotlib.figure import Figure

    def save(self: Figure, fname: object, *args: object, **kwargs: object) -> None:
        if isinstance(fname, str | os.PathLike):
            Path(fname).write_bytes(b"")

    with mock.patch.object(Figure, "savefig", save):
        yield


def build_corpus(root: Path) -> Corpus:
    """Every input of the corpus under ``root``: three baseline runs (one of 0 replicates),
    their damaged copies, a sweep's point run in full (twice), the data files, the study files
    and a file where a folder is expected."""
    good = winoscope.run("winobias-uk", "baseline:agreement", out=root / "good", n_boot=20)
    winoscope.run("winobias-uk", "baseline:agreement", out=root / "no_boot", n_boot=0)
    winoscope.run("winobias-uk", "baseline:random", out=root / "full", n_boot=20)
    runs = damaged_runs(good.out_dir, root / "damaged")
    runs.update(good=root / "good", no_boot=root / "no_boot", full=root / "full")
    runs["en"] = root / "full"  # refused before the pairing reads it
    for name in ("sweep_full", "sweep_copy"):
        shutil.copytree(root / "full", root / name / "winobias-uk" / "alpha=0")
        runs[name] = root / name
    (root / "a-file").write_text("not a folder\n", encoding="utf-8")
    data = write_data_files(root / "data")
    return Corpus(root, data, runs, study_files(root / "studies"), unwritable_folder())


ERROR_LINE = re.compile(r"^error: ", re.MULTILINE)


def cli(argv: tuple[str, ...], **env: str) -> tuple[int, str]:
    """The command line in this process, figures unrendered; an exception escapes."""
    with unrendered_figures():
        res = CliRunner().invoke(
            app, list(argv), catch_exceptions=False, env={"COLUMNS": "400", "TERM": "dumb", **env}
        )
    return res.exit_code, res.output
