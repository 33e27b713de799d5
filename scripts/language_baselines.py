"""Per-language tables of the reference baselines' summary metrics, ready for a paper.

Runs every reference baseline on the Ukrainian bundled samples (WinoBias-UK, WinoPron-UK) and on
the English originals (WinoBias, WinoPron, Winogender) from the given local folders or URLs, and
prints one markdown table per task: summary metrics (``split == "macro"``) as value [95% CI].

Run:
    python scripts/language_baselines.py --winobias-en PATH --winopron-en PATH \
        --winogender-en PATH [--bootstrap 1000]

An English source left out is skipped (the default public URLs need network access).
"""

from __future__ import annotations

import argparse

import pandas as pd

from winoscope import run
from winoscope.backends.baselines import PICKERS


def table(task: str, data: str | None, n_boot: int) -> str:
    rows = []
    for name in PICKERS:
        rr = run(task, f"baseline:{name}", data=data, n_boot=n_boot, seed=0)
        macro = rr.metrics[rr.metrics["split"] == "macro"].set_index("metric")
        row = {"baseline": name}
        for metric, v in macro.iterrows():
            row[str(metric)] = f"{v['value']:.3f} [{v['ci_low']:.3f}, {v['ci_high']:.3f}]"
        rows.append(row)
    frame = pd.DataFrame(rows).fillna("–")
    head = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
    body = "".join("| " + " | ".join(map(str, r)) + " |\n" for r in frame.to_numpy())
    where = data or "bundled sample"
    return f"### {task} ({where})\n\n{head}{body}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--winobias-en")
    ap.add_argument("--winopron-en")
    ap.add_argument("--winogender-en")
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()
    jobs: list[tuple[str, str | None]] = [("winobias-uk", None), ("winopron-uk", None)]
    for task in ("winobias-en", "winopron-en", "winogender-en"):
        source = getattr(args, task.replace("-", "_"))
        if source:
            jobs.append((task, source))
    for task, data in jobs:
        print(table(task, data, args.bootstrap))


if __name__ == "__main__":
    main()
