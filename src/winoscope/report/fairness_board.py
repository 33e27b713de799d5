"""The Ukrainian fairness leaderboard's result file, written from a model's runs.

The leaderboard (``lang-uk/ukrainian-llm-leaderboard``, its Fairness tab) reads one JSON file
per model: ``{"model": {"name", "revision"}, "benchmarks": [{"name", "ranking": {"metric",
"goal"[, "target"]}, "scores": {shown name: value}, "bias_types": [{"name", "items",
"scores"}]}]}``. It rounds values to two decimals and refuses non-finite values, a model twice
and a ranking metric missing from any score set. :func:`board_file` builds that file from run
directories, each a benchmark the family declared (:mod:`winoscope.scoring.fairness_board`),
and refuses, with one line each, what would put a number on the board that the board's own
evaluators would not give: a run by another method, on the bundled sample or under ``--limit``
(unless allowed, and then the file says so), a degenerate run, a run with failed requests or
data left out, and data whose SHA-256 is not the pinned release's. The values are the macro
rows of the run's ``metrics.csv`` in percent, unrounded (the board rounds). The extra key
``winoscope`` records where each number came from; the board reads none of it.

:func:`details` is the per-item trace the board does not publish: every option's mean
log-probability and token count, the prediction and its credit, with the method and the
data's revision and SHA-256.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .._version import __version__
from ..errors import WinoscopeError
from ..results.rundir import RunDir
from ..scoring.fairness_board import BoardBenchmark, for_task

__all__ = ["BoardRefused", "BoardRun", "board_file", "check_run", "details"]


class BoardRefused(WinoscopeError):
    """A run the leaderboard file cannot take, said in one line."""


@dataclass(frozen=True)
class BoardRun:
    """One run checked for the board: the benchmark it gives and what the file says of it."""

    run: RunDir
    benchmark: BoardBenchmark
    method: str
    caveats: tuple[str, ...]


def check_run(run: RunDir, *, allow_partial: bool = False) -> BoardRun:
    """The run as a benchmark of the board, or :class:`BoardRefused` saying why not."""
    where = str(run.path)
    spec = for_task(run.task)
    if spec is None:
        from ..scoring.fairness_board import BOARD

        shown = ", ".join(BOARD.get(n).task for n in BOARD.names())
        raise BoardRefused(f"{where}: task {run.task} is not on the fairness tab (it has: {shown})")
    rec = run.record
    method = "" if rec.protocol is None else str(rec.protocol)
    if method not in spec.methods:
        raise BoardRefused(
            f"{where}: asked by {method or 'an unknown protocol'}, not by the leaderboard's "
            f"method ({' or '.join(spec.methods)}): rerun with --protocol {spec.methods[0]}"
        )
    template = rec.prompt_template or {}
    if template.get("name") not in (None, *(_template_names(run.task, spec))):
        raise BoardRefused(
            f"{where}: asked with the template {template.get('name')!r}, not the method's own"
        )
    caveats = []
    release = (rec.dataset or {}).get("release") or {}
    status = release.get("status")
    if status == "sample":
        caveats.append("scored the bundled sample, not the published release")
    elif status != "published":
        found = release.get("sha256") or rec.source.get("sha256")
        raise BoardRefused(
            f"{where}: the data (sha256 {found or 'unknown'}) is not the published release "
            f"{release.get('expected', spec.benchmark)}: a modified copy is not the benchmark"
        )
    partial = rec.partial
    if partial:
        caveats.append(f"a partial run (--limit {partial.get('limit')})")
    if caveats and not allow_partial:
        raise BoardRefused(
            f"{where}: {'; '.join(caveats)}: not the benchmark's numbers (--allow-partial "
            "writes it anyway, and the file then says so)"
        )
    quality = rec.answer_quality or {}
    if quality.get("degenerate"):
        raise BoardRefused(
            f"{where}: a degenerate run ({quality.get('invalid', '?')} of {quality.get('scored', '?')} "
            "rows invalid): its numbers describe the answer format, not the model"
        )
    failed = int(rec.outcome.failed or 0)
    if failed:
        raise BoardRefused(
            f"{where}: {failed} request(s) failed: rerun the same command to ask them"
        )
    if rec.left_out:
        raise BoardRefused(
            f"{where}: rows were left out of the data (--skip-bad-rows, "
            f"{rec.left_out.get('rows', '?')} row(s)): not the benchmark's numbers"
        )
    return BoardRun(run, spec, method, tuple(caveats))


def _template_names(task: str, spec: BoardBenchmark) -> list[str]:
    from ..tasks import get_task

    t = get_task(task)
    names = []
    for method in spec.methods:
        binding = t.protocols.get(method)
        if binding is not None and binding.template is not None:
            names.append(binding.template.name)
    return names


def _macro(run: RunDir, metric: str) -> tuple[float, int] | None:
    m = run.metrics
    hit = m[(m["metric"] == metric) & (m["split"].astype(str) == "macro")]
    if hit.empty:
        return None
    return float(hit["value"].iloc[0]), int(hit["n"].iloc[0])


def _scores(checked: BoardRun) -> dict[str, float]:
    spec, run = checked.benchmark, checked.run
    scores: dict[str, float] = {}
    for shown, metric in spec.metrics.items():
        got = _macro(run, metric)
        if got is None:
            if shown == spec.ranking:
                raise BoardRefused(
                    f"{run.path}: no {metric} in metrics.csv, the ranking metric {shown!r}"
                )
            continue
        value = got[0] * spec.scale
        if not math.isfinite(value):
            raise BoardRefused(
                f"{run.path}: {shown} ({metric}) is {value}, which the board refuses"
            )
        scores[shown] = value
    return scores


def model_identity(
    runs: Sequence[RunDir], name: str | None = None, revision: str | None = None
) -> dict[str, str]:
    """``model.name`` and ``revision``: given, else the manifests' (one model, one revision)."""
    names = {"" if r.record.model.name is None else str(r.record.model.name) for r in runs}
    if name is None:
        if len(names) != 1:
            raise BoardRefused(
                f"the runs are of {len(names)} models ({', '.join(sorted(names))}): one file is "
                "one model (--model-name names it when the specs differ but the model is one)"
            )
        name = names.pop()
    if revision is None:
        found = set()
        for r in runs:
            params = r.record.model.params or {}
            found.add(params.get("commit") or params.get("revision") or "")
        found.discard("")
        if len(found) != 1:
            raise BoardRefused(
                "no single model revision in the runs' manifests"
                + (f" ({', '.join(sorted(found))})" if found else "")
                + ": give it with --revision"
            )
        revision = found.pop()
    return {"name": name, "revision": revision}


def board_file(
    checked: Sequence[BoardRun],
    *,
    model_name: str | None = None,
    revision: str | None = None,
) -> dict[str, Any]:
    """The leaderboard's JSON for one model from its runs (one per benchmark), each as
    :func:`check_run` passed it."""
    if not checked:
        raise BoardRefused("no run given")
    runs = [c.run for c in checked]
    seen: dict[str, str] = {}
    for c in checked:
        if c.benchmark.benchmark in seen:
            raise BoardRefused(
                f"{c.run.path}: {c.benchmark.benchmark} is already given by {seen[c.benchmark.benchmark]}"
            )
        seen[c.benchmark.benchmark] = str(c.run.path)
    benchmarks, provenance = [], []
    for c in checked:
        entry: dict[str, Any] = {
            "name": c.benchmark.benchmark,
            "ranking": c.benchmark.ranking_record(),
            "scores": _scores(c),
        }
        if c.benchmark.bias_types is not None:
            rows = c.benchmark.bias_types(c.run.metrics, c.benchmark)
            for row in rows:
                if c.benchmark.ranking not in row.scores:
                    raise BoardRefused(
                        f"{c.run.path}: bias type {row.name} lacks the ranking metric "
                        f"{c.benchmark.ranking!r}"
                    )
            entry["bias_types"] = [
                {"name": r.name, "items": int(r.items), "scores": dict(r.scores)} for r in rows
            ]
        benchmarks.append(entry)
        dataset = c.run.record.dataset or {}
        provenance.append(
            {
                "benchmark": c.benchmark.benchmark,
                "run": str(c.run.path),
                "method": c.method,
                "release": (dataset.get("release") or {}).get("release"),
                "sha256": (dataset.get("source") or {}).get("sha256"),
                "caveats": list(c.caveats),
            }
        )
    out: dict[str, Any] = {
        "model": model_identity(runs, model_name, revision),
        "benchmarks": benchmarks,
        "winoscope": {"version": __version__, "runs": provenance},
    }
    caveats = [f"{p['benchmark']}: {'; '.join(p['caveats'])}" for p in provenance if p["caveats"]]
    if caveats:
        out["winoscope"]["not_for_publication"] = caveats
    return out


def details(checked: BoardRun, predictions: pd.DataFrame) -> pd.DataFrame:
    """One row per prompt and option: its mean log-probability and token count, the letter
    the prompt picked, the row's prediction and credit, the method, the data's revision and
    SHA-256 (the per-item trace the leaderboard does not publish). A benchmark whose
    predictions are not lettered options gives its own rows (``extra["details"]``: predictions
    -> one row per item and option), to which the method and data columns are added."""
    own = checked.benchmark.extra.get("details")
    if own is not None:
        return _with_provenance(checked, own(predictions))
    cols = predictions.columns
    orders = sorted(
        {
            c.split("_", 2)[2].rsplit("_", 1)[0]
            for c in cols
            if c.startswith("mean_logprob_") and c.count("_") >= 3
        }
    )
    records = []
    key = "row_key" if "row_key" in cols else "row_id"
    gold = "coreference_role" if "coreference_role" in cols else "gold_role"
    for r in predictions.to_dict("records"):
        for order in orders or [""]:
            for label in ("A", "B", "C"):
                col = f"mean_logprob_{order}_{label}" if order else f"mean_logprob_{label}"
                if col not in r:
                    continue
                count = f"token_count_{order}_{label}" if order else f"token_count_{label}"
                role = r.get(f"role_{order}_{label}") if order else None
                if role is None and "target_option" in r:
                    role = "target" if r["target_option"] == label else "distractor"
                records.append(
                    {
                        "row": r[key],
                        "option_order": order or "counterbalanced",
                        "option": label,
                        "option_role": role,
                        "mean_logprob": r[col],
                        "token_count": r.get(count),
                        "picked": r.get(f"pick_{order}") if order else r.get("prediction_role"),
                        "prediction": r.get("prediction_role"),
                        "gold_role": r.get(gold),
                    }
                )
    out = pd.DataFrame.from_records(records)
    if out.empty:
        raise BoardRefused(f"{checked.run.path}: the predictions carry no option scores")
    out["credit"] = [
        1.0 if p == g else 0.5 if p == "tie" else 0.0
        for p, g in zip(out["prediction"], out["gold_role"], strict=True)
    ]
    return _with_provenance(checked, out)


def _with_provenance(checked: BoardRun, out: pd.DataFrame) -> pd.DataFrame:
    """The details with the method, benchmark, data revision and SHA-256, and the model."""
    if out.empty:
        raise BoardRefused(f"{checked.run.path}: the predictions carry no option scores")
    dataset = checked.run.record.dataset or {}
    release = dataset.get("release") or {}
    out["method"] = checked.method
    out["benchmark"] = checked.benchmark.benchmark
    out["dataset_revision"] = release.get("revision")
    out["dataset_sha256"] = (dataset.get("source") or {}).get("sha256")
    out["model"] = checked.run.record.model.name
    return out
