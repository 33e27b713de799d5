"""What a study file names, checked before any job starts and without loading a model.

:func:`check_study` (run by ``study plan``, ``study run`` and ``study merge`` after the file is
read) checks every task name, every task's scorer options and local ``data`` path, every
template (a registered name, a file or template text, of the kind each task's protocol takes),
every model's ``model_args`` keys against the options its backend kind takes, every local path
a model names (``hf:./dir``, checkpoints, adapters) and that adapters go on a base that takes
them. Each mistake is one :class:`~.load.StudyFileError` naming the file and the key, so a
study never fails inside a job for a reason the file already showed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import WinoscopeError
from .grid import Cell
from .load import StudyFileError
from .spec import ModelSpec, Study

#: table files a task's ``data`` may name (anything else may be a hub id)
DATA_SUFFIXES = (".csv", ".tsv", ".jsonl", ".json", ".parquet", ".pq", ".txt", ".conll")


def backend_options() -> dict[str, Sequence[str]]:
    """The options each backend kind declared it takes (a plugin's too, when it declares them)."""
    from ..backends import BACKENDS
    from ..backends.base import BACKEND_OPTIONS

    return {kind: BACKEND_OPTIONS[kind] for kind in BACKENDS.names() if kind in BACKEND_OPTIONS}


def _fail(study: Study, key: str, message: str) -> StudyFileError:
    return StudyFileError(message, file=str(study.source), key=key)


def check_study(study: Study) -> None:
    """Raise :class:`StudyFileError` for the first mistake the module docstring lists."""
    from ..prompt_templates import resolve
    from ..scoring.options import scorer_options
    from ..tasks import get_task

    kinds: dict[str, set[str]] = {}  # task -> the template kinds its protocols take
    for i, t in enumerate(study.tasks):
        try:
            task = get_task(t.name)
        except WinoscopeError as exc:
            raise _fail(study, f"tasks[{i}].name", str(exc)) from None
        try:
            scorer_options(task.name, task.scorer_options, t.scorer_options)
        except WinoscopeError as exc:
            raise _fail(study, f"tasks[{i}].scorer_options", str(exc)) from None
        kinds[t.name] = {b.template_kind for b in task.protocols.values()}
        if t.data is not None and _local(t.data) and not Path(t.data).exists():
            raise _fail(study, f"tasks[{i}].data", f"{t.data}: no such file or folder")
    for j, template in enumerate(study.templates):
        if template is None or template == "default":
            continue
        for name, allowed in kinds.items():
            errors = []
            for kind in sorted(allowed):
                try:
                    resolve(template, kind)
                    break
                except WinoscopeError as exc:
                    errors.append(str(exc))
            else:
                raise _fail(study, f"templates[{j}]", f"for task {name}: {errors[0]}")
    options = backend_options()
    for i, m in enumerate(study.models):
        _check_model(study, m, f"models[{i}]", options)
    _check_run_dirs(study)


def _shown(study: Study, template: str | None) -> str:
    """A template file as the study file names it (relative to its folder), else as given."""
    path = Path(str(template))
    if study.source is not None and path.is_relative_to(study.source.parent):
        return path.relative_to(study.source.parent).as_posix()
    return str(template)


def _check_run_dirs(study: Study) -> None:
    """Two cells never share a run directory: a template file's name, a value or a task name
    made into a folder name can come out the same for two of them (``ta/x.txt`` and
    ``tb/x.txt``; ``"a b"`` and ``"a_b"``), and the second cell's run would be refused there
    on every rerun."""
    from .cells import plan_cells

    seen: dict[Path, Cell] = {}
    for i, job in enumerate(plan_cells(study)):
        for cell in job.cells:
            first = seen.setdefault(cell.run_dir, cell)
            if first is cell:
                continue
            if first.template != cell.template:
                key = f"templates[{study.templates.index(cell.template)}]"
                what = f"the templates {_shown(study, first.template)} and {_shown(study, cell.template)}"
            elif first.value != cell.value:
                key = f"models[{i}].{job.model.kind}"
                what = f"the values {first.value!r} and {cell.value!r}"
            else:
                key = f"tasks[{[t.name for t in study.tasks].index(cell.task)}]"
                what = f"the tasks {first.task} and {cell.task}"
            raise _fail(
                study,
                key,
                f"{what} share one run folder ({cell.run_dir}): cells {first.label} and "
                f"{cell.label}; rename one",
            )


def _local(text: str) -> bool:
    """Whether ``text`` reads as a local path rather than a hub id."""
    return text.startswith((".", "/", "~")) or text.lower().endswith(DATA_SUFFIXES)


def _check_model(
    study: Study, m: ModelSpec, where: str, options: Mapping[str, Sequence[str]]
) -> None:
    specs: dict[str, str] = {}
    if m.points is not None:
        specs = {f"{where}.points.{v}": s for v, s in m.points.items()}
    elif m.spec is not None:
        specs = {f"{where}.spec": m.spec}
    elif m.base is not None:
        specs = {f"{where}.base": m.base}
    for key, spec in specs.items():
        kind, _, name = spec.partition(":")
        known = options.get(kind)
        if known is not None:
            unknown = sorted(set(m.model_args) - set(known))
            if unknown:
                raise _fail(
                    study,
                    f"{where}.model_args.{unknown[0]}",
                    f"{kind} backend: unknown option (known: {', '.join(known) or 'none'})",
                )
        if kind in ("hf", "vllm") and _local(name) and not Path(name).exists():
            raise _fail(study, key, f"{name}: no such model folder")
    if m.checkpoints is not None and not Path(m.checkpoints).is_dir():
        raise _fail(study, f"{where}.checkpoints", f"{m.checkpoints}: no such folder")
    from ..tags import tag_sort_key
    from .cells import model_points

    try:
        points = model_points(m)
    except WinoscopeError as exc:
        raise _fail(study, f"{where}.{m.kind}", str(exc)) from None
    if m.reference is not None and m.reference not in points:
        values = ", ".join(map(str, sorted(points, key=tag_sort_key)))
        raise _fail(
            study, f"{where}.reference", f"{m.reference!r} is not one of the values ({values})"
        )
    if m.adapters is not None:
        from .points import ADAPTER_OPTION

        kind = (m.base or "").partition(":")[0]
        if ADAPTER_OPTION.get(kind) not in options.get(kind, ()):
            takes = ", ".join(
                sorted(k for k, o in ADAPTER_OPTION.items() if o in options.get(k, ()))
            )
            raise _fail(
                study,
                f"{where}.base",
                f"{m.base}: adapters go on a base that takes them ({takes}), not {kind}",
            )
        for v, path in m.adapters.items():
            if not Path(path).exists():
                raise _fail(study, f"{where}.adapters.{v}", f"{path}: no such adapter folder")


def checked(study: Study) -> Study:
    """``study`` after :func:`check_study` (for call chains)."""
    check_study(study)
    return study


__all__ = ["backend_options", "check_study", "checked"]
