"""How long ``winoscope compare`` takes on many runs of several tasks (target: 50 runs < 10 s).

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_compare.py [--runs 50] [--repeats 3]

It evaluates the reference baselines on four tasks' bundled samples once (real run directories
with reports), copies them into ``--runs`` run directories, each under its own model name (as
many models evaluated on the same data would be), and times ``compare_runs`` over all of them:
reading every manifest and metrics table, the tidy table, Markdown and LaTeX tables, the forest
plot (PNG and SVG), ``compare.html`` and ``index.html``. It prints the median of ``--repeats``
timings and the time of each step of one more call.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

TASKS = {
    "winobias-uk": ("baseline:stereotype", "baseline:agreement", "baseline:random"),
    "winopron-uk": ("baseline:first", "baseline:random"),
    "swewinogender/nli": ("nli-baseline:overlap", "nli-baseline:first-mention"),
    "swewinogender/resolution": ("baseline:first", "baseline:random"),
}


def make_runs(root: Path, n: int) -> list[Path]:
    import winoscope

    bases = []
    for task, models in TASKS.items():
        for model in models:
            out = root / "base" / f"{task.replace('/', '_')}__{model.replace(':', '_')}"
            winoscope.run(task, model, out=out, n_boot=500)
            bases.append(out)
    runs = []
    for i in range(n):
        src = bases[i % len(bases)]
        dst = root / "runs" / f"{i:03d}_{src.name}"
        shutil.copytree(src, dst)
        manifest = json.loads((dst / "manifest.json").read_text(encoding="utf-8"))
        manifest["model"]["spec"] = f"{manifest['model']['spec']}-m{i:03d}"
        (dst / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        runs.append(dst)
    return runs


def steps(runs: list[Path], out: Path) -> dict[str, float]:
    """The time of each step of ``compare_runs``, measured separately."""
    from winoscope.report import compare as c
    from winoscope.report.figures import save_figure
    from winoscope.report.index import Page, write_index
    from winoscope.results.rundir import load_run_dir

    t: dict[str, float] = {}
    t0 = time.perf_counter()
    dirs = [load_run_dir(p) for p in runs]
    t["read runs"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    flags, flagged = c.consistency_flags(dirs)
    tidy = c.tidy_table(dirs, flagged)
    md, tex = c.markdown_tables(tidy, flags), c.latex_tables(tidy, flags)
    t["tables"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    fig = c.forest_figure(tidy)
    saved = [save_figure(fig, out / "plots")] if fig else []
    t["forest plot"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    c.render_compare_html(dirs, tidy, flags, saved, out)
    write_index(dirs, out, pages=[Page("Comparison", "compare.html")])
    t["html + index"] = time.perf_counter() - t0
    del md, tex
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from winoscope.report.compare import compare_runs

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        runs = make_runs(root, args.runs)
        print(
            f"made {len(runs)} run directories of {len(TASKS)} tasks in {time.perf_counter() - t0:.1f} s"
        )
        times = []
        for k in range(args.repeats):
            t0 = time.perf_counter()
            cmp = compare_runs([root / "runs"], root / f"cmp{k}")
            times.append(time.perf_counter() - t0)
            assert (root / f"cmp{k}" / "index.html").is_file() and len(cmp.runs) == len(runs)
        print(
            f"compare_runs over {len(runs)} runs: median {statistics.median(times):.2f} s "
            f"(runs: {', '.join(f'{x:.2f}' for x in times)})"
        )
        for name, secs in steps(runs, root / "steps").items():
            print(f"  {name:<14} {secs:.2f} s")


if __name__ == "__main__":
    main()
