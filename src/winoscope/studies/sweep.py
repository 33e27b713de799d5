"""An intervention swept over its strength: one run per point, compared with the reference.

``sweep(tasks, points, key="alpha", reference=0, out=DIR)`` runs every task at every point
(``points`` maps the swept value to a backend or a model spec, or is a callable
``make(value)`` so that one loaded base model serves every point by changing only its hooks or
adapter), then compares each point with the reference point (usually the base model):

- every headline metric (the task's declared signed gaps and its overall score) with its 95%
  interval at every point;
- the paired difference to the reference, ``point - reference``, with the paired bootstrap of
  :func:`winoscope.diff` (both runs scored on the same resamples; for a signed gap also the
  change of its size ``|point| - |reference|``), and Holm's adjustment across the sweep's
  points for each metric: the family is "this metric changed at some strength";
- a utility number per point: the task's own overall score (default; a task without one, such
  as WinoPron, its first headline score), the same of a second task run at every point
  (``utility="winobias-uk"``), or numbers the user measured
  elsewhere (a CSV with columns ``point`` and ``utility``, or a mapping value -> number).

``make(value)`` may return a backend, or a context manager that yields one (register the
hooks on entry, remove them on exit): the sweep enters it for the point's runs and leaves it
before the next point. Each point is written to ``OUT/<task>/<key>=<value>/`` with its own
response store, tagged ``{key: value}``, so a stopped sweep resumes point by point: a point
whose answers are stored asks nothing again (as long as its model's identity is the same).
The sweep page is :mod:`winoscope.report.sweep_page`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import RequestsFailed, TaskError
from ..results.run import SweepResult
from ..runs.config import RUN_DEFAULTS, RunConfig
from ..tags import normalize_tags, tag_sort_key, tag_value
from .grid import Cell, cell_dir, point_dir_name, run_cells
from .points import Point
from .sweep_tables import AnyRun

PointSource = Mapping[Any, Any] | Callable[[Any], Any]


def _task_name(t: Any) -> str:
    return t if isinstance(t, str) else str(t.name)


def _point_values(points: PointSource, values: Sequence[Any] | None) -> list[Any]:
    if isinstance(points, Mapping):
        if values is not None:
            raise TaskError("sweep: give values= only with a callable make(value)")
        found = list(points)
    elif callable(points):
        if not values:
            raise TaskError("sweep: a callable make(value) needs values=[...] to call it with")
        found = list(values)
    else:
        raise TaskError("sweep: points must map values to backends, or be make(value)")
    if not found:
        raise TaskError("sweep: no points")
    typed = [tag_value(v) if isinstance(v, str) else v for v in found]
    names = [point_dir_name("p", v) for v in typed]
    if len(set(names)) != len(names):
        raise TaskError(f"sweep: two points share a value ({', '.join(map(str, typed))})")
    return found


def _cell_number(record: Mapping[str, Any], field: str, path: Path, row: int) -> float:
    """A utility file's number in ``field`` (NaN where the optional column is absent)."""
    from ..errors import DatasetError

    if field not in record:
        return math.nan
    if not str(record[field]).strip():
        if field != "utility":  # an interval bound left empty: none given
            return math.nan
        raise DatasetError("an empty cell; give a number", file=str(path), row=row, field=field)
    try:
        return float(record[field])
    except (TypeError, ValueError):
        raise DatasetError(
            f"expected a number, got {record[field]!r}", file=str(path), row=row, field=field
        ) from None


def _utility_numbers(
    utility: Any, values: Sequence[Any], key: str
) -> tuple[dict[Any, tuple[float, float, float]], str] | None:
    """Per-point numbers the user supplies: a mapping, or a CSV (``point``/``KEY``,
    ``utility``, optional ``ci_low``/``ci_high``)."""
    if isinstance(utility, Mapping):
        raw: dict[Any, Any] = {}
        keys: dict[Any, Any] = {}
        for k, v in utility.items():
            typed = tag_value(k) if isinstance(k, str) else k
            if typed in raw:
                raise TaskError(
                    f"sweep: utility gives points {keys[typed]!r} and {k!r}, one value; give "
                    "each once"
                )
            raw[typed], keys[typed] = v, k
        source = "given per point"
    elif isinstance(utility, str | Path) and (
        str(utility).endswith(".csv") or Path(str(utility)).is_file()
    ):
        from ..datasets.sources import read_table
        from ..errors import DatasetError

        path = Path(str(utility))
        if not path.is_file():
            raise DatasetError("no such utility file", file=str(path))
        # the data files' reader: an empty, undecodable or unparsable file is one clear error
        frame = read_table(path)
        col = "point" if "point" in frame.columns else key
        for need in (col, "utility"):
            if need not in frame.columns:
                raise DatasetError(
                    f"expected columns point (or {key}) and utility", file=str(path), field=need
                )
        raw = {}
        rows: dict[Any, int] = {}  # value -> the row that gave it
        for i, r in enumerate(frame.to_dict("records"), start=2):
            if not str(r[col]).strip():
                raise DatasetError(
                    "an empty point; give its value", file=str(path), row=i, field=col
                )
            value = tag_value(str(r[col]))
            if value in rows:  # 1 and 1.0 are one value, as everywhere in a sweep
                raise DatasetError(
                    f"point {r[col]!r} is the value of row {rows[value]} again; give each "
                    "point once",
                    file=str(path),
                    row=i,
                    field=col,
                )
            rows[value] = i
            numbers = [_cell_number(r, f, path, i) for f in ("utility", "ci_low", "ci_high")]
            if not math.isfinite(numbers[0]):
                raise DatasetError(
                    f"expected a number, got {r['utility']!r}",
                    file=str(path),
                    row=i,
                    field="utility",
                )
            raw[value] = (numbers[0], numbers[1], numbers[2])
        source = str(path)
    else:
        return None
    out: dict[Any, tuple[float, float, float]] = {}
    for v in values:
        k = tag_value(v) if isinstance(v, str) else v
        if k not in raw:
            raise TaskError(f"sweep: the utility numbers have no value for point {v!r}")
        got = raw[k]
        out[v] = got if isinstance(got, tuple) else (float(got), math.nan, math.nan)
    return out, source


def _answered(rr: AnyRun) -> bool:
    """Whether any request of the run was answered (a run with none has no metrics)."""
    outcome = rr.record.outcome
    return bool(1 if outcome.answered is None else outcome.answered) or not outcome.requests


def sweep(
    tasks: Any,
    points: PointSource,
    *,
    out: str | Path,
    key: str = "alpha",
    values: Sequence[Any] | None = None,
    reference: Any = None,
    utility: Any = None,
    tags: Mapping[str, Any] | None = None,
    n_boot: int | None = None,
    seed: int | None = None,
    quiet: bool = True,
    config: RunConfig | None = None,
    reference_reason: str | None = None,
    data: str | Path | Any = None,
    template: Any = None,
    protocol: str | None = None,
    revision: str | None = None,
    split: str | None = None,
    backend_options: Mapping[str, Any] | None = None,
    scorer_options: Mapping[str, Any] | None = None,
    resume: bool = True,
    strict: bool = False,
    failed: str = "exclude",
    max_failed_share: float = 0.0,
    limit: int | None = None,
    skip_bad_rows: bool = False,
    overwrite: bool = False,
) -> SweepResult:
    """Run ``tasks`` at every point and compare each point with ``reference`` (module doc).

    >>> def steered(alpha):                                               # doctest: +SKIP
    ...     return add_hook_and_wrap(model, alpha)                         # your hook
    >>> s = winoscope.sweep("winobias-uk", steered, values=[0, 2, 4, 8],  # doctest: +SKIP
    ...                     key="alpha", reference=0, out="sweeps/steer")

    ``data`` ... ``overwrite`` are :func:`winoscope.run`'s settings of the same names, given to
    every point's runs (``backend_options`` also to the backend a point's spec makes); or
    ``config`` (a :class:`~winoscope.runs.config.RunConfig`) gives every point's settings, its
    task, model, ``out`` and tags replaced by the point's (then ``n_boot``, ``seed`` and those
    settings are the config's to give: given here as well, they are refused rather than one
    silently winning); ``n_boot`` is 2,000 and ``seed`` 0 unless given. ``tags`` are added to
    every point's own ``{key: value}``. ``reference_reason`` says why the reference is the
    reference on the page (default: ``given as reference`` or ``the first point given``).
    """
    from ..runs.runner import run
    from ..tags import check_key

    started = time.time()
    settings = {
        "data": data, "template": template, "protocol": protocol, "revision": revision,
        "split": split, "backend_options": backend_options or {},
        "scorer_options": scorer_options or {}, "resume": resume, "strict": strict,
        "failed": failed, "max_failed_share": max_failed_share, "limit": limit,
        "skip_bad_rows": skip_bad_rows, "overwrite": overwrite,
    }  # fmt: skip
    # the settings given (not at run's default): passed to every point's run
    run_options = {k: v for k, v in settings.items() if v != RUN_DEFAULTS[k]}
    if config is not None:
        both = [k for k, v in (("n_boot", n_boot), ("seed", seed)) if v is not None]
        both += sorted(run_options)
        if both:
            raise TaskError(
                f"sweep: {', '.join(both)} given beside config=; set them in the RunConfig "
                "(config.but(...)) or leave config out"
            )
        n_boot, seed = config.n_boot, config.seed
    n_boot = 2000 if n_boot is None else n_boot
    seed = 0 if seed is None else seed
    check_key(key)
    if key == "model":
        raise TaskError("sweep: model is the tag naming each run's model; name the value otherwise")
    extra = normalize_tags(tags)
    if key in extra:
        raise TaskError(f"sweep: tag {key} is the swept value; leave it out of tags")
    task_list = list(tasks) if isinstance(tasks, list | tuple) else [tasks]
    if not task_list:
        raise TaskError("sweep: no task")
    found = _point_values(points, values)
    ref = found[0] if reference is None else reference
    typed = {v: tag_value(v) if isinstance(v, str) else v for v in found}
    for j, v in enumerate(found):  # 1, "1", "01" and 1.0 are one value: one folder, one row
        same = [w for w in found[:j] if typed[w] == typed[v]]
        if same:
            raise TaskError(
                f"sweep: points {same[0]!r} and {v!r} are the same value of {key} "
                f"({typed[v]!r}); give each value once"
            )
    from ..outputs import check_out_folder

    check_out_folder(out)
    ref_match = [v for v in found if typed[v] == (tag_value(ref) if isinstance(ref, str) else ref)]
    if not ref_match:
        raise TaskError(
            f"sweep: reference {ref!r} is not one of the points ({', '.join(map(str, found))})"
        )
    ref = ref_match[0]
    utility_task = None
    supplied = _utility_numbers(utility, found, key)
    if supplied is None and utility is not None:
        utility_task = utility
        if _task_name(utility) not in [_task_name(t) for t in task_list]:
            task_list.append(utility)
    out_dir = Path(out)
    options = config.backend_options if config else run_options.get("backend_options", {})
    runs: dict[tuple[str, Any], Any] = {}

    def point_of(v: Any) -> Point:  # one point at a time: its backend serves every task
        made = points[v] if isinstance(points, Mapping) else points(v)
        return made if isinstance(made, Point) else Point(made, dict(options or {}))

    def run_cell(cell: Cell, backend: Any) -> None:
        point_tags = {key: typed[cell.value], **extra}
        if config is None:
            cfg = RunConfig(
                cell.task, backend, out=cell.run_dir, n_boot=n_boot, seed=seed, quiet=quiet,
                tags=point_tags, **run_options,
            )  # fmt: skip
        else:
            cfg = config.but(task=cell.task, model=backend, out=cell.run_dir, tags=point_tags)
        runs[(cell.task_name, cell.value)] = run(cfg)

    cells = [
        Cell("", v, t, None, cell_dir(out_dir, _task_name(t), key, typed[v]), key)
        for v in found
        for t in task_list
    ]
    run_cells(cells, point_of, run_cell, seed=seed)
    silent = [f"{n} {key}={typed[v]}" for (n, v), rr in runs.items() if not _answered(rr)]
    if silent:
        raise RequestsFailed(
            f"sweep: no request was answered at {', '.join(silent)} (their run directories "
            f"under {out_dir} say why); rerun the same command to ask again"
        )
    from .merge import merge_sweep

    order = sorted(found, key=lambda v: tag_sort_key(typed[v]))
    if supplied is not None:
        supplied = ({typed[v]: n for v, n in supplied[0].items()}, supplied[1])
    return merge_sweep(
        {(c.task_name, typed[c.value]): c.run_dir for c in cells},
        key=key,
        values=[typed[v] for v in order],
        reference=typed[ref],
        tasks=[_task_name(t) for t in task_list],
        out=out_dir,
        n_boot=n_boot,
        seed=seed,
        settings={
            "tags": extra,
            "reference_reason": reference_reason
            or ("given as reference" if reference is not None else "the first point given"),
        },
        runs={(n, typed[v]): rr for (n, v), rr in runs.items()},
        utility_task=None if utility_task is None else _task_name(utility_task),
        supplied=supplied,
        extra={"duration_s": round(time.time() - started, 3)},
    )


__all__ = ["SweepResult", "point_dir_name", "sweep"]
