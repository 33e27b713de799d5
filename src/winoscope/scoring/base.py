"""What every scorer returns."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .bootstrap import Draw, Replicates
from .metric import Declarations

declare = Declarations(__name__)

# ``n``: the rows (or, for pair metrics, the pairs) a value is computed over; for a macro row
# the sum over the strata it averages, whose number is ``n_strata`` (1 for a stratum's row).
METRIC_COLUMNS = ["metric", "split", "type", "value", "ci_low", "ci_high", "n", "n_strata"]


@dataclass
class ScoreResult:
    """A scorer's output.

    ``metrics`` is tidy with at least :data:`METRIC_COLUMNS`; ``split``/``type`` hold the
    stratum labels (the card's split and type for WinoBias-UK; other families put their own
    stratum names there) and ``split == "macro"`` marks macro averages. ``tests`` lists
    significance tests, ``counts`` rows/scored/invalid/missing per stratum, ``settings`` the
    bootstrap settings. ``notes`` are what the scorer has to tell the reader about these numbers
    (unpaired items left out of a pair metric, say): every report and the command line show
    them as they are, without knowing the family. ``replicates`` holds the bootstrap replicates
    of the metric rows and the draws behind them, which a paired comparison of two runs reads.
    """

    metrics: pd.DataFrame
    tests: list[dict[str, Any]] = field(default_factory=list)
    counts: pd.DataFrame = field(default_factory=pd.DataFrame)
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    replicates: Replicates = field(default_factory=Replicates)
    # the task's validation findings (``datasets.base.Issue``), set by ``run``/``score``
    validation: list[Any] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics table, a copy."""
        return self.metrics.copy()


# metrics several families report, declared once here
declare.metric(
    "accuracy",
    kind="accuracy",
    direction="higher",
    role="overall",
    card="Share of scored rows answered correctly.",
)
declare.metric(
    "pair_consistency",
    kind="consistency",
    direction="higher",
    card="Share of pairs whose two sentences are both answered correctly.",
)
declare.metric(
    "option_order_consistency",
    kind="consistency",
    direction="higher",
    role="diagnostic",
    constant_under=("cloze",),  # one request per row: no second order to disagree with
    card="Share of rows whose two option orders chose the same answer.",
)
declare.metric(
    "invalid_rate",
    kind="rate",
    direction="lower",
    role="diagnostic",
    card="Share of scored rows whose answer is invalid (no option, or the two orders disagree).",
)

_TRUTH = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}


def order_consistency(table: pd.DataFrame, source: str = "predictions") -> pd.Series:
    """``order_consistent`` as booleans with NA, whether it holds bools or CSV text.

    A predictions CSV stores the column as ``True``/``False``/empty text; ``astype(bool)`` on
    that text would read ``"False"`` as true, so it is parsed here. Anything else is a
    ScoringError naming the row.
    """
    from ..errors import ScoringError

    col = table["order_consistent"]
    text = col.astype("string").str.strip().str.lower()
    text = text.mask(text.eq(""), pd.NA)
    bad = text.notna() & ~text.isin(list(_TRUTH))
    if bool(bad.any()):
        i = int(bad.to_numpy().nonzero()[0][0])
        raise ScoringError(
            f"{source}, row {i + 1}, field 'order_consistent': invalid value {col.iloc[i]!r}; "
            "expected true, false or empty"
        )
    return text.map(_TRUTH, na_action="ignore").astype("boolean")


def prediction_labels(
    table: pd.DataFrame,
    allowed: tuple[str, ...],
    source: str = "predictions",
    column: str = "prediction_role",
) -> pd.Series:
    """The prediction column normalised (stripped, lower-cased, empty -> NA) and checked.

    NA means the model never answered (the row is excluded and counted, not scored as wrong);
    any value outside ``allowed`` is a ScoringError naming the source, row and field.
    """
    from ..errors import ScoringError

    if column not in table.columns:
        raise ScoringError(f"{source}: no '{column}' column to score")
    pred = table[column].astype("string").str.strip().str.lower()
    pred = pred.mask(pred.eq(""), pd.NA)
    bad = pred.notna() & ~pred.isin(allowed)
    if bool(bad.any()):
        i = int(bad.to_numpy().nonzero()[0][0])
        raise ScoringError(
            f"{source}, row {i + 1}, field '{column}': invalid value "
            f"{table[column].iloc[i]!r}; expected one of {', '.join(allowed)} or empty"
        )
    return pred


def metric_row(
    metric: str,
    split: str,
    typ: str,
    value: float,
    replicates: Any,
    n: int,
    level: float = 0.95,
    n_strata: int = 1,
) -> dict[str, Any]:
    """One tidy metrics row: the value with its percentile bootstrap interval over
    ``replicates`` (NaN bounds when the value itself is undefined, or when ``replicates`` is
    None: the metric was not bootstrapped)."""
    import math

    from .bootstrap import interval

    lo, hi = (math.nan, math.nan) if replicates is None else interval(value, replicates, level)
    return {
        "metric": metric,
        "split": split,
        "type": typ,
        "value": value,
        "ci_low": lo,
        "ci_high": hi,
        "n": n,
        "n_strata": n_strata,
    }


@dataclass
class MetricRows:
    """Tidy metric rows (:func:`metric_row`) and, beside them, the replicates of each
    bootstrapped row and the draws, for the scorer's :class:`ScoreResult`."""

    level: float = 0.95
    records: list[dict[str, Any]] = field(default_factory=list)
    replicates: Replicates = field(default_factory=Replicates)

    def add(
        self,
        metric: str,
        split: str,
        typ: str,
        value: float,
        replicates: Any,
        n: int,
        n_strata: int = 1,
    ) -> None:
        """One row; its replicates are kept (a flat copy) when it was bootstrapped."""
        self.records.append(
            metric_row(metric, split, typ, value, replicates, n, self.level, n_strata)
        )
        if replicates is not None:
            self.replicates.keep(metric, split, typ, replicates)


@dataclass
class Stratum:
    """One stratum's metrics: point ``values``, bootstrap ``replicates`` (a metric missing here
    was not bootstrapped), the ``n`` each value is computed over and the ``draw`` behind the
    replicates (None when none was drawn)."""

    split: str
    type: str
    values: dict[str, float]
    replicates: dict[str, Any]
    n: dict[str, int]
    draw: Draw | None = None


def split_type_strata(
    rows: pd.DataFrame, scored: pd.DataFrame, *, tie_count: str
) -> Iterator[tuple[str, str, pd.DataFrame, dict[str, Any]]]:
    """Each (split, type) stratum of ``rows``, sorted: its split, its type, its rows of
    ``scored`` and a record of its counts.

    ``scored`` is ``rows`` without the rows lacking a ``prediction_role``, in the same order
    (it may have columns added). The record counts the stratum's rows, the scored ones, the
    missing ones (no prediction), the ``invalid`` predictions and the ``tie`` ones (under the
    key ``tie_count``, as the family's counts table names them).
    """
    missing = rows["prediction_role"].isna().to_numpy(bool)
    keys = rows[["split", "type"]].astype(str).drop_duplicates().sort_values(["split", "type"])
    for split, typ in keys.itertuples(index=False):
        here = ((rows["split"].astype(str) == split) & (rows["type"].astype(str) == typ)).to_numpy()
        sub = scored[here[~missing]]
        yield (
            split,
            typ,
            sub,
            {
                "split": split,
                "type": typ,
                "rows": int(here.sum()),
                "scored": len(sub),
                "missing": int((here & missing).sum()),
                "invalid": int((sub["prediction_role"] == "invalid").sum()),
                tie_count: int((sub["prediction_role"] == "tie").sum()),
            },
        )


def stratified_rows(
    strata: Sequence[Stratum],
    *,
    order: Sequence[str] | None = None,
    level: float = 0.95,
    skip_undefined: bool = False,
    macro_from: int = 1,
) -> MetricRows:
    """Tidy rows of every stratum's metrics, then their macro averages, with the replicates of
    every row and the strata's draws in order.

    The macro row of a metric averages the strata where it is defined (the point values, and
    replicate by replicate the bootstrap values, ignoring undefined ones); its ``n`` is the sum
    of those strata's ``n`` and ``n_strata`` their number. ``order`` fixes the macro rows' order
    (default: first appearance); ``skip_undefined`` leaves NaN stratum rows out; macro rows are
    written only with at least ``macro_from`` strata.
    """
    import math

    import numpy as np

    from .stats import nanmean_rows

    rows = MetricRows(level)
    rows.replicates.draws.extend(s.draw for s in strata if s.draw is not None)
    for s in strata:
        for m, value in s.values.items():
            if skip_undefined and math.isnan(value):
                continue
            rows.add(m, s.split, s.type, value, s.replicates.get(m), s.n[m])
    if len(strata) < macro_from:
        return rows
    names = order if order is not None else list(dict.fromkeys(m for s in strata for m in s.values))
    for m in names:
        defined = [s for s in strata if m in s.values and not math.isnan(s.values[m])]
        if not defined:
            continue
        stack = [s.replicates[m] for s in defined if m in s.replicates]
        rows.add(
            m,
            "macro",
            "macro",
            float(np.mean([s.values[m] for s in defined])),
            nanmean_rows(stack) if stack else None,
            sum(s.n[m] for s in defined),
            n_strata=len(defined),
        )
    return rows
