"""How long ``import winoscope`` takes, beside ``import pandas`` (which it needs anyway).

    python benchmarks/bench_import.py [--runs 9] [--python .venv/bin/python]

Each measurement is a fresh interpreter (``python -c``) that times the import statement alone
with ``time.perf_counter`` (interpreter start-up excluded), so every run imports from scratch.
One run of each is made first and discarded, so the figures are warm (files in the page cache),
as on a second invocation of the command line. Prints the median and range of each, the
ratio, and the load average (timings on a busy machine are noisy). The target is under 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

PROBE = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
MODULES = ("pandas", "winoscope")


def time_import(python: str, module: str) -> float:
    done = subprocess.run(
        [python, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9, help="timed runs per module (default 9)")
    ap.add_argument("--python", default=sys.executable, help="interpreter to measure")
    args = ap.parse_args(argv)

    print(f"load average before: {os.getloadavg()}")
    for module in MODULES:  # warm-up, discarded
        time_import(args.python, module)
    times: dict[str, list[float]] = {m: [] for m in MODULES}
    for _ in range(args.runs):  # interleaved, so a burst of load hits both alike
        for module in MODULES:
            times[module].append(time_import(args.python, module))
    medians = {m: statistics.median(t) for m, t in times.items()}
    for module in MODULES:
        t = times[module]
        print(
            f"import {module:<10} median {medians[module]:.3f} s "
            f"(min {min(t):.3f}, max {max(t):.3f}, {len(t)} runs)"
        )
    print(f"winoscope / pandas: {medians['winoscope'] / medians['pandas']:.2f}x")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
