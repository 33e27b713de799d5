"""The tables of a sweep: each point's headline metrics, its paired change from the reference
with Holm's adjustment across the compared points, and the utility beside them."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..results.run import RunResult
from ..results.rundir import RunDir
from ..tags import tag_sort_key

#: a run as a sweep reads it: the result just made, or a run directory read back (both have
#: ``record``, ``metrics`` and ``counts``)
AnyRun = RunResult | RunDir

SWEEP_COLUMNS = [
    "task",
    "point",
    "reference",
    "run",
    "metric",
    "role",
    "split",
    "type",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "measure",
    "diff",
    "diff_low",
    "diff_high",
    "p_boot",
    "p_holm",
    "invalid_rate",
    "failed_rate",
    "degenerate",
]
UTILITY_COLUMNS = ["task", "point", "utility", "ci_low", "ci_high", "source"]


def metric_rows(
    task: str, point: Any, is_ref: bool, rr: AnyRun, where: Path
) -> list[dict[str, Any]]:
    """The headline and overall metrics of one run's summary stratum."""
    from ..results.diff import summary_rows
    from ..scoring.metric import get_metric, headline_metrics

    q = rr.record.quality(rr.counts)
    m = rr.metrics
    summary = m[summary_rows(m)]
    from ..scoring.decision import absolute_twin

    names = list(dict.fromkeys(summary["metric"].astype(str)))
    heads = headline_metrics(names, limit=4)
    twins = {absolute_twin(h, names) for h in heads if get_metric(h).signed_gap}
    keep = [n for n in names if n in heads or n in twins or get_metric(n).role == "overall"]
    out = []
    for r in summary[summary["metric"].isin(keep)].itertuples(index=False):
        spec = get_metric(str(r.metric))
        out.append(
            {
                "task": task,
                "point": point,
                "reference": is_ref,
                "run": where.name,
                "metric": str(r.metric),
                "role": "overall" if spec.role == "overall" else "headline",
                "split": str(r.split),
                "type": str(r.type),
                "value": float(r.value),
                "ci_low": float(r.ci_low),
                "ci_high": float(r.ci_high),
                "n": int(r.n),
                "measure": "",
                "diff": 0.0 if is_ref else math.nan,
                "diff_low": math.nan,
                "diff_high": math.nan,
                "p_boot": math.nan,
                "p_holm": math.nan,
                "invalid_rate": q.get("invalid_rate"),
                "failed_rate": q.get("failed_rate"),
                "degenerate": bool(q.get("degenerate")),
            }
        )
    return out


def point_table(
    names: Sequence[str],
    values: Sequence[Any],
    reference: Any,
    runs: Mapping[tuple[str, Any], AnyRun],
    dirs: Mapping[tuple[str, Any], Path],
    *,
    n_boot: int,
    seed: int,
    no_difference: dict[tuple[str, Any], str] | None = None,
) -> pd.DataFrame:
    """Every task's metric rows at each value it has a run for, each non-reference point
    paired against the reference's run, Holm-adjusted across the points: the table both a
    sweep run in one process and a study merged from run directories report.

    A point whose paired difference cannot be computed (no row answered in both runs, say)
    keeps its metric rows with empty differences; why goes into ``no_difference``
    ((task, value) -> the reason) when given."""
    from ..compare.difference import diff
    from ..errors import ScoringError, TaskError

    rows: list[dict[str, Any]] = []
    for name in names:
        for v in values:
            if (name, v) not in runs:
                continue
            is_ref = v == reference
            rows += metric_rows(name, v, is_ref, runs[(name, v)], dirs[(name, v)])
            if is_ref:
                continue
            try:
                d = diff(dirs[(name, reference)], dirs[(name, v)], n_boot=n_boot, seed=seed)
            except (TaskError, ScoringError) as exc:
                if no_difference is not None:
                    no_difference[(name, v)] = str(exc)
                continue
            add_differences(rows, name, v, d.table)
    return holm_across_points(pd.DataFrame.from_records(rows, columns=SWEEP_COLUMNS))


def sample_banner(runs: Iterable[AnyRun]) -> str | None:
    """The bundled-sample banner when any run was scored on a bundled sample."""
    from ..results.rundir import SAMPLE_BANNER

    return SAMPLE_BANNER if any(rr.record.is_sample for rr in runs) else None


def degenerate_points(table: pd.DataFrame, reference: Any) -> dict[str, list[Any]]:
    """Per task, the points whose run is degenerate (at least half its scored rows invalid)."""
    if table.empty or "degenerate" not in table.columns:
        return {}
    bad = table[table["degenerate"].astype(bool)]
    return {str(t): list(dict.fromkeys(g["point"])) for t, g in bad.groupby("task", sort=False)}


def add_differences(rows: list[dict[str, Any]], task: str, point: Any, table: pd.DataFrame) -> None:
    """Fill the point's rows with ``point - reference`` (and a gap's size change) from diff."""
    mine = [r for r in rows if r["task"] == task and r["point"] == point and not r["reference"]]
    extra = []
    for r in mine:
        got = table[
            (table["metric"] == r["metric"])
            & (table["split"].astype(str) == r["split"])
            & (table["type"].astype(str) == r["type"])
        ]
        for i, d in enumerate(got.itertuples(index=False)):
            target = r if i == 0 else {**r}
            target.update(
                measure=str(d.measure).replace("B", "point").replace("A", "reference"),
                diff=float(d.diff),
                diff_low=float(d.ci_low),
                diff_high=float(d.ci_high),
                p_boot=float(d.p_boot),
            )
            if i:
                extra.append(target)
    rows += extra


def holm_across_points(table: pd.DataFrame) -> pd.DataFrame:
    from ..scoring.paired import holm

    table = table.copy()
    comp = ~table["reference"].astype(bool)
    for _, idx in (
        table[comp].groupby(["task", "metric", "split", "type", "measure"]).groups.items()
    ):
        table.loc[idx, "p_holm"] = holm(table.loc[idx, "p_boot"].tolist())
    return table


def sorted_table(table: pd.DataFrame) -> pd.DataFrame:
    if table.empty:
        return table
    keys = table["point"].map(tag_sort_key)
    order = sorted(range(len(table)), key=lambda i: (str(table["task"].iloc[i]), keys.iloc[i]))
    return table.iloc[order].reset_index(drop=True)


def utility_metric(names: Sequence[str]) -> str | None:
    """A task's utility number: its declared overall score, else its first headline score
    (accuracy or F1) that is not restricted to a condition or gender (WinoPron reports
    accuracy by context, not overall)."""
    from ..scoring.metric import get_metric, headline_metrics

    overall = [m for m in names if get_metric(m).role == "overall"]
    if overall:
        return overall[0]
    scores = [m for m in headline_metrics(names, limit=len(names)) if get_metric(m).is_score]
    whole = [m for m in scores if not get_metric(m).group]
    found = whole or scores
    return found[0] if found else None


def utility_table(
    tasks: Sequence[str],
    order: Sequence[Any],
    runs: Mapping[tuple[str, Any], Any],
    supplied: tuple[dict[Any, tuple[float, float, float]], str] | None,
) -> tuple[pd.DataFrame, str]:
    from ..results.diff import summary_rows

    rows = []
    if supplied is not None:
        numbers, source = supplied
        for v in order:
            u, lo, hi = numbers[v]
            rows.append(
                {
                    "task": "",
                    "point": v,
                    "utility": u,
                    "ci_low": lo,
                    "ci_high": hi,
                    "source": source,
                }
            )
        return pd.DataFrame.from_records(rows, columns=UTILITY_COLUMNS), source
    used = []
    for name in tasks:
        for v in order:
            m = runs[(name, v)].metrics
            summary = m[summary_rows(m)]
            overall = utility_metric(list(summary["metric"].astype(str)))
            if overall is None:
                continue
            r = summary[summary["metric"] == overall].iloc[0]
            rows.append(
                {
                    "task": name,
                    "point": v,
                    "utility": float(r["value"]),
                    "ci_low": float(r["ci_low"]),
                    "ci_high": float(r["ci_high"]),
                    "source": f"{name} {overall}",
                }
            )
            used.append(f"{name} {overall}")
    source = ", ".join(dict.fromkeys(used)) or "none (no task declares an overall score)"
    return pd.DataFrame.from_records(rows, columns=UTILITY_COLUMNS), source
