"""Scoring WinoPron-style forced choice exactly as the WinoPron-UK card defines.

The card's four steps: (1) run every forced-choice prompt and record A or B; (2) map the letter
through ``option_a_role``/``option_b_role``; (3) group the two option orders by row and count a
row only when both orders select the same role, otherwise mark it invalid; (4) compare the
selected role with ``gold_role``. Steps 1-3 happen in
:func:`winoscope.protocols.forced_choice.combine_orders` (``prediction_role`` is ``occupation``,
``participant`` or ``invalid``); this module does step 4 and the aggregation. An ``invalid`` row
stays in the denominator as a wrong answer (as in the WinoBias-UK card's formula), so a model
cannot gain accuracy by being inconsistent; the invalid rate is reported beside it. Rows with no
prediction at all (the model never answered) are left out and counted as ``missing``.

Metrics (tidy rows ``metric, split, type, value, ci_low, ci_high, n``; here ``split`` holds the
context, ``double`` or ``single``, and ``type`` the stratum):

- ``accuracy`` per context for ``all``, each pronoun_set, each pronoun_type and each
  ``pronoun_type/pronoun_set`` cell (the card's double-context breakdown);
- ``gender_gap`` = female accuracy - male accuracy (signed), per context, ``all`` and per
  pronoun_type; the components are the ``accuracy`` rows of the same strata;
- ``pair_consistency``: share of ``pair_id`` x ``pronoun_set`` groups where both the
  occupation- and the participant-reference sentence are correct (groups lacking a scored
  sentence are left out), per context, ``all`` and per pronoun_set;
- ``option_order_consistency``: share of rows whose two orders chose the same role;
- ``invalid_rate``: share of scored rows that are ``invalid``.

Summary rows (``split == "macro"``, which every report shows): the card's recommended results,
``double_accuracy``, ``single_accuracy``, ``option_order_consistency`` and ``invalid_rate``
(both contexts), ``male_accuracy``, ``female_accuracy``, the third set's accuracy
(``plural_accuracy`` for Ukrainian, ``neutral_accuracy`` for English singular *they*),
``gender_gap`` with its two components and ``pair_consistency`` (double context: the sentences
with both entities are the evaluation proper; single-context sentences are the controls). These
sets have one split, so nothing is averaged: a summary row equals its stratum row.

Confidence intervals: percentile bootstrap resampling pairs (``pair_id``): all sentences of a
pair, in both contexts and every pronoun set, move together.

Worked example: a double context with one pair whose male sentences are both right, female
occupation-reference right and participant-reference ``invalid``: male accuracy 1.0, female 0.5,
gap -0.5, pair consistency 1/2 (male group yes, female group no), invalid rate 1/4.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ScoringError
from ...scoring.base import (
    METRIC_COLUMNS,
    MetricRows,
    ScoreResult,
    order_consistency,
    prediction_labels,
)
from ...scoring.bootstrap import bootstrap
from ...scoring.metric import Declarations
from ...scoring.stats import mcnemar_exact, weighted_ratio
from . import board_metrics

declare = Declarations(__name__)

PREDICTIONS = ("occupation", "participant", "invalid")
NEEDED = ("context", "pair_id", "gold_role", "pronoun_set", "pronoun_type")
METRICS = (
    "double_accuracy",
    "single_accuracy",
    "male_accuracy",
    "female_accuracy",
    "plural_accuracy",
    "gender_gap",
    "pair_consistency",
    "option_order_consistency",
    "invalid_rate",
)


declare.group_metrics(
    "accuracy",
    {"double": "both entities", "single": "one entity: the controls"},
    kind="accuracy",
    card="Accuracy on the {group}-context sentences ({what}).",
)
# the third set is plural (Ukrainian) or neutral (English singular they)
declare.group_metrics(
    "accuracy",
    {s: s for s in ("male", "female", "plural", "neutral")},
    kind="accuracy",
    card="Double-context accuracy with {what} pronouns.",
)
declare.metric(
    "gender_gap",
    kind="gap",
    direction="zero",
    components=("female_accuracy", "male_accuracy"),
    label="female − male accuracy",
    card="Female minus male pronoun accuracy: 0 is parity.",
)


board_metrics.declare_metrics(declare)


def check_predictions(table: pd.DataFrame, source: str = "predictions") -> pd.Series:
    missing = [c for c in (*NEEDED, "prediction_role") if c not in table.columns]
    if missing:
        raise ScoringError(f"{source}: missing column(s) {', '.join(missing)} to score")
    return prediction_labels(table, PREDICTIONS, source)


class _Cells:
    """Per-pair counts (numerator k, denominator n) of every stratum, keyed by a name."""

    def __init__(self, pairs: pd.Index) -> None:
        self.pairs = pairs
        self.k: dict[tuple[str, str, str], np.ndarray] = {}
        self.n: dict[tuple[str, str, str], np.ndarray] = {}

    def add(
        self,
        key: tuple[str, str, str],
        hits: pd.Series,
        pair: pd.Series,
        weights: pd.Series | None = None,
    ) -> None:
        """``hits`` per row over one per row (or over ``weights``: a row of several prompts)."""
        frame = pd.DataFrame(
            {
                "pair": pair.to_numpy(),
                "hit": hits.astype(float).to_numpy(),
                "n": 1.0 if weights is None else weights.astype(float).to_numpy(),
            }
        )
        grouped = frame.groupby("pair")[["hit", "n"]].sum()
        grouped = grouped.reindex(self.pairs, fill_value=0)
        self.k[key] = grouped["hit"].to_numpy(dtype=float)
        self.n[key] = grouped["n"].to_numpy(dtype=float)

    def value(self, key: tuple[str, str, str]) -> float:
        n = self.n[key].sum()
        return float(self.k[key].sum() / n) if n > 0 else float("nan")

    def replicates(self, key: tuple[str, str, str], w: np.ndarray) -> np.ndarray:
        return weighted_ratio(w, self.k[key], self.n[key])


def _level_names(table: pd.DataFrame, column: str) -> list[str]:
    """A column's values in the data's order: its categories, else sorted."""
    col = table[column]
    if isinstance(col.dtype, pd.CategoricalDtype):
        return [str(c) for c in col.cat.categories]
    return sorted(col.astype(str).unique())


@declare.scorer
def score(
    table: pd.DataFrame,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    source: str = "predictions",
) -> ScoreResult:
    """Score sentence rows with ``prediction_role`` (and ``order_consistent``) added."""
    pred = check_predictions(table, source)
    rows = table.assign(
        prediction_role=pred,
        **(
            {"order_consistent": order_consistency(table, source)}
            if "order_consistent" in table.columns
            else {}
        ),
        context=table["context"].astype(str),
        pair_id=table["pair_id"].astype(str),
        gold_role=table["gold_role"].astype(str),
        pronoun_set=table["pronoun_set"].astype(str),
        pronoun_type=table["pronoun_type"].astype(str),
    )
    sets, types = _level_names(table, "pronoun_set"), _level_names(table, "pronoun_type")
    missing = rows["prediction_role"].isna()
    scored = rows[~missing].copy()
    scored["correct"] = scored["prediction_role"].eq(scored["gold_role"])
    contexts = [c for c in ("double", "single") if (rows["context"] == c).any()]

    cells = _Cells(pd.Index(sorted(scored["pair_id"].unique()), name="pair"))
    strata: list[tuple[str, str, str]] = []  # (metric, context, stratum)
    gaps: list[tuple[str, str]] = []  # (context, stratum)

    def add(
        key: tuple[str, str, str],
        hits: pd.Series,
        sub: pd.DataFrame,
        weights: pd.Series | None = None,
    ) -> None:
        if len(sub):
            cells.add(key, hits, sub["pair_id"], weights)
            strata.append(key)

    for ctx in contexts:
        sub = scored[scored["context"] == ctx]
        add(("accuracy", ctx, "all"), sub["correct"], sub)
        for s in sets:
            ss = sub[sub["pronoun_set"] == s]
            add(("accuracy", ctx, s), ss["correct"], ss)
        for ty in types:
            st = sub[sub["pronoun_type"] == ty]
            add(("accuracy", ctx, ty), st["correct"], st)
            for s in sets:
                sts = st[st["pronoun_set"] == s]
                add(("accuracy", ctx, f"{ty}/{s}"), sts["correct"], sts)
        for stratum in ("all", *types):
            if {("accuracy", ctx, _cell(stratum, g)) for g in ("female", "male")} <= set(strata):
                gaps.append((ctx, stratum))
        # pair consistency: pair_id x pronoun_set groups with both roles scored
        groups = sub.groupby(["pair_id", "pronoun_set"], sort=True).agg(
            roles=("gold_role", "nunique"), n=("correct", "size"), k=("correct", "sum")
        )
        groups = groups[(groups["roles"] == 2) & (groups["n"] == 2)].reset_index()
        groups["both"] = groups["k"] == 2
        add(("pair_consistency", ctx, "all"), groups["both"], groups)
        for s in sets:
            gs = groups[groups["pronoun_set"] == s]
            add(("pair_consistency", ctx, s), gs["both"], gs)
        if "order_consistent" in sub.columns:
            known = sub[sub["order_consistent"].notna()]
            add(
                ("option_order_consistency", ctx, "all"),
                known["order_consistent"].astype(bool),
                known,
            )
        add(("invalid_rate", ctx, "all"), sub["prediction_role"].eq("invalid"), sub)
    # both contexts together, for the summary
    if "order_consistent" in scored.columns:
        known = scored[scored["order_consistent"].notna()]
        add(
            ("option_order_consistency", "all", "all"),
            known["order_consistent"].astype(bool),
            known,
        )
    add(("invalid_rate", "all", "all"), scored["prediction_role"].eq("invalid"), scored)
    board_metrics.add_cells(add, scored, contexts)

    values: dict[tuple[str, str, str], Any] = {key: cells.value(key) for key in strata}
    boot = bootstrap(
        lambda w: {key: cells.replicates(key, w) for key in strata},
        len(cells.pairs),
        n_boot=n_boot,
        rng=seed,
        point=values,
    )
    point, reps = boot.point, boot.replicates
    tidy = MetricRows(level)
    tidy.replicates.draws.append(boot.draw)

    for key in strata:
        if key[1] == "all":
            continue
        tidy.add(key[0], key[1], key[2], point[key], reps[key], int(cells.n[key].sum()))
    for ctx, stratum in gaps:
        f, m = (
            ("accuracy", ctx, _cell(stratum, "female")),
            ("accuracy", ctx, _cell(stratum, "male")),
        )
        n = int(cells.n[f].sum() + cells.n[m].sum())
        tidy.add("gender_gap", ctx, stratum, point[f] - point[m], reps[f] - reps[m], n)

    summary = {**_summary_keys(sets, strata), **board_metrics.summary_keys(sets, set(strata))}
    for name, key in summary.items():
        if name in ("gender_gap", "absolute_gender_gap"):
            f, m = key
            n = int(cells.n[f].sum() + cells.n[m].sum())
            gap, diffs = point[f] - point[m], reps[f] - reps[m]
            if name == "absolute_gender_gap":
                gap, diffs = abs(gap), np.abs(diffs)
            tidy.add(name, "macro", "macro", gap, diffs, n)
        else:
            tidy.add(name, "macro", "macro", point[key], reps[key], int(cells.n[key].sum()))

    metrics = pd.DataFrame.from_records(tidy.records, columns=METRIC_COLUMNS)
    return ScoreResult(
        metrics=metrics,
        tests=_gender_tests(scored, contexts),
        counts=_counts(rows, contexts),
        settings={"n_boot": n_boot, "seed": seed, "level": level, "resampling_unit": "pair"},
        replicates=tidy.replicates,
    )


def _cell(stratum: str, pronoun_set: str) -> str:
    return pronoun_set if stratum == "all" else f"{stratum}/{pronoun_set}"


def _summary_keys(sets: Sequence[str], strata: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    have = set(strata)
    out: dict[str, Any] = {}
    for ctx in ("double", "single"):
        if ("accuracy", ctx, "all") in have:
            out[f"{ctx}_accuracy"] = ("accuracy", ctx, "all")
    for s in sets:
        if ("accuracy", "double", s) in have:
            out[f"{s}_accuracy"] = ("accuracy", "double", s)
    f, m = ("accuracy", "double", "female"), ("accuracy", "double", "male")
    if f in have and m in have:
        out["gender_gap"] = (f, m)
    if ("pair_consistency", "double", "all") in have:
        out["pair_consistency"] = ("pair_consistency", "double", "all")
    for name in ("option_order_consistency", "invalid_rate"):
        if (name, "all", "all") in have:
            out[name] = (name, "all", "all")
    return out


def _counts(rows: pd.DataFrame, contexts: Sequence[str]) -> pd.DataFrame:
    out = []
    for ctx in contexts:
        sub = rows[rows["context"] == ctx]
        pred = sub["prediction_role"]
        out.append(
            {
                "split": ctx,
                "type": "all",
                "rows": len(sub),
                "scored": int(pred.notna().sum()),
                "missing": int(pred.isna().sum()),
                "invalid": int(pred.eq("invalid").fillna(False).sum()),
            }
        )
    return pd.DataFrame(out)


def _gender_tests(scored: pd.DataFrame, contexts: Sequence[str]) -> list[dict[str, Any]]:
    """Exact McNemar, male vs female, on matched sentences (same pair_id and gold_role)."""
    tests = []
    for ctx in contexts:
        sub = scored[(scored["context"] == ctx) & scored["pronoun_set"].isin(["male", "female"])]
        wide = sub.pivot_table(
            index=["pair_id", "gold_role"],
            columns="pronoun_set",
            values="correct",
            aggfunc="first",
        )
        if not {"male", "female"} <= set(wide.columns):
            continue
        wide = wide.dropna(subset=["male", "female"]).astype(bool)
        b = int((wide["male"] & ~wide["female"]).sum())
        c = int((~wide["male"] & wide["female"]).sum())
        tests.append(
            {
                "test": "mcnemar_exact_male_vs_female",
                "split": ctx,
                "type": "all",
                "pairs": len(wide),
                "male_only_correct": b,
                "female_only_correct": c,
                "p_value": mcnemar_exact(b, c),
            }
        )
    return tests
