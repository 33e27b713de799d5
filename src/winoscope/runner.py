"""The evaluation flow: load -> validate -> requests -> backend -> predictions -> score -> report."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from .backends import Backend, create_backend, model_label
from .backends.store import STORE_FILE, ResponseStore, plan_run
from .datasets.base import Dataset, Issue
from .datasets.validation import BLOCKING_HINT, ValidationFailed, blocking, manifest_entry
from .errors import TaskError
from .limit import check_limit, limit_run
from .progress import track
from .protocols.cloze import ORDER_NOTE, ClozeTemplate
from .protocols.forced_choice import PromptTemplate, apply_failed_policy, letter_mass_summary
from .records import Request, Response
from .results import RunResult
from .runner_outcome import build_manifest, check_failed_share, error_summary, run_outcome
from .scoring.base import ScoreResult
from .tasks import TASKS, Task, get_task
from .tasks.base import validate_dataset


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


def run(
    task: str | Task,
    model: str | Backend,
    *,
    data: str | Path | Dataset | None = None,
    out: str | Path | None = None,
    seed: int = 0,
    template: str | Path | PromptTemplate | ClozeTemplate | None = None,
    n_boot: int = 2000,
    revision: str | None = None,
    split: str | None = None,
    quiet: bool = True,
    backend_options: Mapping[str, Any] | None = None,
    store: str | Path | bool | None = None,
    resume: bool = True,
    strict: bool = False,
    keep_unpaired: bool = False,
    failed: str = "exclude",
    labels: str | None = None,
    alpha_invalid: str | None = None,
    max_failed_share: float = 0.0,
    limit: int | None = None,
    tags: Mapping[str, Any] | None = None,
    skip_bad_rows: bool = False,
) -> RunResult:
    """Evaluate ``model`` on ``task`` and (with ``out``) write the run directory.

    >>> r = run("winobias-uk", "baseline:agreement")          # bundled sample   # doctest: +SKIP
    >>> r.metrics.query("split == 'macro'")                                     # doctest: +SKIP

    Answers of cacheable backends are stored in ``OUT/responses.sqlite`` (or the file given as
    ``store``; ``store=False`` disables it) as they arrive, so rerunning into the same directory
    asks only for what is missing; ``resume=False`` asks everything again.

    ``failed`` decides whether a row whose request never got an answer is left out
    (``exclude``) or scored as wrong (``wrong``); the manifest's ``failed_requests`` states
    which, with the counts. ``labels`` and ``alpha_invalid`` choose the SweWinogender label
    convention and how ``invalid`` enters Krippendorff's alpha (see
    :mod:`winoscope.scoring.swewinogender`); other tasks reject them.

    The task's validation runs first; its findings go to the manifest and the reports, and with
    ``strict`` any failing check raises :class:`ValidationFailed` before a model is asked.
    ``keep_unpaired`` keeps items whose variants differ beyond the pronoun in the paired
    metrics (English WinoBias; by default they are left out and counted).

    ``limit`` makes a partial run for a smoke test: the first ``limit`` source items of every
    stratum, with all their variants and option orders (:mod:`winoscope.limit`); the manifest's
    ``partial`` entry and every report say so.

    Findings a run cannot score around (lines that do not parse, duplicated ids, values
    outside the card's: blocking ones) stop it with :class:`ValidationFailed` even without
    ``strict``, unless ``skip_bad_rows`` leaves their rows out (the manifest's ``left_out``).

    ``tags`` record what was done to the model (``{"method": "steer", "alpha": 4}``,
    :mod:`winoscope.tags`): the manifest, the reports, ``show``, ``compare``, ``diff`` and
    sweeps show them; they never key stored answers.
    """
    from .tags import normalize_tags

    started = time.time()
    run_tags = normalize_tags(tags)
    check_failed_share(max_failed_share)
    check_limit(limit)
    t = get_task(task) if isinstance(task, str) else task
    apply_failed_policy(pd.DataFrame(), t.prediction_column, failed)  # an unknown policy fails now
    _conventions(t, labels=labels, alpha_invalid=alpha_invalid)
    # an already loaded dataset (several templates over one table) is not read again
    ds = data if isinstance(data, Dataset) else t.load(data, revision=revision, split=split)
    issues = validate_dataset(t, ds)
    if strict and issues:
        raise ValidationFailed(issues, ds.source.location)
    ds, left_out = _leave_out_blocking(ds, issues, skip_bad_rows)
    backend = (
        model
        if not isinstance(model, str)
        else create_backend(model, seed=seed, **dict(backend_options or {}))
    )
    cloze_mode = str(backend.params.get("mode", "")) == "cloze"
    tmpl: PromptTemplate | ClozeTemplate | None
    if cloze_mode:
        tmpl, requests = _cloze_requests(t, ds, template)
    else:
        if isinstance(template, PromptTemplate):
            tmpl = template
        elif isinstance(template, ClozeTemplate):
            raise TaskError(
                f"cloze template '{template.name}' needs a backend in mode=cloze "
                f"({model_label(backend)} has mode {backend.params.get('mode', 'none')!r})"
            )
        elif template is not None:  # a registered name, a file or the text
            from .prompt_templates import resolve, task_kind

            tmpl = resolve(template, task_kind(t, cloze_mode=False))
            assert isinstance(tmpl, PromptTemplate)
        else:
            tmpl = t.default_template
        if tmpl is None:
            raise TaskError(f"task {t.name} needs a prompt template")
        requests = t.build_requests(ds, tmpl)
    partial = None
    if limit is not None:  # validation above saw the whole table; the rest sees the part
        ds, requests, partial = limit_run(ds, requests, limit)
    store_path = response_store_path(store, out) if getattr(backend, "cacheable", True) else None
    counts: dict[str, Any] = {}
    with open_store(store_path) as response_store:
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
    to_score, unanswered = apply_failed_policy(predictions, t.prediction_column, failed)
    if len(to_score) == len(predictions):  # coref rows dropped for scoring stay in the output
        predictions = to_score
    result = t.score(
        to_score,
        n_boot=n_boot,
        seed=seed,
        **_score_options(t, keep_unpaired=keep_unpaired),
        **_conventions(t, labels=labels, alpha_invalid=alpha_invalid),
    )
    result.validation = issues
    if t.resampling_unit:
        result.settings["resampling_unit"] = t.resampling_unit
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
        settings=result.settings,
    )
    manifest["tags"] = run_tags
    manifest["responses"] = {**counts, "store": None if store_path is None else store_path.name}
    if store_path is None:
        manifest["responses"]["not_stored"] = _why_not_stored(backend, out, store)
    mass = letter_mass_summary(responses.values())
    if mass is not None:  # instruct models that do not answer with the offered letters show
        manifest["letter_mass"] = mass
    manifest["outcome"] = run_outcome(responses, len(requests), max_failed_share)
    transport = getattr(backend, "transport_info", None)
    if callable(transport):
        manifest["transport"] = transport()
    if isinstance(tmpl, ClozeTemplate):
        manifest.update(protocol="cloze", prompt_template=tmpl.describe())
        manifest["protocol_notes"] = [ORDER_NOTE]
    manifest["validation"] = manifest_entry(issues)
    if partial is not None:
        manifest["partial"] = partial
    if left_out is not None:
        manifest["left_out"] = left_out
    manifest["failed_requests"] = {"policy": failed, "requests": n_errors, "rows": unanswered}
    if result.settings.get("conventions"):
        manifest["conventions"] = result.settings["conventions"]
    report = getattr(backend, "output_report", None)
    if callable(report):
        manifest["resolver_output"] = report()
    rr = RunResult(
        t, ds, predictions, result, manifest, errors=error_summary(responses), validation=issues
    )
    if out is not None:
        from .report import write_run

        rr.out_dir = write_run(rr, Path(out))
    return rr


def _leave_out_blocking(
    ds: Dataset, issues: Sequence[Issue], skip_bad_rows: bool
) -> tuple[Dataset, dict[str, Any] | None]:
    """Stop on blocking findings (exit 1), or leave their rows out with ``skip_bad_rows``."""
    from .datasets.base import leave_out

    stop = blocking(issues)
    if not stop:
        return ds, None
    if not skip_bad_rows:
        raise ValidationFailed(stop, ds.source.location, reason=BLOCKING_HINT)
    kept, info = leave_out(ds, stop)
    if kept.table.empty:
        raise ValidationFailed(stop, ds.source.location, reason="no row is left to score")
    return kept, info


def _why_not_stored(backend: Backend, out: str | Path | None, store: Any) -> str:
    if not backend.cacheable:
        runtime = getattr(backend, "runtime", None) or {}
        return str(runtime.get("store") or "the backend's answers cost nothing to recompute")
    if store is False:
        return "store=False"
    return "no run directory (out) and no store file given"


def _score_options(t: Task, **options: Any) -> dict[str, Any]:
    """The options the task's scorer accepts (scorers differ: only paired ones take
    ``keep_unpaired``)."""
    import inspect

    params = inspect.signature(t.score).parameters
    return {k: v for k, v in options.items() if k in params}


def _cloze_requests(
    t: Task, ds: Dataset, template: str | Path | PromptTemplate | ClozeTemplate | None
) -> tuple[ClozeTemplate, list[Request]]:
    """The cloze requests of a backend in ``mode=cloze``: the task's cloze template, or the
    one given (a :class:`ClozeTemplate`, its text or a file)."""
    if t.build_cloze_requests is None:
        able = ", ".join(n for n in TASKS.names() if TASKS.get(n).build_cloze_requests)
        raise TaskError(
            f"task {t.name} has no cloze protocol (the backend's mode is cloze): ask it with "
            f"another mode (-M mode=texts or -M mode=letters), or run a task with one: {able}"
        )
    if isinstance(template, PromptTemplate):
        raise TaskError(
            f"prompt template '{template.name}' is a lettered prompt; mode=cloze takes a cloze "
            "template ending in {candidate}"
        )
    if isinstance(template, ClozeTemplate):
        tmpl = template
    elif template is not None:  # a registered name, a file or the text
        from .prompt_templates import resolve

        found = resolve(template, "cloze")
        assert isinstance(found, ClozeTemplate)
        tmpl = found
    elif t.cloze_template is not None:
        tmpl = t.cloze_template
    else:
        raise TaskError(f"task {t.name} needs a cloze template")
    return tmpl, t.build_cloze_requests(ds, tmpl)


def _conventions(t: Task, **options: str | None) -> dict[str, str]:
    """Scoring conventions given explicitly; a task whose scorer has no such switch refuses."""
    import inspect

    from .scoring.swewinogender import ALPHA_INVALID, LABEL_CONVENTIONS

    given = {k: v for k, v in options.items() if v is not None}
    params = inspect.signature(t.score).parameters
    unknown = [k for k in given if k not in params]
    if unknown:
        flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
        raise TaskError(f"task {t.name} has no {flags} option (only SweWinogender's NLI view)")
    allowed = {"labels": LABEL_CONVENTIONS, "alpha_invalid": ALPHA_INVALID}
    for key, value in given.items():
        if key in allowed and value not in allowed[key]:
            flag = "--" + key.replace("_", "-")
            raise TaskError(f"{flag} {value!r}: choose {' or '.join(allowed[key])}")
    return given


def response_store_path(store: str | Path | bool | None, out: str | Path | None) -> Path | None:
    """Where answers are stored: ``store`` if a path, else ``OUT/responses.sqlite``, else none."""
    if store is False:
        return None
    if store is None or store is True:
        return None if out is None else Path(out) / STORE_FILE
    return Path(store)


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
    keep_unpaired: bool = False,
    failed: str = "exclude",
    labels: str | None = None,
    alpha_invalid: str | None = None,
    skip_bad_rows: bool = False,
) -> ScoreResult:
    """Score predictions made elsewhere: the dataset's rows with the prediction column added.

    The task's validation runs on the rows first (``result.validation``; ``strict`` raises
    :class:`ValidationFailed` on any failing check before scoring). An empty prediction cell
    is a request that never got an answer: ``failed`` leaves it out or scores it as wrong
    (``result.settings["failed_requests"]``). SweWinogender's label convention defaults to
    SuperLim's (``labels="superlim"``) here, where the predictions are usually a SuperLim
    submission."""
    from .datasets.sources import SourceInfo, read_table

    t = get_task(task) if isinstance(task, str) else task
    apply_failed_policy(pd.DataFrame(), t.prediction_column, failed)  # an unknown policy fails now
    conventions = _conventions(t, labels=labels, alpha_invalid=alpha_invalid)
    if isinstance(predictions, pd.DataFrame):
        raw, name = predictions, "predictions"
    else:
        raw, name = read_table(predictions), str(predictions)
    table = raw
    issues: list[Issue] = []
    left_out: dict[str, Any] | None = None
    if t.from_frame is not None:
        ds = t.from_frame(raw, source=SourceInfo(kind="file", location=name))
        issues = validate_dataset(t, ds)
        if strict and issues:
            raise ValidationFailed(issues, name)
        ds, left_out = _leave_out_blocking(ds, issues, skip_bad_rows)
        table = ds.table
    table, unanswered = apply_failed_policy(table, t.prediction_column, failed)
    if "labels" in inspect_params(t.score):
        conventions.setdefault("labels", "superlim")
    result = t.score(
        table,
        n_boot=n_boot,
        seed=seed,
        source=name,
        **_score_options(t, keep_unpaired=keep_unpaired),
        **conventions,
    )
    result.validation = issues
    if t.resampling_unit:
        result.settings["resampling_unit"] = t.resampling_unit
    result.settings["failed_requests"] = {"policy": failed, "rows": unanswered}
    if left_out is not None:
        result.settings["left_out"] = left_out
    return result


def inspect_params(fn: Any) -> Any:
    import inspect

    return inspect.signature(fn).parameters
