"""Every task's metrics under every reference baseline, written once and compared later.

A refactoring must leave every number as it was. ``write`` runs each task with each reference
baseline that answers its requests, on the bundled sample and (when given) on the real English
and Swedish data, and writes one ``metrics.csv`` per run under ``OUT``. Beside them, one
``requests__*.jsonl`` per task and data source holds every request of the task's default
prompt, of each built-in prompt or cloze template, in both option orders: id, kind, row, item,
order, prompt, options and content hash. ``check`` does the same into a temporary folder and
compares every file with an earlier ``write``: same files, same rows, same values (exactly;
NaN equals NaN). It exits 1 on the first difference it prints.

Run:
    python scripts/baseline_metrics.py write OUT [--shared-data ../shared/data]
    python scripts/baseline_metrics.py check BEFORE [--shared-data ../shared/data]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from winoscope import run
from winoscope.backends.baselines import PICKERS
from winoscope.backends.nli_baselines import DECIDERS
from winoscope.errors import TaskError
from winoscope.tasks import TASKS

N_BOOT = 200
REAL_DATA = {
    "winobias-en": "winobias-en",
    "winobias-en/coref": "winobias-en/conll_format",
    "winopron-en": "winopron-en",
    "winogender-en": "winogender-en",
    "swewinogender": "swewinogender-v2/swewinogender_test.jsonl",
    "swewinogender/nli": "swewinogender-v2/swewinogender_test.jsonl",
    "swewinogender/resolution": "swewinogender-v2/swewinogender_test.jsonl",
}

# English originals have no bundled sample: their default source is the original repository.
NO_SAMPLE = {"winobias-en", "winobias-en/coref", "winopron-en", "winogender-en"}


def models_for(task: str) -> list[str]:
    if task.startswith("swewinogender") and task != "swewinogender/resolution":
        return [f"nli-baseline:{name}" for name in sorted(DECIDERS)]
    return [f"baseline:{name}" for name in PICKERS]


def jobs(shared: Path | None) -> list[tuple[str, str, str | None]]:
    out: list[tuple[str, str, str | None]] = []
    for task in TASKS.names():
        sources: list[str | None] = [] if task in NO_SAMPLE else [None]
        if shared is not None and task in REAL_DATA and (shared / REAL_DATA[task]).exists():
            sources.append(str(shared / REAL_DATA[task]))
        for data in sources:
            for model in models_for(task):
                out.append((task, model, data))
    return out


def slug(task: str, model: str, data: str | None) -> str:
    where = "sample" if data is None else "real"
    return f"{task.replace('/', '_')}__{model.replace(':', '_')}__{where}.csv"


def write(out: Path, shared: Path | None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    skipped = 0
    for task, model, data in jobs(shared):
        try:
            rr = run(task, model, data=data, n_boot=N_BOOT, seed=0)
        except Exception as exc:  # a baseline that cannot answer this task's requests
            print(f"skip {task} {model} {data or 'sample'}: {exc}", file=sys.stderr)
            skipped += 1
            continue
        rr.metrics.to_csv(out / slug(task, model, data), index=False)
    write_requests(out, shared)
    print(f"wrote {len(list(out.glob('*.csv')))} metrics tables to {out} ({skipped} skipped)")
    return 0


def _templates(t: Any) -> list[tuple[object, Any]]:
    """(template, the requests builder taking it): the task's default, then the built-in
    templates of each protocol it offers."""
    from winoscope.prompt_templates import builtin_for

    found = [(t.primary.template, t.primary.build_requests)]
    for protocol, binding in t.protocols.items():
        with contextlib.suppress(Exception):
            found += [(tmpl, binding.build_requests) for tmpl in builtin_for(t, protocol)]
    return [(x, build) for x, build in found if x is not None]


def write_requests(out: Path, shared: Path | None) -> None:
    """Every request each task builds from each of its sources under each built-in template."""
    for name in TASKS.names():
        t = TASKS.get(name)
        sources: list[str | None] = [] if name in NO_SAMPLE else [None]
        if shared is not None and name in REAL_DATA and (shared / REAL_DATA[name]).exists():
            sources.append(str(shared / REAL_DATA[name]))
        for data in sources:
            try:
                ds = t.data.load(data)
            except Exception as exc:
                print(f"skip requests {name} {data or 'sample'}: {exc}", file=sys.stderr)
                continue
            lines = []
            for tmpl, build in _templates(t):
                try:
                    built = build(ds, tmpl)
                except TaskError as exc:  # a published method that asks its own prompts only
                    print(f"skip requests {name} {getattr(tmpl, 'name', '')}: {exc}", file=sys.stderr)
                    continue
                for r in built:
                    lines.append(
                        json.dumps(
                            {
                                "template": getattr(tmpl, "name", ""),
                                "id": r.request_id,
                                "kind": r.kind,
                                "row": r.row_id,
                                "item": r.item_id,
                                "order": r.order,
                                "prompt": r.prompt,
                                "options": [[o.label, o.text] for o in r.options],
                                "hash": r.content_hash,
                            },
                            ensure_ascii=False,
                        )
                    )
            where = "sample" if data is None else "real"
            target = out / f"requests__{name.replace('/', '_')}__{where}.jsonl"
            target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def check(before: Path, shared: Path | None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        after = Path(tmp)
        write(after, shared)
        for name in sorted(p.name for p in before.glob("requests__*.jsonl")):
            a_lines = (before / name).read_text(encoding="utf-8").splitlines()
            path_after = after / name
            b_lines = (
                path_after.read_text(encoding="utf-8").splitlines() if path_after.exists() else []
            )
            if a_lines != b_lines:
                first = next(
                    (i for i, (x, y) in enumerate(zip(a_lines, b_lines, strict=False)) if x != y),
                    min(len(a_lines), len(b_lines)),
                )
                print(
                    f"{name}: requests differ from line {first + 1} ({len(a_lines)} vs {len(b_lines)})"
                )
                return 1
        n_requests = sum(
            len((before / n).read_text(encoding="utf-8").splitlines())
            for n in (p.name for p in before.glob("requests__*.jsonl"))
        )
        print(
            f"identical requests: {n_requests} in {len(list(before.glob('requests__*.jsonl')))} files"
        )
        names_before = {p.name for p in before.glob("*.csv")}
        names_after = {p.name for p in after.glob("*.csv")}
        if names_before != names_after:
            print(
                f"runs differ: only before {sorted(names_before - names_after)}, "
                f"only after {sorted(names_after - names_before)}"
            )
            return 1
        cells = 0
        for name in sorted(names_before):
            a = pd.read_csv(before / name, keep_default_na=False)
            b = pd.read_csv(after / name, keep_default_na=False)
            if list(a.columns) != list(b.columns) or a.shape != b.shape:
                print(
                    f"{name}: columns or shape differ: {list(a.columns)} {a.shape} vs "
                    f"{list(b.columns)} {b.shape}"
                )
                return 1
            diff = a.astype(str) != b.astype(str)
            if diff.to_numpy().any():
                row, col = next(zip(*diff.to_numpy().nonzero(), strict=False))
                print(
                    f"{name}: row {row}, column {a.columns[col]}: "
                    f"{a.iat[row, col]!r} before, {b.iat[row, col]!r} after"
                )
                return 1
            cells += a.size
        print(f"identical: {len(names_before)} metrics tables, {cells} cells")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["write", "check"])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--shared-data", type=Path, default=None)
    args = ap.parse_args()
    if args.action == "write":
        return write(args.folder, args.shared_data)
    return check(args.folder, args.shared_data)


if __name__ == "__main__":
    raise SystemExit(main())
