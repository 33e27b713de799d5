"""How long a baseline run of a bundled sample takes, beside ``import pandas, matplotlib``.

    python benchmarks/bench_run_overhead.py [--runs 7] [--python .venv/bin/python]

A baseline (``baseline:agreement``) asks no model, so the run is all overhead: imports,
validation, scoring, the run directory and its figures. Each measurement is a whole fresh
process, timed from outside (start-up included): ``python -m winoscope run winobias-uk --model
baseline:agreement --out DIR -q`` into a new folder, and ``python -c "import pandas,
matplotlib"``, the two libraries every run needs. They run in turn, A B A B ..., and the ratio
is taken pair by pair, so a burst of load on a shared machine hits both alike; the median of
the ratios is printed with the medians of each. One run of each is made first and discarded:
the figures are warm (files in the page cache, bytecode written), as on a second invocation of
the command line. ``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment, since
with it set every run compiles the package from source. Prints the load average too. The
target is a ratio under 3.

A third process in each round, ``figures only``, is the floor the report's figures set: it
imports pandas and the report's figure modules, reads the warm-up run's metrics and
predictions, and draws and writes that run's figures (three figures, each as PNG, SVG and
PDF), nothing else; it reports how long the drawing and saving took inside it. Its ratio to
the import shows how much of the budget the figures take before a run validates, scores or
writes anything.

A fourth, ``run, no drawing``, is the same ``winoscope run`` with the report's figure list
replaced by an empty one (a patch in this script only): everything else a run does, the
figure modules' imports included, with no figure drawn or written. It is the floor the rest of
a run sets, and so shows what is left of the budget for the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

YARDSTICK = ["-c", "import pandas, matplotlib"]
FIGURES_ONLY = """
import sys, time
from pathlib import Path
import pandas as pd
from winoscope.report.figures import save_figure
from winoscope.report.plots import run_figures
run, out = Path(sys.argv[1]), Path(sys.argv[2])
metrics, predictions = pd.read_csv(run / "metrics.csv"), pd.read_parquet(run / "predictions.parquet")
start = time.perf_counter()
for fig in run_figures(metrics, predictions):
    save_figure(fig, out)
print(time.perf_counter() - start)
"""
NO_DRAWING = """
import runpy, sys
import winoscope.report.html as html
html.run_figures = lambda metrics, predictions: []
sys.argv = ["winoscope", *sys.argv[1:]]
runpy.run_module("winoscope", run_name="__main__")
"""


def cli_args(out: Path) -> list[str]:
    """The command line after ``winoscope``: a quiet baseline run into ``out``."""
    return ["run", "winobias-uk", "--model", "baseline:agreement", "--out", str(out), "-q"]


def run_command(out: Path) -> list[str]:
    return ["-m", "winoscope", *cli_args(out)]


def wall(python: str, args: list[str], env: dict[str, str], said: list[str] | None = None) -> float:
    """Seconds the process took, start-up and exit included; its output is added to ``said``."""
    start = time.perf_counter()
    done = subprocess.run([python, *args], env=env, check=True, capture_output=True, text=True)
    took = time.perf_counter() - start
    if said is not None:
        said.append(done.stdout)
    return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="timed pairs (default 7)")
    ap.add_argument("--python", default=sys.executable, help="interpreter to measure")
    args = ap.parse_args(argv)

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    print(f"load average before: {os.getloadavg()}")
    runs: list[float] = []
    yardstick: list[float] = []
    figures: list[float] = []
    bare: list[float] = []
    drawing: list[str] = []
    with tempfile.TemporaryDirectory(prefix="winoscope-bench-") as tmp:
        folders = (Path(tmp) / f"run{i}" for i in range(args.runs + 1))
        first = next(folders)
        wall(args.python, run_command(first), env)  # warm-up, discarded
        wall(args.python, YARDSTICK, env)
        for i, out in enumerate(folders):
            runs.append(wall(args.python, run_command(out), env))
            yardstick.append(wall(args.python, YARDSTICK, env))
            plots = ["-c", FIGURES_ONLY, str(first), str(Path(tmp) / f"figures{i}")]
            figures.append(wall(args.python, plots, env, drawing))
            no_drawing = ["-c", NO_DRAWING, *cli_args(Path(tmp) / f"bare{i}")]
            bare.append(wall(args.python, no_drawing, env))
    rows = (
        ("winoscope run", runs),
        ("import pandas, matplotlib", yardstick),
        ("figures only", figures),
        ("run, no drawing", bare),
    )
    for label, t in rows:
        print(
            f"{label:<26} median {statistics.median(t):.2f} s "
            f"(min {min(t):.2f}, max {max(t):.2f}, {len(t)} runs)"
        )
    draw = [float(text) for text in drawing]
    print(
        f"{'  of which drawing, saving':<26} median {statistics.median(draw):.2f} s "
        f"(min {min(draw):.2f}, max {max(draw):.2f}; the rest is start-up, imports, reading)"
    )
    for label, t in (("run", runs), ("figures only", figures), ("run, no drawing", bare)):
        ratios = [r / y for r, y in zip(t, yardstick, strict=True)]
        print(
            f"{label} / import: median {statistics.median(ratios):.2f}x "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f}, pair by pair)"
        )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
