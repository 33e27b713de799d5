"""Paired comparison of two runs of one task on the same data (``winoscope diff A B``).

For every metric and stratum the table holds B - A with a 95% *paired* bootstrap interval:
both runs' predictions are scored by the task's own scorer with the same seed on the same rows,
so the scorer draws the same resamples of its own units (source items, pairs, schemas) for both
(checked: a digest of every weight matrix is compared), and each replicate of the difference is
``metric_B(resample) - metric_A(resample)``. Signed gaps also get ``|B| - |A|``, the change in
the gap's size, which is what "the gap is smaller" means.

p-values: ``p_boot`` is the two-sided bootstrap p-value of the difference
(:func:`~winoscope.scoring.paired.bootstrap_p`); ``p_holm`` adjusts it with Holm's method across
all rows of one stratum (every metric, both measures), so the family is "the metrics reported
for this stratum". Separately, an exact McNemar test compares the two runs' row correctness
(rows both runs answered; rows of one item are not independent, so read it as a check beside
the bootstrap, which resamples whole units), Holm-adjusted across its strata.

Only rows both runs answered are scored: a row one run failed to answer is left out of both
and counted (``settings["rows_unanswered_a"]`` / ``_b``), so the values can differ from the
runs' own reports when requests failed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DatasetError, ScoringError, TaskError
from ..report.rundir import RunDir, load_predictions, load_run_dir
from ..scoring.paired import ReplicateSink, bootstrap_p, capture_replicates, holm
from ..scoring.stats import percentile_ci
from .diff_result import DIFF_COLUMNS, DiffResult, summary_rows
from .pairing import (
    COREF_COLUMN,
    MCNEMAR_COLUMNS,
    align_rows,
    answered_rows,
    check_same_data,
    mcnemar_table,
    row_correctness,
)


def _score(
    task: Any, table: pd.DataFrame, n_boot: int, seed: int, source: str
) -> tuple[Any, ReplicateSink]:
    with capture_replicates() as sink:
        result = task.score(table, n_boot=n_boot, seed=seed, source=source)
    return result, sink


def _as_table(task: Any, raw: pd.DataFrame, location: str) -> pd.DataFrame:
    if task.from_frame is None:
        return raw
    from ..datasets.sources import SourceInfo

    return task.from_frame(raw, source=SourceInfo(kind="file", location=location)).table


def _n(metrics: pd.DataFrame) -> dict[tuple[str, str, str], int]:
    return {
        (str(r.metric), str(r.split), str(r.type)): int(r.n)
        for r in metrics.itertuples(index=False)
    }


def difference_table(
    ma: pd.DataFrame,
    mb: pd.DataFrame,
    reps_a: dict[tuple[str, str, str], np.ndarray],
    reps_b: dict[tuple[str, str, str], np.ndarray],
    level: float = 0.95,
    keep: dict[tuple[str, str, str, str], np.ndarray] | None = None,
) -> pd.DataFrame:
    """The tidy B - A table from two scorers' metrics and their (paired) replicates; ``keep``
    receives the replicates of each difference by (metric, split, type, measure)."""
    from ..scoring.metric import headline_metrics, signed_gap_metrics

    vb = {
        (str(r.metric), str(r.split), str(r.type)): float(r.value)
        for r in mb.itertuples(index=False)
    }
    na, nb = _n(ma), _n(mb)
    gaps = set(signed_gap_metrics(list(ma["metric"].astype(str))))
    records: list[dict[str, Any]] = []
    kept = {} if keep is None else keep
    for r in ma.itertuples(index=False):
        key = (str(r.metric), str(r.split), str(r.type))
        if key not in vb:
            continue
        a_val, b_val = float(r.value), vb[key]
        ra, rb = reps_a.get(key), reps_b.get(key)
        measures = [("B - A", a_val, b_val, None if ra is None or rb is None else rb - ra)]
        if key[0] in gaps:
            measures.append(
                (
                    "|B| - |A|",
                    abs(a_val),
                    abs(b_val),
                    None if ra is None or rb is None else np.abs(rb) - np.abs(ra),
                )
            )
        for measure, va, vbv, d in measures:
            diff = vbv - va
            lo = hi = p_boot = math.nan
            if d is not None:
                kept[(*key, measure)] = d
                if not math.isnan(diff):
                    lo, hi = percentile_ci(d, level)
                    p_boot = bootstrap_p(d)
            records.append(
                {
                    "metric": key[0],
                    "split": key[1],
                    "type": key[2],
                    "measure": measure,
                    "value_a": va,
                    "value_b": vbv,
                    "diff": diff,
                    "ci_low": lo,
                    "ci_high": hi,
                    "p_boot": p_boot,
                    "n_a": na.get(key, 0),
                    "n_b": nb.get(key, 0),
                }
            )
    frame = pd.DataFrame.from_records(
        records, columns=[c for c in DIFF_COLUMNS if c not in ("p_holm", "headline")]
    )
    frame["p_holm"] = np.nan
    for _, idx in frame.groupby(["split", "type"], sort=False).groups.items():
        frame.loc[idx, "p_holm"] = holm(frame.loc[idx, "p_boot"].tolist())
    if frame.empty:
        frame["headline"] = pd.Series(dtype=bool)
        return frame[DIFF_COLUMNS]
    summary = summary_rows(frame)
    in_summary = set(frame.loc[summary, "metric"])
    heads = set(headline_metrics(list(dict.fromkeys(frame.loc[summary, "metric"])), limit=4))
    # gaps reported only by stratum (SweWinogender's hon - han) are headlines where they are
    elsewhere = {m for m in gaps if m not in in_summary}
    frame["headline"] = (summary & frame["metric"].isin(heads)) | frame["metric"].isin(elsewhere)
    return frame[DIFF_COLUMNS]


def _fmt(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:+.3f}"


def _interval(lo: float, hi: float) -> str:
    return "[–]" if math.isnan(lo) else f"[{lo:+.3f}, {hi:+.3f}]"


def verdicts(table: pd.DataFrame) -> list[str]:
    """One line per headline metric: what changed, the interval, and whether it excludes 0.

    A gap is "smaller" when the interval of ``|B| - |A|`` lies below 0, and "larger" when it
    lies above 0 and the signed change's interval excludes 0 too (with A's gap at 0 every
    resampled ``|B| - |A|`` is at least 0, which alone shows no change); any other metric is
    "higher"/"lower" when the interval of ``B - A`` excludes 0; otherwise "unchanged within".
    """
    lines = []
    heads = table[table["headline"]]
    for (metric, split, typ), g in heads.groupby(["metric", "split", "type"], sort=False):
        where = "" if split in ("macro", "all") else f" ({split}/{typ})"
        signed = g[g["measure"] == "B - A"].iloc[0]
        size = g[g["measure"] == "|B| - |A|"]
        row = size.iloc[0] if len(size) else signed
        lo, hi = float(row["ci_low"]), float(row["ci_high"])
        if math.isnan(float(row["diff"])):
            lines.append(f"{metric}{where}: not defined in both runs")
            continue
        up, down = ("larger", "smaller") if len(size) else ("higher", "lower")
        excludes = not math.isnan(lo) and (lo > 0 or hi < 0)
        s_lo, s_hi = float(signed["ci_low"]), float(signed["ci_high"])
        if excludes and len(size) and lo > 0 and not (s_lo > 0 or s_hi < 0):
            # |B| - |A| sits above 0 whenever A's gap is (near) 0, since a size cannot fall
            # below 0: a larger gap needs the signed change to exclude 0 as well
            excludes = False
        if excludes:
            word = up if lo > 0 else down
            verdict = f"{word}, interval excludes 0"
        else:
            verdict = "unchanged within"
        what = "|gap|" if len(size) else "change"
        text = (
            f"{metric}{where}: {float(signed['value_a']):.3f} -> {float(signed['value_b']):.3f}; "
            f"{verdict} {_interval(lo, hi)} ({what} {_fmt(float(row['diff']))}, "
            f"Holm p = {float(row['p_holm']):.3g}"
            + (", not significant after Holm" if excludes and float(row["p_holm"]) >= 0.05 else "")
            + ")"
        )
        if len(size):
            text += f"; signed change {_fmt(float(signed['diff']))} " + _interval(
                float(signed["ci_low"]), float(signed["ci_high"])
            )
        lines.append(text)
    return lines


def _run_dir(run: str | Path | RunDir | Any) -> RunDir:
    if isinstance(run, RunDir):
        return run
    out_dir = getattr(run, "out_dir", None)  # a RunResult written to disk
    return load_run_dir(out_dir if out_dir is not None else run)


def diff(
    run_a: str | Path | RunDir | Any,
    run_b: str | Path | RunDir | Any,
    *,
    out: str | Path | None = None,
    n_boot: int | None = None,
    seed: int | None = None,
    level: float = 0.95,
    paired: bool = True,
) -> DiffResult:
    """Compare run B with run A (B - A) on the items both answered, with paired intervals.

    ``n_boot`` and ``seed`` default to run A's. ``paired=False`` resamples B independently of A
    (another seed): the unpaired interval, wider when the runs' errors are correlated, kept for
    comparison. With ``out`` the tables, the HTML page and the forest plot are written there.

    >>> d = diff("runs/base", "runs/mitigated")                        # doctest: +SKIP
    >>> print("\\n".join(d.verdicts))                                  # doctest: +SKIP
    """
    from ..tasks import get_task

    a, b = _run_dir(run_a), _run_dir(run_b)
    if a.task != b.task:
        raise TaskError(
            f"the runs are of different tasks: {a.path.name} is {a.task}, {b.path.name} is {b.task}"
        )
    data = check_same_data(a, b)
    task = get_task(a.task)
    boot = a.manifest.get("bootstrap") or {}
    n_boot = int(n_boot if n_boot is not None else boot.get("replicates", 2000))
    seed = int(seed if seed is not None else a.manifest.get("seed", 0))
    pa = load_predictions(a)
    pb = align_rows(pa, load_predictions(b), a, b)
    col = task.prediction_column
    for run, p in ((a, pa), (b, pb)):
        if col not in p.columns:
            raise DatasetError(
                f"no '{col}' column to compare", file=str(run.path / "predictions.parquet")
            )
    ans_a, ans_b = answered_rows(pa, col), answered_rows(pb, col)
    both = ans_a & ans_b
    pa, pb = pa.copy(), pb.copy()
    pa[col] = pa[col].where(both, None)
    pb[col] = pb[col].where(both, None)
    ta = _as_table(task, pa, str(a.path / "predictions.parquet"))
    tb = _as_table(task, pb, str(b.path / "predictions.parquet"))
    res_a, sink_a = _score(task, ta, n_boot, seed, str(a.path))
    res_b, sink_b = _score(task, tb, n_boot, seed if paired else seed + 1, str(b.path))
    if not sink_a.replicates:
        raise TaskError(
            f"task {task.name}: its scorer does not report bootstrap replicates, so no paired "
            "interval can be computed"
        )
    if paired and sink_a.draws != sink_b.draws:
        raise ScoringError(
            "the two runs were not resampled identically (their scored units differ); "
            f"{len(sink_a.draws)} vs {len(sink_b.draws)} draws"
        )
    kept: dict[tuple[str, str, str, str], np.ndarray] = {}
    table = difference_table(
        res_a.metrics, res_b.metrics, sink_a.replicates, sink_b.replicates, level, kept
    )
    notes = []
    # coreference: the pronoun link per document, from the predictions' standard columns
    coref_rows = col == COREF_COLUMN
    ra = row_correctness(pa if coref_rows else ta, col)
    rb = row_correctness(pb if coref_rows else tb, col)
    if coref_rows and ra is not None and rb is not None:
        ra, rb = ra.set_axis(ta.index), rb.set_axis(tb.index)
    if ra is None or rb is None:
        mcn = pd.DataFrame(columns=MCNEMAR_COLUMNS)
        notes.append(f"{task.name} has no gold label per row: no McNemar test")
    else:
        mcn = mcnemar_table(ta, ra, rb)
    unanswered_a, unanswered_b = int((~ans_a).sum()), int((~ans_b).sum())
    if unanswered_a or unanswered_b:
        notes.append(
            f"rows unanswered: {unanswered_a} in A, {unanswered_b} in B; "
            f"{int((~both).sum())} row(s) left out of both"
        )
    settings = {
        "n_boot": n_boot,
        "seed": seed,
        "level": level,
        "paired": paired,
        "resampling_unit": str((res_a.settings or {}).get("resampling_unit", "")),
        "rows": len(pa),
        "rows_compared": int(both.sum()),
        "rows_unanswered_a": unanswered_a,
        "rows_unanswered_b": unanswered_b,
        "prompt_a": a.prompt_key,
        "prompt_b": b.prompt_key,
        "tags_a": a.tags,
        "tags_b": b.tags,
        "p_boot": "two-sided bootstrap p of B - A = 0; Holm across the rows of each stratum",
        "mcnemar": "exact, on row correctness of rows both runs answered; Holm across strata",
    }
    result = DiffResult(
        task=task.name,
        run_a=str(a.path),
        run_b=str(b.path),
        model_a=a.label,
        model_b=b.label,
        data=data,
        table=table,
        mcnemar=mcn,
        verdicts=verdicts(table),
        settings=settings,
        notes=notes,
        replicates=kept,
    )
    if out is not None:
        from .difference_report import write_diff

        write_diff(result, Path(out))
    return result
