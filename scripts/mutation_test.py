"""Mutation testing of the numeric core with cosmic-ray, by module group, two groups at a time.

    python scripts/mutation_test.py [--groups statistics,decision] [--jobs 2] [--out mutation]
    python scripts/mutation_test.py --groups winobias --recheck   # only last run's survivors

Each group is a few modules and the tests written to catch their bugs. A group runs in its own
copy of the committed tree (``git archive HEAD``), with that copy's ``src`` and ``tests`` first
on ``PYTHONPATH`` so the tests import the mutated code (not an editable install), and
cosmic-ray's local distributor (one mutant at a time per group; groups run in parallel, up to
``--jobs``). The unmutated copy must pass its tests first (else every mutant would count as
killed), and every run starts from a fresh copy (a stopped run can leave a mutant in place). Writes ``OUT/<group>.txt`` (cosmic-ray's report: every surviving mutant with its
diff), ``OUT/<group>.sqlite`` (the session, with the mutated modules' digests beside it in
``OUT/<group>.json``) and ``OUT/summary.json`` (mutants, killed, survived, incompetent, timed
out, the score). ``--recheck`` re-runs only a kept session's survivors, after tests were added:
it refuses when the mutated modules changed since.
Not part of the test suite or of ``.ci/run``: it takes minutes per group on two cores.

Needs ``pip install cosmic-ray`` (not a dependency of winoscope).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# group -> (modules to mutate, the tests that target them)
GROUPS: dict[str, tuple[list[str], list[str], str]] = {
    "statistics": (
        ["src/winoscope/scoring/stats.py", "src/winoscope/scoring/bootstrap.py"],
        [
            "tests/scoring/test_stats_by_hand.py",
            "tests/scoring/test_bootstrap_by_hand.py",
            "tests/scoring/test_intervals.py",
            "tests/compare/test_diff.py",
        ],
        "by_hand or weights or ratio or mcnemar or percentile or macro or summary_row "
        "or hand_worked or asymmetric",
    ),
    "decision": (["src/winoscope/scoring/decision.py"], ["tests/scoring/test_decision.py"], ""),
    "paired": (
        ["src/winoscope/scoring/paired.py"],
        ["tests/scoring/test_paired_by_hand.py", "tests/compare/test_diff.py"],
        "by_hand or hand_worked or asymmetric",
    ),
    "winobias": (
        ["src/winoscope/families/winobias/scorer.py"],
        [
            "tests/families/winobias/test_winobias_by_hand.py",
            "tests/families/winobias/test_scoring_winobias.py",
        ],
        "",
    ),
    "stereoset": (
        ["src/winoscope/families/stereoset/scorer.py"],
        ["tests/families/stereoset/test_stereoset_by_hand.py"],
        "",
    ),
    "winobias-controlled": (
        ["src/winoscope/families/winobias_controlled/scorer.py"],
        ["tests/families/winobias_controlled/test_controlled_by_hand.py"],
        "",
    ),
    "winopron": (
        ["src/winoscope/families/winopron/scorer.py"],
        [
            "tests/families/winopron/test_winopron_by_hand.py",
            "tests/families/winopron/test_winopron_scoring.py",
        ],
        "",
    ),
    "swewinogender": (
        [
            "src/winoscope/families/swewinogender/scorer.py",
            "src/winoscope/families/swewinogender/cluster_stats.py",
        ],
        [
            "tests/families/swewinogender/test_swewinogender_by_hand.py",
            "tests/families/swewinogender/test_swewinogender_resolution_by_hand.py",
        ],
        "",
    ),
    "swewinogender-resolution": (
        ["src/winoscope/families/swewinogender/resolution_scorer.py"],
        ["tests/families/swewinogender/test_swewinogender_resolution_by_hand.py"],
        "",
    ),
    "coref-metrics": (
        ["src/winoscope/scoring/coref_metrics.py"],
        ["tests/scoring/test_coref_metrics_by_hand.py", "tests/scoring/test_coref_metrics.py"],
        "",
    ),
    "coref-scoring": (
        ["src/winoscope/scoring/coref.py"],
        ["tests/scoring/test_coref_scoring_by_hand.py"],
        "",
    ),
    "choice-rows": (
        ["src/winoscope/protocols/choice_rows.py"],
        [
            "tests/protocols/test_choice_rows_by_hand.py",
            "tests/protocols/test_forced_choice_uk.py",
            "tests/test_records.py",
        ],
        "",
    ),
    "answers": (
        ["src/winoscope/protocols/answers.py"],
        ["tests/protocols/test_answers_by_hand.py"],
        "",
    ),
    "forced-choice": (
        ["src/winoscope/protocols/forced_choice.py"],
        [
            "tests/protocols/test_forced_choice_by_hand.py",
            "tests/protocols/test_forced_choice_uk.py",
        ],
        "",
    ),
    "cloze": (
        ["src/winoscope/protocols/cloze.py"],
        ["tests/protocols/test_cloze_by_hand.py", "tests/protocols/test_cloze.py"],
        "not unbatched and not full_run and not rescores and not cli_mode",
    ),
    "difference": (
        [
            "src/winoscope/compare/difference.py",
            "src/winoscope/compare/verdicts.py",
            "src/winoscope/compare/pairing.py",
        ],
        ["tests/compare/test_pairing_by_hand.py", "tests/compare/test_diff_by_hand.py"],
        "",
    ),
}


def run_group(name: str, out: Path, timeout: float, recheck: bool = False) -> dict[str, object]:
    modules, tests, selection = GROUPS[name]
    work = Path(tempfile.mkdtemp(prefix=f"mutation-{name}-"))
    archive = subprocess.run(
        ["git", "archive", "HEAD", "src", "tests", "pyproject.toml"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    if selection:
        command += ["-k", selection]
    config = work / "cr.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(modules)}\n"
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(' '.join(_quote(c) for c in command))}\n\n"
        '[cosmic-ray.distributor]\nname = "local"\n',
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=f"{work / 'src'}{os.pathsep}{work / 'tests'}")
    # the copy has no ../shared/data beside it: point the tests at the checkout's
    env.setdefault("WINOSCOPE_SHARED_DATA", str(ROOT.parent / "shared" / "data"))
    # the unmutated copy must pass, or every mutant would count as killed
    baseline = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if baseline.returncode != 0:
        raise SystemExit(f"{name}: the tests fail without a mutant:\n{baseline.stdout[-2000:]}")
    if "skipped" in baseline.stdout.splitlines()[-1]:  # a skipped test kills no mutant
        print(f"{name}: some tests are skipped: {baseline.stdout.splitlines()[-1]}", flush=True)
    session = work / "session.sqlite"
    cr = tool("cosmic-ray")
    digests = {m: hashlib.sha256((work / m).read_bytes()).hexdigest() for m in modules}
    kept, stamp = out / f"{name}.sqlite", out / f"{name}.json"
    if recheck:
        # only the survivors run again; the killed stay killed (valid when only tests were added)
        if not kept.is_file() or json.loads(stamp.read_text(encoding="utf-8")) != digests:
            raise SystemExit(
                f"{name}: no earlier run of these exact modules in {out}; run it whole"
            )
        shutil.copy(kept, session)
        with sqlite3.connect(session) as db:
            db.execute("DELETE FROM work_results WHERE test_outcome = 'SURVIVED'")
    else:
        subprocess.run([cr, "init", str(config), str(session)], cwd=work, env=env, check=True)
        skipped = skip_annotations(session, work)
        print(f"{name}: {skipped} mutants in annotations skipped", flush=True)
    subprocess.run([cr, "exec", str(config), str(session)], cwd=work, env=env, check=True)
    report = subprocess.run(
        [tool("cr-report"), "--show-diff", str(session)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    (out / f"{name}.txt").write_text(report, encoding="utf-8")
    shutil.copy(session, kept)
    stamp.write_text(json.dumps(digests, indent=2), encoding="utf-8")
    return {"group": name, "modules": modules, **tally(session)}


def tool(name: str) -> str:
    """cosmic-ray's command beside this interpreter (a venv not on PATH), else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else shutil.which(name) or name


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions of every annotation: arguments', returns' and variables'."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        found: list[ast.expr | None] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.returns)
        elif isinstance(node, ast.arg | ast.AnnAssign):
            found.append(node.annotation)
        for ann in found:
            if ann is not None and ann.end_lineno is not None and ann.end_col_offset is not None:
                spans.append(((ann.lineno, ann.col_offset), (ann.end_lineno, ann.end_col_offset)))
    return spans


def skip_annotations(session: Path, work: Path) -> int:
    """Mark the mutants inside annotations as skipped, before any runs.

    Every mutated module starts with ``from __future__ import annotations``, so an annotation
    is a string that nothing evaluates at run time: its mutants are equivalent by construction
    (they were 99 of 112 survivors in forced_choice.py). Skipping them saves their run time;
    the summary counts them as ``skipped``.
    """
    from cosmic_ray.work_db import use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans: dict[str, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    job_ids = []
    with use_db(str(session)) as db:
        for item in db.pending_work_items:
            for mutation in item.mutations:
                path = str(mutation.module_path)
                if path not in spans:
                    source = (work / path).read_text(encoding="utf-8")
                    if "from __future__ import annotations" not in source:
                        spans[path] = []  # annotations are evaluated: run their mutants
                    else:
                        spans[path] = annotation_spans(source)
                start = tuple(mutation.start_pos)
                if any(a <= start < b for a, b in spans[path]):
                    job_ids.append(item.job_id)
        if job_ids:
            db.set_multiple_results(
                job_ids,
                WorkResult(output="in an annotation", worker_outcome=WorkerOutcome.SKIPPED),
            )
    return len(job_ids)


def _quote(arg: str) -> str:
    return f"'{arg}'" if " " in arg else arg


def tally(session: Path) -> dict[str, object]:
    """Outcomes from the session database: killed, survived, skipped, incompetent, timed out."""
    db = sqlite3.connect(session)
    rows = db.execute("SELECT worker_outcome, test_outcome FROM work_results").fetchall()
    total = db.execute("SELECT count(*) FROM mutation_specs").fetchone()[0]
    counts = {
        "killed": 0,
        "survived": 0,
        "skipped": 0,
        "incompetent": 0,
        "timeout": 0,
        "abnormal": 0,
    }
    for worker, test in rows:
        worker, test = str(worker).lower(), str(test).lower()
        if "skipped" in worker:
            counts["skipped"] += 1
        elif "timeout" in worker:
            counts["timeout"] += 1
        elif "abnormal" in worker or "exception" in worker:
            counts["abnormal"] += 1
        elif "killed" in test:
            counts["killed"] += 1
        elif "survived" in test:
            counts["survived"] += 1
        else:
            counts["incompetent"] += 1
    done = counts["killed"] + counts["survived"]
    return {
        "mutants": total,
        "run": len(rows),
        **counts,
        "score": round(counts["killed"] / done, 4) if done else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", default=",".join(GROUPS), help="comma-separated group names")
    ap.add_argument("--jobs", type=int, default=2, help="groups run at once (default 2)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    ap.add_argument("--out", type=Path, default=Path("mutation"), help="report folder")
    ap.add_argument(
        "--recheck",
        action="store_true",
        help="re-run only the survivors of the last run in --out (same modules, tests added)",
    )
    args = ap.parse_args(argv)
    names = [g for g in args.groups.split(",") if g]
    unknown = [g for g in names if g not in GROUPS]
    if unknown:
        ap.error(f"unknown group(s) {', '.join(unknown)}; known: {', '.join(GROUPS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(
            pool.map(lambda g: run_group(g, args.out, args.timeout, args.recheck), names)
        )
    summary = args.out / "summary.json"  # one entry per group, the latest run of each
    earlier = json.loads(summary.read_text(encoding="utf-8")) if summary.is_file() else []
    merged = {r["group"]: r for r in [*earlier, *results]}
    summary.write_text(json.dumps(list(merged.values()), indent=2), encoding="utf-8")
    for r in results:
        print(
            f"{r['group']}: {r['killed']} killed, {r['survived']} survived of {r['run']} run "
            f"({r['mutants']} mutants); score {r['score']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
