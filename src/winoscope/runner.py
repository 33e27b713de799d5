"""The evaluation flow: load -> validate -> requests -> backend -> predictions -> score -> report."""

from __future__ import annotations

import platform
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from ._version import __version__
from .backends import Backend, create_backend, model_label
from .backends.store import STORE_FILE, ResponseStore, plan_run
from .datasets.base import Dataset
from .errors import TaskError
from .progress import track
from .protocols.forced_choice import PromptTemplate
from .records import Request, Response
from .scoring.base import ScoreResult
from .tasks import Task, get_task


@dataclass
class RunResult:
    task: Task
    dataset: Dataset
    predictions: pd.DataFrame
    result: ScoreResult
    manifest: dict[str, Any]
    out_dir: Path | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def metrics(self) -> pd.DataFrame:
        return self.result.metrics


def collect_responses(
    backend: Backend,
    requests: Sequence[Request],
    *,
    quiet: bool = False,
    label: str = "",
    store: ResponseStore | None = None,
    template: Mapping[str, Any] | None = None,
    resume: bool = True,
    counts: dict[str, Any] | None = None,
) -> dict[str, Response]:
    """Ask the backend every request; keep every response (errors included) by request id.

    With a ``store``, answers already stored for this backend, model, parameters and template
    are reused (unless ``resume`` is False) and every new answer is committed as it arrives.
    ``counts`` (if given) receives how many were cached, asked and failed.
    """
    plan = plan_run(backend, requests, store, template=template, resume=resume)
    responses: dict[str, Response] = dict(plan.cached)
    with track(
        label or f"{model_label(backend)}", len(requests), quiet=quiet, completed=len(plan.cached)
    ) as bar:
        for resp in backend.respond(plan.to_ask):
            for r in plan.record(resp):
                responses[r.request_id] = r
                bar.advance(error=r.error is not None)
    if counts is not None:
        counts.update(
            cached=len(plan.cached),
            asked=plan.asked,
            errors=sum(1 for r in responses.values() if r.error is not None),
        )
    return responses


def error_summary(responses: Mapping[str, Response], limit: int = 5) -> list[dict[str, Any]]:
    errs = [r for r in responses.values() if r.error is not None]
    return [{"request_id": r.request_id, "error": r.error} for r in errs[:limit]] + (
        [{"more": len(errs) - limit}] if len(errs) > limit else []
    )


def build_manifest(
    task: Task,
    ds: Dataset,
    backend: Backend,
    template: PromptTemplate | None,
    *,
    seed: int,
    n_boot: int,
    n_requests: int,
    n_errors: int,
    started: float,
) -> dict[str, Any]:
    return {
        "winoscope_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.time() - started, 3),
        "task": task.name,
        "protocol": task.protocol,
        "dataset": ds.describe(),
        "review_status": ds.review_status,
        "model": {
            "spec": model_label(backend),
            "kind": backend.kind,
            "name": backend.model,
            "params": backend.params,
        },
        "prompt_template": None
        if template is None
        else {"name": template.name, "text": template.text},
        "seed": seed,
        "bootstrap": {"replicates": n_boot, "level": 0.95, "resampling_unit": "source item"},
        "requests": n_requests,
        "request_errors": n_errors,
        "python": platform.python_version(),
    }


def run(
    task: str | Task,
    model: str | Backend,
    *,
    data: str | Path | None = None,
    out: str | Path | None = None,
    seed: int = 0,
    template: str | Path | PromptTemplate | None = None,
    n_boot: int = 2000,
    revision: str | None = None,
    split: str | None = None,
    quiet: bool = True,
    backend_options: Mapping[str, Any] | None = None,
    store: str | Path | bool | None = None,
    resume: bool = True,
) -> RunResult:
    """Evaluate ``model`` on ``task`` and (with ``out``) write the run directory.

    >>> r = run("winobias-uk", "baseline:agreement")          # bundled sample   # doctest: +SKIP
    >>> r.metrics.query("split == 'macro'")                                     # doctest: +SKIP

    Answers of cacheable backends are stored in ``OUT/responses.sqlite`` (or the file given as
    ``store``; ``store=False`` disables it) as they arrive, so rerunning into the same directory
    asks only for what is missing; ``resume=False`` asks everything again.
    """
    started = time.time()
    t = get_task(task) if isinstance(task, str) else task
    ds = t.load(data, revision=revision, split=split)
    backend = (
        model
        if not isinstance(model, str)
        else create_backend(model, seed=seed, **dict(backend_options or {}))
    )
    if isinstance(template, PromptTemplate):
        tmpl: PromptTemplate | None = template
    elif template is not None:
        tmpl = PromptTemplate.load(template)
    else:
        tmpl = t.default_template
    if tmpl is None:
        raise TaskError(f"task {t.name} needs a prompt template")
    requests = t.build_requests(ds, tmpl)
    store_path = _store_path(store, out) if getattr(backend, "cacheable", True) else None
    counts: dict[str, Any] = {}
    with _open_store(store_path) as response_store:
        responses = collect_responses(
            backend,
            requests,
            quiet=quiet,
            label=f"{t.name} · {model_label(backend)}",
            store=response_store,
            template={"name": tmpl.name, "text": tmpl.text},
            resume=resume,
            counts=counts,
        )
    predictions = t.predict(ds, requests, responses)
    result = t.score(predictions, n_boot=n_boot, seed=seed)
    n_errors = sum(1 for r in responses.values() if r.error is not None)
    manifest = build_manifest(
        t,
        ds,
        backend,
        tmpl,
        seed=seed,
        n_boot=n_boot,
        n_requests=len(requests),
        n_errors=n_errors,
        started=started,
    )
    manifest["responses"] = {**counts, "store": None if store_path is None else store_path.name}
    rr = RunResult(t, ds, predictions, result, manifest, errors=error_summary(responses))
    if out is not None:
        from .report import write_run

        rr.out_dir = write_run(rr, Path(out))
    return rr


def _store_path(store: str | Path | bool | None, out: str | Path | None) -> Path | None:
    """Where answers are stored: ``store`` if a path, else ``OUT/responses.sqlite``, else none."""
    if store is False:
        return None
    if store is None or store is True:
        return None if out is None else Path(out) / STORE_FILE
    return Path(store)


@contextmanager
def _open_store(path: Path | None) -> Iterator[ResponseStore | None]:
    if path is None:
        yield None
        return
    with ResponseStore(path) as st:
        yield st


def score(
    task: str | Task,
    predictions: str | Path | pd.DataFrame,
    *,
    n_boot: int = 2000,
    seed: int = 0,
) -> ScoreResult:
    """Score predictions made elsewhere: the dataset's rows with the prediction column added."""
    from .datasets.sources import SourceInfo, read_table

    t = get_task(task) if isinstance(task, str) else task
    if isinstance(predictions, pd.DataFrame):
        raw, name = predictions, "predictions"
    else:
        raw, name = read_table(predictions), str(predictions)
    table = raw
    if t.from_frame is not None:
        table = t.from_frame(raw, source=SourceInfo(kind="file", location=name)).table
    return t.score(table, n_boot=n_boot, seed=seed, source=name)
