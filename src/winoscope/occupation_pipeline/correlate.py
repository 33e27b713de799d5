"""Correlating a run directory with occupation statistics: the files and the figure.

:mod:`winoscope.scoring.occupation_correlation` computes the shares and correlations; this
module reads a run directory, writes ``occupation_shares.csv``, ``occupation_correlations.csv``
(+ ``.json`` with the unmatched occupations) and draws ``occupation_correlation.png``
(:func:`winoscope.report.correlation_figure.correlation_figure`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ScoringError
from ..jsonio import atomic_path, write_atomic, write_csv
from ..results.record import RunRecord
from ..scoring.occupation_correlation import (
    PREFERENCE,
    correlate,
    items_from_predictions,
    occupation_shares,
    unmatched,
)


def _key(s: pd.Series) -> pd.Series:
    from ..occupations.names import key_series

    return key_series(s)


def plot_correlation(
    shares: pd.DataFrame,
    statistics: pd.DataFrame,
    path: str | Path,
    *,
    measure: str = PREFERENCE,
    statistic_columns: Sequence[str] | None = None,
    correlations: pd.DataFrame | None = None,
    title: str | None = None,
    label_points: bool = True,
) -> Path:
    """Scatter plot (:func:`winoscope.report.correlation_figure.correlation_figure`): one panel
    per pronoun gender, one row per statistic, x = the statistic, y = the share of that
    pronoun's items resolved to the occupation, occupations labelled without overlaps.

    ``measure`` and ``title`` are kept for callers; the figure carries no title (the page's
    caption names the run) and shows every pronoun's share rather than one measure.
    """
    from ..occupations.shares import statistic_columns as stat_cols
    from ..report.correlation_figure import correlation_figure
    from ..report.figures import STYLE

    del measure, title
    columns = list(statistic_columns or stat_cols(statistics))
    joined = shares.assign(_key=_key(shares["occupation"])).merge(
        statistics.assign(_key=_key(statistics["occupation"]))[["_key", *columns]],
        on="_key",
        how="inner",
    )
    fig, _ = correlation_figure(
        joined, columns, correlations=correlations, label_points=label_points
    )
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    import matplotlib

    with matplotlib.rc_context(STYLE):
        meta = {"Software": None} if out.suffix == ".png" else None
        with atomic_path(out) as tmp:
            fig.savefig(tmp, format=out.suffix.lstrip(".") or "png", dpi=150, metadata=meta)
    return out


@dataclass
class CorrelationResult:
    shares: pd.DataFrame
    correlations: pd.DataFrame
    unmatched: dict[str, list[str]]
    files: list[Path] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The correlations: measure, statistic, method, value, CI, p-value, n."""
        return self.correlations.copy()


def correlate_run(
    run_dir: str | Path,
    stats_path: str | Path,
    *,
    out: str | Path | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    measure: str = PREFERENCE,
    **stats_options: Any,
) -> CorrelationResult:
    """Correlate a run directory's predictions with a statistics file; write the results.

    Writes ``occupation_shares.csv``, ``occupation_correlations.csv`` (+ ``.json`` with the
    unmatched occupations) and ``occupation_correlation.png`` to ``out`` (default: the run
    directory).
    """
    from ..occupations.names import join_report
    from ..occupations.stats import load_statistics

    run = Path(run_dir)
    manifest_path = run / "manifest.json"
    if not manifest_path.is_file():
        raise ScoringError(f"{run}: not a run directory (no manifest.json)")
    record = RunRecord.from_json(json.loads(manifest_path.read_text(encoding="utf-8")))
    pq, csv = run / "predictions.parquet", run / "predictions.csv"
    if pq.is_file():
        pred = pd.read_parquet(pq)
    elif csv.is_file():
        pred = pd.read_csv(csv)
    else:
        raise ScoringError(f"{run}: no predictions.parquet or predictions.csv")
    task = record.task
    stats = load_statistics(stats_path, **stats_options)
    shares = occupation_shares(items_from_predictions(pred, task))
    miss = unmatched(shares, stats)
    join_report(
        shares["occupation"], stats["occupation"], what="run's occupations", where=str(stats_path)
    )  # none matching is an error (and no empty figure is drawn)
    corr = correlate(shares, stats, n_boot=n_boot, seed=seed)
    target = Path(out) if out is not None else run
    target.mkdir(parents=True, exist_ok=True)
    files = [target / "occupation_shares.csv", target / "occupation_correlations.csv"]
    write_csv(files[0], shares)
    write_csv(files[1], corr)
    meta = {
        "task": task,
        "model": record.model.spec,
        "statistics": str(stats_path),
        "bootstrap": {"replicates": n_boot, "seed": seed, "unit": "occupation"},
        "unmatched": miss,
        "correlations": json.loads(corr.to_json(orient="records")),
    }
    files.append(target / "occupation_correlations.json")
    write_atomic(files[-1], json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
    files.append(
        plot_correlation(
            shares,
            stats,
            target / "occupation_correlation.png",
            measure=measure,
            correlations=corr,
            title=f"{task} · {meta['model']}",
        )
    )
    return CorrelationResult(shares=shares, correlations=corr, unmatched=miss, files=files)
