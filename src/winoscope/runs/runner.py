"""The evaluation flow as stages: plan -> ask -> predict -> score -> record.

:func:`run` takes a :class:`~winoscope.runs.config.RunConfig` (or its settings as keywords) and
passes it through five stages, each returning a typed record: :func:`~winoscope.runs.plan.plan`
(a :class:`~winoscope.runs.plan.RunPlan`: data, backend, protocol, template, requests),
:func:`ask` (:class:`~winoscope.runs.record.Answers`), :func:`predict`
(:class:`~winoscope.runs.record.Predicted`), :func:`score_answers` (the scorer's
:class:`~winoscope.scoring.base.ScoreResult`) and :func:`record` (the
:class:`~winoscope.results.run.RunResult`, its manifest built once from the records, and the run
directory when ``out`` is given).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from ..backends import Backend, close_backend, model_label
from ..backends.store import ResponseStore, plan_run
from ..datasets.base import Dataset, Issue
from ..progress import track
from ..protocols.cloze import ClozeTemplate
from ..protocols.forced_choice import PromptTemplate, apply_failed_policy, check_failed_policy
from ..records import Request, Response
from ..results.run import RunResult
from ..scoring.base import ScoreResult
from ..scoring.options import scorer_options as checked_scorer_options
from ..tasks import Task, get_task
from .config import RUN_DEFAULTS, RunConfig
from .outcome import error_summary
from .plan import RunPlan, checked_dataset, plan, response_store_path
from .record import Answers, Predicted, run_record

__all__ = [
    "RunConfig",
    "ask",
    "collect_responses",
    "plan",
    "predict",
    "record",
    "response_store_path",
    "run",
    "score",
    "score_answers",
]


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


def ask(p: RunPlan) -> Answers:
    """Ask the plan's requests (stored answers reused, new ones stored as they arrive)."""
    counts: dict[str, Any] = {}
    with open_store(p.store_path) as response_store:
        responses = collect_responses(
            p.backend,
            p.requests,
            quiet=p.config.quiet,
            label=f"{p.task.name} · {model_label(p.backend)}",
            store=response_store,
            template={"name": p.template.name, "text": p.template.text},
            resume=p.config.resume,
            counts=counts,
        )
    return Answers(responses, counts)


def predict(p: RunPlan, answers: Answers) -> Predicted:
    """Join the answers to the rows and apply the failed-request policy."""
    binding = p.task.protocols[p.protocol]
    predictions = binding.predict(p.dataset, p.requests, answers.responses)
    to_score, unanswered = apply_failed_policy(
        predictions, binding.prediction_column, p.config.failed
    )
    if len(to_score) == len(predictions):  # coref rows dropped for scoring stay in the output
        predictions = to_score
    return Predicted(predictions, to_score, unanswered)


def score_answers(p: RunPlan, predicted: Predicted) -> ScoreResult:
    """The task's scorer on the predicted rows, with the plan's scorer options."""
    result = p.task.scorer(
        predicted.to_score, n_boot=p.config.n_boot, seed=p.config.seed, **p.scorer_options
    )
    result.validation = p.issues
    if p.task.resampling_unit:
        result.settings["resampling_unit"] = p.task.resampling_unit
    return result


def record(p: RunPlan, answers: Answers, predicted: Predicted, result: ScoreResult) -> RunResult:
    """The run's result with its manifest; the run directory too when ``out`` is given."""
    manifest = run_record(p, answers, predicted, result).to_json()
    rr = RunResult(
        p.task,
        p.dataset,
        predicted.predictions,
        result,
        manifest,
        errors=error_summary(answers.responses),
        validation=p.issues,
    )
    if p.config.out is not None:
        from ..report import write_run

        rr.out_dir = write_run(rr, Path(p.config.out))
    return rr


def run(
    task: str | Task | RunConfig,
    model: str | Backend | None = None,
    *,
    data: str | Path | Dataset | None = None,
    out: str | Path | None = None,
    seed: int = 0,
    template: str | Path | PromptTemplate | ClozeTemplate | None = None,
    protocol: str | None = None,
    n_boot: int = 2000,
    revision: str | None = None,
    split: str | None = None,
    quiet: bool = True,
    backend_options: Mapping[str, Any] | None = None,
    scorer_options: Mapping[str, Any] | None = None,
    store: str | Path | bool | None = None,
    resume: bool = True,
    strict: bool = False,
    failed: str = "exclude",
    max_failed_share: float = 0.0,
    limit: int | None = None,
    tags: Mapping[str, Any] | None = None,
    skip_bad_rows: bool = False,
    overwrite: bool = False,
) -> RunResult:
    """Evaluate ``model`` on ``task`` and (with ``out``) write the run directory.

    >>> r = run("winobias-uk", "baseline:agreement")          # bundled sample   # doctest: +SKIP
    >>> r.metrics.query("split == 'macro'")                                     # doctest: +SKIP
    >>> r = run(RunConfig("winobias-uk", "baseline:agreement", n_boot=500))     # doctest: +SKIP

    The settings are those of :class:`~winoscope.runs.config.RunConfig` (a run given one takes
    no settings beside it: change them with ``config.but(...)``):

    Answers of cacheable backends are stored in ``OUT/responses.sqlite`` (or the file given as
    ``store``; ``store=False`` disables it) as they arrive, so rerunning into the same directory
    asks only for what is missing; ``resume=False`` asks everything again.

    ``failed`` decides whether a row whose request never got an answer is left out
    (``exclude``) or scored as wrong (``wrong``); the manifest's ``failed_requests`` states
    which, with the counts. ``scorer_options`` are the options the task's scorer declares
    (``{"keep_unpaired": True}`` for English WinoBias, ``{"labels": "superlim"}`` for
    SweWinogender's NLI view; ``winoscope tasks`` lists them); an option it does not declare is
    an error naming the ones it does.

    The task's validation runs first; its findings go to the manifest and the reports, and with
    ``strict`` any failing check raises :class:`ValidationFailed` before a model is asked.
    Findings a run cannot score around (lines that do not parse, duplicated ids, values
    outside the card's: blocking ones) stop it with :class:`ValidationFailed` even without
    ``strict``, unless ``skip_bad_rows`` leaves their rows out (the manifest's ``left_out``).

    ``protocol`` asks the task by a protocol of its own explicitly (``cloze`` for a task with
    cloze continuations); by default the task's protocol, or cloze for a backend in
    ``mode=cloze``. ``limit`` makes a partial run for a smoke test: the first ``limit`` source
    items of every stratum, with all their variants and option orders (:mod:`winoscope.limit`);
    the manifest's ``partial`` entry and every report say so.

    A run directory that holds a run of another task or model (another spec, checkpoint
    fingerprint, live weights or adapter) is not overwritten: :class:`TaskError` names both,
    unless ``overwrite=True``; rerunning the same run into it resumes.

    A backend the run makes from a spec (``"vllm:DIR"``) is closed once its requests are asked
    (``close_backend``: ``vllm:``'s engine shut down), also when asking stops with an error or
    Ctrl-C; a backend object passed in is its maker's to close, and may serve several runs.

    ``tags`` record what was done to the model (``{"method": "steer", "alpha": 4}``,
    :mod:`winoscope.tags`): the manifest, the reports, ``show``, ``compare``, ``diff`` and
    sweeps show them; they never key stored answers.
    """
    settings: dict[str, Any] = {
        "data": data, "out": out, "seed": seed, "template": template, "protocol": protocol,
        "n_boot": n_boot, "revision": revision, "split": split, "quiet": quiet,
        "backend_options": backend_options or {}, "scorer_options": scorer_options or {},
        "store": store, "resume": resume, "strict": strict, "failed": failed,
        "max_failed_share": max_failed_share, "limit": limit, "tags": tags,
        "skip_bad_rows": skip_bad_rows, "overwrite": overwrite,
    }  # fmt: skip
    if isinstance(task, RunConfig):
        if model is not None:
            raise TypeError("run(config) takes no model: it is the config's")
        given = sorted(k for k, v in settings.items() if v != RUN_DEFAULTS[k])
        if given:
            raise TypeError(
                f"run(config) takes its settings from the config, not {', '.join(given)}: "
                "use run(config.but(...))"
            )
        config = task
    else:
        if model is None:
            raise TypeError("run() needs a task and a model (or one RunConfig)")
        config = RunConfig(task, model, **settings)
    p = plan(config)
    try:
        answers = ask(p)
    finally:  # a backend the run made from a spec is the run's: released however asking ends
        if isinstance(config.model, str):
            close_backend(p.backend)
    predicted = predict(p, answers)
    result = score_answers(p, predicted)
    return record(p, answers, predicted, result)


@contextmanager
def open_store(path: Path | None) -> Iterator[ResponseStore | None]:
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
    strict: bool = False,
    failed: str = "exclude",
    scorer_options: Mapping[str, Any] | None = None,
    skip_bad_rows: bool = False,
) -> ScoreResult:
    """Score predictions made elsewhere: the dataset's rows with the prediction column added.

    The task's validation runs on the rows first (``result.validation``; ``strict`` raises
    :class:`ValidationFailed` on any failing check before scoring). An empty prediction cell
    is a request that never got an answer: ``failed`` leaves it out or scores it as wrong
    (``result.settings["failed_requests"]``: ``rows`` without a prediction, ``answered``
    with one). ``scorer_options`` as for :func:`run`; an option
    whose declared default differs for predictions made elsewhere takes that default here
    (SweWinogender's label convention is SuperLim's, ``labels="superlim"``, as a SuperLim
    submission is read)."""
    from ..datasets.sources import SourceInfo, read_table

    t = get_task(task) if isinstance(task, str) else task
    check_failed_policy(failed)  # an unknown policy fails before the file is read
    options = checked_scorer_options(t.name, t.scorer_options, scorer_options, scoring_file=True)
    if isinstance(predictions, pd.DataFrame):
        raw, name = predictions, "predictions"
    else:
        raw, name = read_table(predictions), str(predictions)
    table = raw
    issues: list[Issue] = []
    left_out: dict[str, Any] | None = None
    if t.data.from_frame is not None:
        ds = t.data.from_frame(raw, source=SourceInfo(kind="file", location=name))
        ds, issues, left_out = checked_dataset(t, ds, strict=strict, skip_bad_rows=skip_bad_rows)
        table = ds.table
    n_rows = len(table)
    table, unanswered = apply_failed_policy(table, t.primary.prediction_column, failed)
    result = t.scorer(table, n_boot=n_boot, seed=seed, source=name, **options)
    result.validation = issues
    if t.resampling_unit:
        result.settings["resampling_unit"] = t.resampling_unit
    result.settings["failed_requests"] = {
        "policy": failed,
        "rows": unanswered,
        "answered": n_rows - unanswered,
    }
    if left_out is not None:
        result.settings["left_out"] = left_out
    return result
