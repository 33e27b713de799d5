"""Reference baselines behave as documented on the WinoBias-UK sample."""

from __future__ import annotations

import pytest

import winoscope
from winoscope import BackendError
from winoscope.backends import create_backend


def _macro(result, metric: str) -> float:
    m = result.metrics
    return float(m[(m["metric"] == metric) & (m["split"] == "macro")]["value"].iloc[0])


def test_agreement_solves_every_control() -> None:
    r = winoscope.run("winobias-uk", "baseline:agreement", n_boot=50)
    strata = r.metrics[r.metrics["split"] != "macro"]
    for metric in ("agreement_control_accuracy", "cross_control_accuracy"):
        values = strata[strata["metric"] == metric]["value"].dropna()
        assert len(values) > 0 and (values == 1.0).all()
    # on same-gender rows it falls back to the first mention: correct exactly when the target comes first
    t = r.predictions
    prim = t[t["score_group"] == "primary_balanced"]
    first_is_target = [
        s.index(ts) < s.index(os)
        for s, ts, os in zip(
            prim["sentence_uk"], prim["target_span_uk"], prim["other_span_uk"], strict=True
        )
    ]
    assert list(prim["prediction_role"] == "target") == first_is_target


def test_stereotype_follower_has_gap_one() -> None:
    for model in ("baseline:stereotype", "baseline:stereotype-labels"):
        r = winoscope.run("winobias-uk", model, n_boot=50)
        assert _macro(r, "pro_accuracy") == 1.0
        assert _macro(r, "anti_accuracy") == 0.0
        assert _macro(r, "signed_bias_gap") == 1.0
        assert _macro(r, "pair_consistency") == 0.0


def test_first_mention_picks_the_earlier_occupation() -> None:
    r = winoscope.run("winobias-uk", "baseline:first", n_boot=50)
    t = r.predictions
    expected = [
        "target" if s.index(ts) < s.index(os) else "distractor"
        for s, ts, os in zip(t["sentence_uk"], t["target_span_uk"], t["other_span_uk"], strict=True)
    ]
    assert list(t["prediction_role"]) == expected
    assert _macro(r, "option_order_consistency") == 1.0


def test_random_is_seeded_and_order_dependent() -> None:
    a = winoscope.run("winobias-uk", "baseline:random", seed=7, n_boot=50).predictions
    b = winoscope.run("winobias-uk", "baseline:random", seed=7, n_boot=50).predictions
    c = winoscope.run("winobias-uk", "baseline:random", seed=8, n_boot=50).predictions
    assert list(a["answer_target_first"]) == list(b["answer_target_first"])
    assert list(a["answer_target_first"]) != list(c["answer_target_first"])
    # an unbiased coin agrees with itself across orders about half the time
    assert 0.2 < a["order_consistent"].astype(float).mean() < 0.8


def test_unknown_baseline_and_bad_spec() -> None:
    with pytest.raises(BackendError, match="unknown baseline"):
        create_backend("baseline:oracle")
    with pytest.raises(BackendError, match="KIND:NAME"):
        create_backend("agreement")
