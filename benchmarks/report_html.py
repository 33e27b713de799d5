"""Cost of the HTML report next to the rest of a run.

    .venv/bin/python benchmarks/report_html.py [--data ../shared/data/winobias-en --task winobias-en]

Times, in the same process: the evaluation itself (``run`` without writing), writing the tabular
run files (predictions, metrics, manifest, report.md), and ``report.html`` with its figures
(PNG + SVG). Prints each as a ratio to the evaluation. Timings on a shared machine are noisy:
take the median of several repeats.

Measured on the 2-core development machine while other work was running (noisy), medians of 3:
WinoBias-UK sample (76 rows): evaluation 0.29 s, tabular files 0.07 s (0.23x), report.html with
three figures 3.1 s (11x; matplotlib, about 0.2 s per small figure and 0.5 s per format for the
per-occupation one). WinoBias-EN (3168 rows): evaluation 1.9 s, tabular 0.19 s (0.10x),
report.html 3.6 s (1.8x). report.html is about 265 KiB either way (the size is the embedded
PNGs). Against a real model's minutes per run the report cost is negligible.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from winoscope.jsonio import write_json
from winoscope.report.html import write_run_html
from winoscope.report.markdown import render_markdown
from winoscope.report.writer import predictions_for_export
from winoscope.runs.runner import run


def timed(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default="winobias-uk")
    ap.add_argument("--data", default=None)
    ap.add_argument("--model", default="baseline:stereotype")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()

    rr = run(args.task, args.model, data=args.data, n_boot=args.bootstrap)
    t_eval = timed(
        lambda: run(args.task, args.model, data=args.data, n_boot=args.bootstrap), args.repeats
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)

        def tabular() -> None:
            pred = predictions_for_export(rr.predictions)
            pred.to_parquet(out / "predictions.parquet", index=False)
            pred.to_csv(out / "predictions.csv", index=False)
            rr.metrics.to_csv(out / "metrics.csv", index=False)
            write_json(out / "manifest.json", rr.manifest)
            (out / "report.md").write_text(render_markdown(rr), encoding="utf-8")

        t_tab = timed(tabular, args.repeats)
        t_html = timed(lambda: write_run_html(rr, out), args.repeats)
        size = (out / "report.html").stat().st_size
        plots = sorted(p.name for p in (out / "plots").iterdir())
    print(
        f"task {args.task} · {args.model} · {len(rr.predictions)} rows · {args.bootstrap} replicates"
    )
    print(f"evaluation (run, no files)   {t_eval:7.3f} s   1.00x")
    print(f"tabular files + report.md    {t_tab:7.3f} s   {t_tab / t_eval:.2f}x")
    print(f"report.html + plots          {t_html:7.3f} s   {t_html / t_eval:.2f}x")
    print(f"report.html size             {size / 1024:7.1f} KiB ({len(plots)} plot files)")


if __name__ == "__main__":
    main()
