"""BBQ-UK at full size without a model: how long each stage takes and how much memory.

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_bbq_full.py [--pairs 29246] [--boot 1000]

It writes a file shaped like the BBQ-UK release (58,492 rows, tests/families/bbq/bbq_shape.py),
then times, in this process: loading and every check, the requests of
``abc_mean_token_logprob_cyclic_raw_v2`` (three per row), the scripted scorer's answers (what
the model would do; not part of the target), joining them to the rows, scoring with ``--boot``
bootstrap draws, and then two whole runs through ``winoscope.run`` with the run directory and
every report: without the answer store and with it (answers committed in groups, within 50 ms). It
prints the wall and CPU seconds of each (CPU time says more on a shared, loaded machine) and
the peak resident memory; the target is under 60 s and 2 GB for everything but the model.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "families" / "bbq"))

METHOD = "abc_mean_token_logprob_cyclic_raw_v2"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=29246)
    ap.add_argument("--boot", type=int, default=1000)
    args = ap.parse_args()

    from bbq_shape import ScriptedScorer, write_bbq_uk

    import winoscope
    from winoscope.tasks import get_task

    tmp = Path(tempfile.mkdtemp())
    data = write_bbq_uk(tmp / "test.csv", pairs=args.pairs)
    task = get_task("bbq-uk")
    binding = task.protocols[METHOD]
    times: dict[str, float] = {}
    cpu: dict[str, float] = {}

    def timed(name: str, fn):  # type: ignore[no-untyped-def]
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        times[name] = time.perf_counter() - start
        cpu[name] = time.process_time() - start_cpu
        return out

    ds = timed("load", lambda: task.data.load(str(data)))
    issues = timed("checks", lambda: task.data.validate(ds))
    requests = timed("requests", lambda: binding.build_requests(ds, binding.template))
    answers = timed(
        "answers (scripted model)",
        lambda: {r.request_id: r for r in ScriptedScorer().respond(requests)},
    )
    predictions = timed("join answers", lambda: binding.predict(ds, requests, answers))
    timed("score", lambda: task.scorer(predictions, n_boot=args.boot, seed=0))
    for name, store in (("whole run, no store", False), ("whole run, answer store", None)):
        scorer = ScriptedScorer()
        timed(
            name,
            lambda s=scorer, st=store, n=name: winoscope.run(
                "bbq-uk",
                s,
                data=str(data),
                protocol=METHOD,
                n_boot=args.boot,
                out=tmp / n.replace(" ", "_").replace(",", ""),
                store=st,
                quiet=True,
            ),
        )
        times[f"{name}: model's part"] = cpu[f"{name}: model's part"] = _model_time(requests)
    print(f"{len(ds.table)} rows, {ds.table['pair_id'].nunique()} pairs, {len(issues)} findings")
    print(f"{len(requests)} requests, {args.boot} bootstrap draws")
    print(f"{'':40s} {'wall':>9s} {'CPU':>9s}  (load average {os.getloadavg()[0]:.1f})")
    for name, secs in times.items():
        print(f"{name:40s} {secs:7.2f} s {cpu[name]:7.2f} s")
    print(f"{'peak resident memory':40s} {peak_mb():7.0f} MB")


def _model_time(requests: list) -> float:  # type: ignore[type-arg]
    from bbq_shape import ScriptedScorer

    start = time.perf_counter()
    for _ in ScriptedScorer().respond(requests):
        pass
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
