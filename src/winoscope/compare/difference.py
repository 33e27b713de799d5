"""Paired comparison of two runs of one task on the same data (``winoscope diff A B``).

For every metric and stratum the table holds B - A with a 95% *paired* bootstrap interval:
both runs' predictions are scored by the task's own scorer with the same seed on the same rows,
so the scorer draws the same resamples of its own units (source items, pairs, schemas) for both
(checked: the draws each result reports, a digest of every weight matrix, are compared), and
each replicate of the difference is ``metric_B(resample) - metric_A(resample)``, from the
replicates each scorer returns (``ScoreResult.replicates``). A signed gap's size change (what
"the gap is smaller" means) is its declared absolute twin's ``B - A`` where the task reports
one (WinoBias's ``absolute_bias_gap``), else an extra row ``|B| - |A|``: one row per quantity.

p-values: ``p_boot`` is the two-sided bootstrap p-value of the difference
(:func:`~winoscope.scoring.paired.bootstrap_p`); ``p_holm`` adjusts it with Holm's method across
the task's headline hypotheses (``family``; :mod:`winoscope.scoring.decision` says which rows
they are), and ``settings["holm_family"]`` names them; every other row is exploratory, with its
unadjusted p. Intervals decide with a tolerance: a bound within 1e-9 of 0 includes 0.
Separately, an exact McNemar test compares the two runs' row correctness
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
from ..report.index import sample_banner
from ..results.diff import DIFF_COLUMNS, DiffResult, summary_rows
from ..results.rundir import RunDir, load_predictions, load_run_dir
from ..scoring.answer_quality import (
    built_on_degenerate,
    invalid_share,
    quality_text,
)
from ..scoring.decision import describe_family
from ..scoring.paired import bootstrap_p, holm
from ..scoring.stats import percentile_ci
from .pairing import (
    COREF_COLUMN,
    MCNEMAR_COLUMNS,
    align_rows,
    answered_rows,
    check_same_data,
    mcnemar_table,
    row_correctness,
)
from .verdicts import verdicts


def _as_table(task: Any, raw: pd.DataFrame, location: str) -> pd.DataFrame:
    if task.data.from_frame is None:
        return raw
    from ..datasets.sources import SourceInfo

    return task.data.from_frame(raw, source=SourceInfo(kind="file", location=location)).table


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
    protocol: str = "",
) -> pd.DataFrame:
    """The tidy B - A table from two scorers' metrics and their (paired) replicates; ``keep``
    receives the replicates of each difference by (metric, split, type, measure).

    A signed gap gets a second row, the change of its size ``|B| - |A|``, unless the task
    reports the gap's declared size itself (its absolute twin): one row per quantity. Holm's
    adjustment (``p_holm``) runs over the headline hypotheses (``family``,
    :func:`~winoscope.scoring.decision.holm_family`) of the summary stratum; every other row
    keeps its unadjusted ``p_boot`` and is exploratory."""
    from ..scoring.decision import absolute_twin, holm_family
    from ..scoring.metric import headline_metrics, signed_gap_metrics

    vb = {
        (str(r.metric), str(r.split), str(r.type)): float(r.value)
        for r in mb.itertuples(index=False)
    }
    na, nb = _n(ma), _n(mb)
    names = list(dict.fromkeys(ma["metric"].astype(str)))
    gaps = {g for g in signed_gap_metrics(names) if absolute_twin(g, names) is None}
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
        records, columns=[c for c in DIFF_COLUMNS if c not in ("p_holm", "headline", "family")]
    )
    frame["p_holm"] = np.nan
    if frame.empty:
        frame["headline"] = pd.Series(dtype=bool)
        frame["family"] = pd.Series(dtype=bool)
        return frame[DIFF_COLUMNS]
    summary = summary_rows(frame)
    members = set(holm_family(list(dict.fromkeys(frame.loc[summary, "metric"])), protocol))
    listed = [
        (str(m), str(x)) in members for m, x in zip(frame["metric"], frame["measure"], strict=True)
    ]
    frame["family"] = summary & pd.Series(listed, index=frame.index, dtype=bool)
    fam = frame.index[frame["family"]]
    frame.loc[fam, "p_holm"] = holm(frame.loc[fam, "p_boot"].tolist())
    in_summary = set(frame.loc[summary, "metric"])
    heads = set(headline_metrics(list(dict.fromkeys(frame.loc[summary, "metric"])), limit=4))
    # gaps reported only by stratum (SweWinogender's hon - han) are headlines where they are
    elsewhere = {m for m in gaps if m not in in_summary}
    frame["headline"] = (summary & frame["metric"].isin(heads)) | frame["metric"].isin(elsewhere)
    frame["headline"] |= frame["family"]
    return frame[DIFF_COLUMNS]


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
    from ..outputs import check_out_folder
    from ..tasks import get_task

    if not 0 < level < 1:
        raise TaskError(f"level={level!r}: expected a share between 0 and 1, e.g. 0.95")
    if out is not None:
        check_out_folder(out)
    a, b = _run_dir(run_a), _run_dir(run_b)
    if a.path.resolve() == b.path.resolve():
        raise TaskError(f"A and B are the same run directory ({a.path}): give two runs")
    if a.task != b.task:
        raise TaskError(
            f"the runs are of different tasks: {a.path.name} is {a.task}, {b.path.name} is {b.task}"
        )
    from ..report.comparability import differences, partial_mismatch

    refused = partial_mismatch(a, b)
    if refused is not None:
        raise TaskError(f"not comparable: {refused}")
    data = check_same_data(a, b)
    task = get_task(a.task)
    boot = a.record.bootstrap or {}
    given = "given" if n_boot is not None else f"run A's, {a.path}"
    n_boot = int(n_boot if n_boot is not None else boot.get("replicates", 2000))
    seed = int(seed if seed is not None else (a.record.seed or 0))
    if n_boot < 1 or seed < 0:
        raise TaskError(
            f"bootstrap {n_boot}, seed {seed} ({given}): the paired intervals and p-values "
            "need at least 1 replicate and a seed from 0; pass --bootstrap N (n_boot=N) "
            "and --seed N"
        )
    pa = load_predictions(a)
    pb = align_rows(pa, load_predictions(b), a, b)
    col = task.primary.prediction_column
    for run, p in ((a, pa), (b, pb)):
        if col not in p.columns:
            raise DatasetError(
                f"no '{col}' column to compare", file=str(run.path / "predictions.parquet")
            )
    ans_a, ans_b = answered_rows(pa, col), answered_rows(pb, col)
    both = ans_a & ans_b
    if not both.any():
        raise TaskError(
            f"no row was answered in both runs ({int(ans_a.sum())} of {len(pa)} answered in "
            f"{a.path}, {int(ans_b.sum())} in {b.path}), so no paired difference can be "
            "computed; rerun the runs whose requests failed"
        )
    pa, pb = pa.copy(), pb.copy()
    pa[col] = pa[col].where(both, None)
    pb[col] = pb[col].where(both, None)
    ta = _as_table(task, pa, str(a.path / "predictions.parquet"))
    tb = _as_table(task, pb, str(b.path / "predictions.parquet"))
    res_a = task.scorer(ta, n_boot=n_boot, seed=seed, source=str(a.path))
    res_b = task.scorer(tb, n_boot=n_boot, seed=seed if paired else seed + 1, source=str(b.path))
    reps_a, reps_b = res_a.replicates, res_b.replicates
    if not reps_a.rows or not reps_b.rows:
        raise TaskError(
            f"task {task.name}: no bootstrap replicates on the {int(both.sum())} row(s) both "
            "runs answered (its scorer reports none, or none of those rows could be "
            "resampled), so no paired interval can be computed"
        )
    if paired and reps_a.draws != reps_b.draws:
        raise ScoringError(
            "the two runs were not resampled identically (their scored units differ); "
            f"{len(reps_a.draws)} vs {len(reps_b.draws)} draws"
        )
    kept: dict[tuple[str, str, str, str], np.ndarray] = {}
    table = difference_table(
        res_a.metrics,
        res_b.metrics,
        reps_a.rows,
        reps_b.rows,
        level,
        kept,
        protocol="" if a.record.protocol is None else str(a.record.protocol),
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
    qa, qb = a.quality, b.quality
    degenerate = [
        f"{k}, {invalid_share(q)}" for k, q in (("A", qa), ("B", qb)) if q.get("degenerate")
    ]
    lines = verdicts(table)
    if degenerate:
        lines = [f"{v} [built on a degenerate run: {'; '.join(degenerate)}]" for v in lines]
        notes.append(built_on_degenerate(degenerate))
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
        "answers_a": quality_text(qa),
        "answers_b": quality_text(qb),
        "degenerate": [k for k, q in (("A", qa), ("B", qb)) if q.get("degenerate")],
        "sample_banner": sample_banner([a, b]),
        "comparability": [d["note"] for d in differences([a, b])],
        "p_boot": "two-sided bootstrap p of B - A = 0",
        "holm_family": describe_family(
            list(
                zip(
                    table.loc[table["family"], "metric"],
                    table.loc[table["family"], "measure"],
                    strict=True,
                )
            )
        ),
        "p_holm": "Holm across the headline hypotheses (holm_family); other rows exploratory",
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
        verdicts=lines,
        settings=settings,
        notes=notes,
        replicates=kept,
    )
    if out is not None:
        from ..report.diff_page import write_diff

        write_diff(result, Path(out))
    return result
