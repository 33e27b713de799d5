"""How long ``import winoscope`` takes, beside ``import pandas`` (which a run needs anyway).

    python benchmarks/bench_import.py [--runs 9] [--python .venv/bin/python]

Each measurement is a fresh interpreter (``python -c``) that times the import statement alone
with ``time.perf_counter`` (interpreter start-up excluded), so every run imports from scratch.
One run of each is made first and discarded, so the figures are warm (files in the page cache),
as on a second invocation of the command line. ``import winoscope`` defers the public
functions to their first use; ``winoscope.run`` (attribute access after the import) loads what a
run needs: pandas, every task and backend. Prints the median and range of each, the ratios to
pandas, and the load average (timings on a busy machine are noisy). The target is under 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

PROBE = "import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
# label -> statement; the last one loads everything `winoscope.run` needs (tasks, backends)
STATEMENTS = {
    "import pandas": "import pandas",
    "import winoscope": "import winoscope",
    "winoscope.run": "import winoscope; winoscope.run",
}


def time_import(python: str, statement: str) -> float:
    done = subprocess.run(
        [python, "-c", PROBE.format(statement=statement)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9, help="timed runs per module (default 9)")
    ap.add_argument("--python", default=sys.executable, help="interpreter to measure")
    args = ap.parse_args(argv)

    print(f"load average before: {os.getloadavg()}")
    for statement in STATEMENTS.values():  # warm-up, discarded
        time_import(args.python, statement)
    times: dict[str, list[float]] = {label: [] for label in STATEMENTS}
    for _ in range(args.runs):  # interleaved, so a burst of load hits all alike
        for label, statement in STATEMENTS.items():
            times[label].append(time_import(args.python, statement))
    medians = {label: statistics.median(t) for label, t in times.items()}
    for label, t in times.items():
        print(
            f"{label:<18} median {medians[label]:.3f} s "
            f"(min {min(t):.3f}, max {max(t):.3f}, {len(t)} runs)"
        )
    pandas = medians["import pandas"]
    for label in ("import winoscope", "winoscope.run"):
        print(f"{label} / import pandas: {medians[label] / pandas:.2f}x")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
