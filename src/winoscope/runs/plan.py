"""The first stage of a run: from a :class:`~winoscope.runs.config.RunConfig` to a
:class:`RunPlan`, everything decided before a model is asked.

The plan loads and validates the data (blocking findings stop it, or leave their rows out with
``skip_bad_rows``), makes the backend, chooses the protocol explicitly and checks it against
what the backend answers (:func:`choose_protocol`), resolves the template the protocol's binding
takes, builds the requests by that binding, applies ``limit`` and checks the scorer options against the ones the
task's scorer declares. Nothing here talks to a model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..backends import Backend, create_backend, model_label
from ..backends.base import check_backend
from ..backends.store import STORE_FILE
from ..datasets.base import Dataset, Issue
from ..datasets.validation import BLOCKING_HINT, ValidationFailed, blocking
from ..errors import TaskError
from ..limit import check_limit, limit_run
from ..protocols.cloze import ClozeTemplate
from ..protocols.forced_choice import PromptTemplate, check_failed_policy
from ..records import Request
from ..scoring.options import scorer_options
from ..tags import normalize_tags
from ..tasks import TASKS, Task, get_task
from ..tasks.base import Template, validate_dataset
from .config import RunConfig
from .outcome import check_failed_share, check_statistics
from .run_folder import check_run_folder


@dataclass(frozen=True)
class RunPlan:
    """What a run will ask and how it will score, decided before the model is asked."""

    config: RunConfig
    task: Task
    dataset: Dataset
    issues: list[Issue]
    left_out: dict[str, Any] | None
    backend: Backend
    protocol: str
    template: Template
    requests: list[Request]
    partial: dict[str, Any] | None
    store_path: Path | None
    scorer_options: dict[str, Any]
    tags: dict[str, Any]
    started: float


def choose_protocol(task: Task, backend: Backend, requested: str | None = None) -> str:
    """The protocol a run asks: ``requested`` if given, else the first of the task's bindings
    the backend answers, else a protocol other tasks offer besides their own (cloze) when the
    backend answers it. Either way the task must offer it and the backend must answer it; the
    error says what each can do."""
    offered = list(task.protocols)
    answers = sorted(backend.protocols)
    alternatives = alternative_protocols()

    def answered(p: str) -> bool:
        binding = task.protocols.get(p)
        return (binding.answered_by(p) if binding is not None else p) in backend.protocols

    if requested is not None:
        protocol = requested
    else:
        protocol = next((p for p in offered if answered(p)), None) or next(
            (p for p in alternatives if p in backend.protocols), task.protocol
        )
    if protocol not in offered and protocol in alternatives:
        able = ", ".join(n for n in TASKS.names() if protocol in TASKS.get(n).protocols)
        why = "asked for" if requested is not None else f"the backend's mode is {protocol}"
        other = modes_answering(backend, task.protocol)
        ask = f"ask it in another mode ({other}), or " if other else ""
        raise TaskError(
            f"task {task.name} has no {protocol} protocol ({why}): {ask}run a task with one: {able}"
        )
    if protocol not in offered:
        raise TaskError(f"task {task.name} is asked by {' or '.join(offered)}, not by {protocol}")
    if not answered(protocol):
        asks = task.protocols[protocol].answered_by(protocol)
        mode = f" in mode {backend.mode}" if backend.mode is not None else ""
        other = modes_answering(backend, asks)
        what = protocol if asks == protocol else f"{protocol} protocol (it asks {asks})"
        raise TaskError(
            f"{model_label(backend)}{mode} does not answer the "
            + (f"{protocol} protocol" if asks == protocol else what)
            + f" of task {task.name} (it answers {', '.join(answers) or 'nothing'}"
            + (f"; {other} does" if other else "")
            + ")"
        )
    return protocol


def alternative_protocols() -> list[str]:
    """The protocols registered tasks offer besides their own (a task's bindings after the
    first), in registration order: another way of asking a task, which a backend answering
    none of a task's protocols is taken to want."""
    found: dict[str, None] = {}
    for name in TASKS.names():
        for protocol in list(TASKS.get(name).protocols)[1:]:
            found.setdefault(protocol)
    return list(found)


def modes_answering(backend: Backend, protocol: str) -> str:
    """The ``-M mode=...`` settings under which ``backend`` answers ``protocol``, as text
    (empty when none does, or the backend has no modes)."""
    return " or ".join(
        f"-M mode={m}" for m, answered in backend.modes.items() if protocol in answered
    )


def resolve_template(
    task: Task, backend: Backend, protocol: str, template: str | Path | Template | None
) -> Template:
    """The run's template, of the kind the protocol's binding takes: the one given (an object,
    a registered name, a file or the text), else the binding's default."""
    from ..prompt_templates import check_kind, resolve, template_noun

    binding = task.protocols[protocol]
    kind = binding.template_kind
    if isinstance(template, PromptTemplate | ClozeTemplate):
        check_kind(template, kind, f"{model_label(backend)} has mode {backend.mode!r}")
        return template
    if template is not None and template != "default":  # a registered name, a file or text
        return resolve(template, kind)
    if binding.template is None:
        raise TaskError(f"task {task.name} needs a {template_noun(kind)} template")
    return binding.template


def build_requests(task: Task, ds: Dataset, protocol: str, template: Template) -> list[Request]:
    """The requests of ``protocol``'s binding through ``template``."""
    return task.protocols[protocol].build_requests(ds, template)


def checked_dataset(
    t: Task, ds: Dataset, *, strict: bool, skip_bad_rows: bool
) -> tuple[Dataset, list[Issue], dict[str, Any] | None]:
    """The task's validation on ``ds`` (a run's data or a scored predictions file alike): with
    ``strict`` any finding stops it, blocking findings stop it unless ``skip_bad_rows`` leaves
    their rows out. Returns the dataset to score, the findings and what was left out."""
    issues = validate_dataset(t, ds)
    if strict and issues:
        raise ValidationFailed(issues, ds.source.location)
    kept, left_out = leave_out_blocking(ds, issues, skip_bad_rows)
    return kept, issues, left_out


def leave_out_blocking(
    ds: Dataset, issues: list[Issue], skip_bad_rows: bool
) -> tuple[Dataset, dict[str, Any] | None]:
    """Stop on blocking findings (exit 1), or leave their rows out with ``skip_bad_rows``."""
    from ..datasets.base import leave_out

    stop = blocking(issues)
    if not stop:
        return ds, None
    if not skip_bad_rows:
        raise ValidationFailed(stop, ds.source.location, reason=BLOCKING_HINT)
    kept, info = leave_out(ds, stop)
    if kept.table.empty:
        raise ValidationFailed(stop, ds.source.location, reason="no row is left to score")
    return kept, info


def response_store_path(store: str | Path | bool | None, out: str | Path | None) -> Path | None:
    """Where answers are stored: ``store`` if a path, else ``OUT/responses.sqlite``, else none."""
    if store is False:
        return None
    if store is None or store is True:
        return None if out is None else Path(out) / STORE_FILE
    return Path(store)


def load_data(t: Task, config: RunConfig) -> Dataset:
    """The run's dataset; an already loaded one (several templates over one table) is not read
    again."""
    if isinstance(config.data, Dataset):
        return config.data
    return t.data.load(config.data, revision=config.revision, split=config.split)


def make_backend(config: RunConfig) -> Backend:
    if not isinstance(config.model, str):
        return check_backend(config.model)
    return create_backend(config.model, seed=config.seed, **dict(config.backend_options))


def plan(config: RunConfig) -> RunPlan:
    """Everything decided before the model is asked (the module docstring lists it)."""
    started = time.time()
    run_tags = normalize_tags(config.tags)
    check_failed_share(config.max_failed_share)
    check_statistics(config.n_boot, config.seed)
    check_limit(config.limit)
    t = get_task(config.task) if isinstance(config.task, str) else config.task
    # an unknown policy or scorer option fails before anything is loaded
    check_failed_policy(config.failed)
    options = scorer_options(t.name, t.scorer_options, config.scorer_options)
    ds, issues, left_out = checked_dataset(
        t, load_data(t, config), strict=config.strict, skip_bad_rows=config.skip_bad_rows
    )
    backend = make_backend(config)
    protocol = choose_protocol(t, backend, config.protocol)
    tmpl = resolve_template(t, backend, protocol, config.template)
    requests = build_requests(t, ds, protocol, tmpl)
    partial = None
    if config.limit is not None:  # validation above saw the whole table; the rest sees the part
        ds, requests, partial = limit_run(ds, requests, config.limit, t.strata)
    if config.out is not None:  # before the first request: nothing asked is lost to a write
        runtime = getattr(backend, "runtime", None) or {}
        check_run_folder(
            config.out,
            task=t.name,
            model={"spec": model_label(backend), "runtime": runtime},
            source=ds.source.as_dict(),
            protocol=protocol,
            template_text=getattr(tmpl, "text", None),
            partial=partial,
            overwrite=config.overwrite,
        )
    store_path = response_store_path(config.store, config.out) if backend.cacheable else None
    return RunPlan(
        config=config,
        task=t,
        dataset=ds,
        issues=issues,
        left_out=left_out,
        backend=backend,
        protocol=protocol,
        template=tmpl,
        requests=requests,
        partial=partial,
        store_path=store_path,
        scorer_options=options,
        tags=run_tags,
        started=started,
    )
