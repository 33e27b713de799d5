"""Loading and checking a release whose table carries its rows' places, against a baseline in
the same run.

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_validate.py [--data ../shared/data/winobias-en] [--repeat 3]

The English WinoBias release (3,168 lines read from bracket files) keeps each row's file and
line in ``DataFrame.attrs``, and pandas deep-copies ``attrs`` into every frame an operation
returns. The loader stores the places as a value that copies share (``SharedRows``); the
baseline is the same table with the places as a plain list, as loading stored them before. It
prints the seconds of ``validate`` for both (best of ``--repeat``), their ratio, and checks that
both find the same issues.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def best_of(repeat: int, fn):  # type: ignore[no-untyped-def]
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "winobias-en")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not args.data.is_dir():
        sys.exit(f"{args.data}: no such folder (the English WinoBias release)")

    from winoscope.datasets.base import SOURCE_LINES
    from winoscope.families.winobias.dataset import EN

    ds = EN.load(args.data)
    shared, found = best_of(args.repeat, lambda: EN.validate(ds))
    # the baseline: the same places as a plain list, which every pandas operation copies
    ds.table.attrs[SOURCE_LINES] = list(ds.table.attrs[SOURCE_LINES])
    listed, baseline_found = best_of(1, lambda: EN.validate(ds))
    assert [str(i) for i in found] == [str(i) for i in baseline_found]
    print(f"rows: {len(ds.table)}; issues found: {len(found)} (the same in both)")
    print(f"validate, places as a list (baseline): {listed:.2f} s")
    print(f"validate, places shared:               {shared:.2f} s (best of {args.repeat})")
    print(f"ratio: {listed / shared:.0f}x")


if __name__ == "__main__":
    main()
