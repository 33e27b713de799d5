"""The percentile rule and the macro intervals, checked where an off-by-one can show.

Replicates in the earlier tests were so coarse and tied that taking the quantile at ``q * n``
instead of ``q * (n - 1)`` gave the same number; here they are continuous. Every family's
macro replicates are recomputed from its strata's replicates (the mean over the strata where
the metric is defined), so a macro interval that leaves a stratum out fails."""

from __future__ import annotations

import math

import numpy as np
import pytest

from winoscope.runs.runner import run
from winoscope.scoring.stats import percentile_ci


def off_by_one(reps: np.ndarray, q: float) -> float:
    """The quantile at position q * n (the planted bug), for the test to tell apart."""
    s = np.sort(reps)
    pos = min(q * len(s), len(s) - 1)
    lo = math.floor(pos)
    return float(s[lo] + (pos - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo]))


def test_percentile_rule_on_continuous_replicates() -> None:
    rng = np.random.default_rng(7)
    for n in (19, 200, 1999):
        reps = rng.normal(size=n)
        lo, hi = percentile_ci(reps)
        want = np.quantile(reps, [0.025, 0.975], method="linear")
        assert (lo, hi) == pytest.approx(tuple(want), rel=1e-12, abs=1e-15)
        assert abs(lo - off_by_one(reps, 0.025)) > 1e-6  # the test can see the off-by-one
        assert abs(hi - off_by_one(reps, 0.975)) > 1e-6
    # (1 - 0.95) / 2 is 0.025000000000000022 in floating point: equal to 12 digits
    assert percentile_ci(np.arange(11.0)) == pytest.approx((0.25, 9.75), rel=1e-12)
    assert percentile_ci(np.arange(11.0), level=0.5) == pytest.approx((2.5, 7.5), rel=1e-12)
    with_nan = np.array([np.nan, 0.0, 1.0, 2.0, 3.0, np.nan])
    assert percentile_ci(with_nan) == pytest.approx((0.075, 2.925))
    assert all(math.isnan(x) for x in percentile_ci(np.array([np.nan, np.nan])))


MACRO_FAMILIES = [
    ("winobias-uk", "baseline:random"),
    ("winobias-uk/coref", "baseline:first"),
    ("winobias-uk-controlled", "baseline:random"),
]
SUMMARY_FAMILIES = [("winopron-uk", "baseline:random"), ("winopron-uk/coref", "baseline:first")]


def _check_interval(row: object, mine: np.ndarray) -> bool:
    if not np.isfinite(mine).any():
        return False
    lo, hi = np.quantile(mine[~np.isnan(mine)], [0.025, 0.975], method="linear")
    assert (row.ci_low, row.ci_high) == pytest.approx((lo, hi), abs=1e-12), row.metric  # type: ignore[attr-defined]
    return True


@pytest.mark.parametrize(("task", "model"), MACRO_FAMILIES)
def test_every_macro_interval_averages_every_stratum(task: str, model: str) -> None:
    """WinoBias: each macro replicate is the mean of the strata's replicates (split x type)."""
    rr = run(task, model, n_boot=300, seed=3)
    reps = rr.result.replicates.rows
    macro = rr.metrics[rr.metrics["split"] == "macro"]
    checked = 0
    for row in macro.itertuples(index=False):
        mine = reps[(str(row.metric), "macro", "macro")]
        if row.metric == "worst_group_accuracy":  # the lower of the macro pro and anti
            low = np.minimum(
                reps[("pro_accuracy", "macro", "macro")], reps[("anti_accuracy", "macro", "macro")]
            )
            np.testing.assert_array_equal(mine, low)
            checked += _check_interval(row, mine)
            continue
        strata = [v for (m, split, _), v in reps.items() if m == row.metric and split != "macro"]
        defined = [v for v in strata if np.isfinite(v).any()]
        assert len(defined) == int(row.n_strata), (row.metric, len(defined), row.n_strata)
        with np.errstate(all="ignore"):
            expected = np.nanmean(np.vstack(defined), axis=0)
        np.testing.assert_allclose(mine, expected, err_msg=str(row.metric))
        checked += _check_interval(row, mine)
    assert checked >= 5


@pytest.mark.parametrize(("task", "model"), SUMMARY_FAMILIES)
def test_every_summary_row_carries_its_strata_replicates(task: str, model: str) -> None:
    """WinoPron's summary rows (the card's results) are one stratum each, or the difference of
    two summary rows (a gap): their replicates are exactly those."""
    from winoscope.families.winopron.board_metrics import SUMMARY_ONLY
    from winoscope.scoring.metric import get_metric

    rr = run(task, model, n_boot=300, seed=3)
    reps = rr.result.replicates.rows
    metrics = rr.metrics
    checked = 0
    for row in metrics[metrics["split"] == "macro"].itertuples(index=False):
        mine = reps[(str(row.metric), "macro", "macro")]
        spec = get_metric(str(row.metric))
        if spec.role == "diagnostic":
            continue  # a check over all rows (option orders, invalid answers), not a stratum
        if row.metric == "absolute_gender_gap":  # |female - male|, replicate by replicate
            f, m = (reps[(c, "macro", "macro")] for c in spec.components)
            np.testing.assert_array_equal(mine, np.abs(f - m))
            checked += _check_interval(row, mine)
            continue
        if row.metric in SUMMARY_ONLY:
            # the evaluator's metrics over both contexts: a summary row only (by hand elsewhere)
            checked += _check_interval(row, mine)
            continue
        if spec.signed_gap:
            a, b = spec.components
            keys = [(a, "macro", "macro"), (b, "macro", "macro")]
            expected = reps[keys[0]] - reps[keys[1]] if all(k in reps for k in keys) else None
            if expected is None or not np.array_equal(mine, expected, equal_nan=True):
                assert any(
                    np.array_equal(mine, v, equal_nan=True)
                    for (m, split, _), v in reps.items()
                    if m == row.metric and split != "macro"
                ), row.metric
        else:
            sources = [
                k
                for k, v in reps.items()
                if k[1] != "macro" and np.array_equal(v, mine, equal_nan=True)
            ]
            assert sources, row.metric
            rows = metrics[(metrics["split"] == sources[0][1]) & (metrics["type"] == sources[0][2])]
            assert float(row.value) in set(rows["value"].astype(float)), row.metric
        checked += _check_interval(row, mine)
    assert checked >= 2


def test_a_winopron_coref_diff_has_a_paired_interval_on_every_row(tmp_path) -> None:
    """Its rows are renamed after scoring; the replicates follow them (they were lost: 42 of
    46 rows, the two CoNLL F1 headlines among them, had no interval and no p)."""
    import winoscope

    winoscope.run("winopron-uk/coref", "baseline:first", out=tmp_path / "a", n_boot=100)
    winoscope.run("winopron-uk/coref", "baseline:random", out=tmp_path / "b", n_boot=100)
    t = winoscope.diff(tmp_path / "a", tmp_path / "b").table
    defined = t[t["diff"].notna()]
    assert (
        len(defined) >= 40 and defined["ci_low"].notna().all() and defined["p_boot"].notna().all()
    )
    assert set(t.loc[t["family"], "metric"]) >= {"double_conll_f1", "single_conll_f1"}
