"""The bootstrap engine on cases worked out by hand: the draw (seeded multinomial counts over the
units), a statistic's replicates checked against the resampled rows written out, the point
value, the edge cases (one unit, no replicate, draws where the statistic is undefined), the
draws' fingerprints and the replicates a scorer returns by metric row."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from winoscope.scoring.base import MetricRows
from winoscope.scoring.bootstrap import Draw, Replicates, bootstrap, interval, resample_weights

# three clusters (units) of rows, 1 = a correct row: accuracy is right rows / rows
CLUSTERS = [[1], [0, 0], [1, 1, 0]]


def _accuracy(w: np.ndarray) -> np.ndarray:
    """Accuracy for each weight row, from per-cluster sums (what a scorer's statistic does)."""
    k = np.array([sum(c) for c in CLUSTERS], dtype=float)
    n = np.array([len(c) for c in CLUSTERS], dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ k) / (w @ n)


def _resampled_accuracy(counts: np.ndarray) -> float:
    """The same accuracy on the resampled rows written out: each cluster repeated its count."""
    rows = [
        r for c, times in zip(CLUSTERS, counts, strict=True) for _ in range(int(times)) for r in c
    ]
    return sum(rows) / len(rows) if rows else math.nan


def test_resample_weights_draw_n_items_with_equal_chances() -> None:
    w = resample_weights(4, 5000, np.random.default_rng(0))
    assert w.shape == (5000, 4) and w.dtype == float
    assert (w.sum(axis=1) == 4).all()  # every resample has as many items as the data
    assert np.allclose(w.mean(axis=0), 1.0, atol=0.05)  # each item drawn once on average
    # one item: always itself; none: an empty draw
    assert (resample_weights(1, 3, np.random.default_rng(0)) == 1.0).all()
    empty = resample_weights(0, 3, np.random.default_rng(0))
    assert empty.shape == (3, 0)
    again = resample_weights(4, 5000, np.random.default_rng(0))
    assert np.array_equal(w, again)  # seeded


def test_a_replicate_is_the_statistic_on_one_resample_of_the_clusters() -> None:
    seen: list[np.ndarray] = []

    def statistic(w: np.ndarray) -> np.ndarray:
        seen.append(w)
        return _accuracy(w)

    boot = bootstrap(statistic, 3, n_boot=25, rng=7)
    counts = seen[0]
    # the draw: seeded multinomial counts of the 3 clusters, 3 per resample
    expected = np.random.default_rng(7).multinomial(3, [1 / 3] * 3, size=25)
    assert np.array_equal(counts, expected) and counts.dtype == float
    for b in range(25):
        assert boot.replicates[b] == pytest.approx(_resampled_accuracy(counts[b]), abs=1e-15)
    # the point value: the data as they are, 3 right rows of 6
    assert np.array_equal(seen[1], np.ones((1, 3)))
    assert boot.value() == 0.5
    digest = hashlib.sha256(counts.tobytes()).hexdigest()[:16]
    assert boot.draw == Draw(25, 3, digest)
    lo, hi = np.quantile(boot.replicates, [0.025, 0.975])
    assert boot.interval() == pytest.approx((lo, hi), abs=1e-15)


def test_a_given_point_is_kept_and_the_statistic_runs_once() -> None:
    calls: list[tuple[int, ...]] = []

    def statistic(w: np.ndarray) -> dict[str, np.ndarray]:
        calls.append(w.shape)
        return {"acc": _accuracy(w)}

    boot = bootstrap(statistic, 3, n_boot=4, rng=0, point={"acc": np.array([0.25])})
    assert calls == [(4, 3)]
    assert boot.value("acc") == 0.25
    assert boot.replicates["acc"].shape == (4,)


def test_one_cluster_gives_every_replicate_the_point_value() -> None:
    boot = bootstrap(lambda w: w @ np.array([2.0]) / (w @ np.array([3.0])), 1, n_boot=6, rng=1)
    assert boot.replicates.tolist() == [2 / 3] * 6
    assert boot.interval() == (2 / 3, 2 / 3)
    assert boot.draw[:2] == (6, 1)


def test_no_replicate_gives_an_undefined_interval() -> None:
    boot = bootstrap(_accuracy, 3, n_boot=0, rng=0)
    assert boot.replicates.shape == (0,)
    assert boot.value() == 0.5
    assert all(math.isnan(x) for x in boot.interval())
    assert boot.draw == Draw(0, 3, hashlib.sha256(b"").hexdigest()[:16])


def test_draws_where_the_statistic_is_undefined_are_left_out_of_the_interval() -> None:
    # right rows among the "pro" rows: cluster 1 has one (right), cluster 2 none, so a resample
    # of cluster 2 alone has no pro row and no accuracy
    k, n = np.array([1.0, 0.0]), np.array([1.0, 0.0])

    def pro_accuracy(w: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(w @ n > 0, (w @ k) / np.where(w @ n > 0, w @ n, 1), np.nan)

    boot = bootstrap(pro_accuracy, 2, n_boot=40, rng=3)
    counts = np.random.default_rng(3).multinomial(2, [0.5, 0.5], size=40)
    undefined = counts[:, 0] == 0  # cluster 1 not drawn: 1 in 4 resamples on average
    assert 0 < undefined.sum() < 40
    assert np.array_equal(np.isnan(boot.replicates), undefined)
    assert (boot.replicates[~undefined] == 1.0).all()
    assert boot.interval() == (1.0, 1.0)  # over the defined replicates only
    assert all(math.isnan(x) for x in interval(math.nan, boot.replicates))  # no value, no bounds


def test_strata_drawn_from_one_generator_follow_each_other() -> None:
    gen = np.random.default_rng(11)
    first = bootstrap(_accuracy, 3, n_boot=5, rng=gen)
    second = bootstrap(_accuracy, 3, n_boot=5, rng=gen)
    again = np.random.default_rng(11)
    w1 = again.multinomial(3, [1 / 3] * 3, size=5).astype(float)
    w2 = again.multinomial(3, [1 / 3] * 3, size=5).astype(float)
    assert first.draw == Draw.of(w1) and second.draw == Draw.of(w2)
    assert first.draw != second.draw
    assert bootstrap(_accuracy, 3, n_boot=5, rng=11).draw == first.draw  # a seed: a generator


def test_a_draw_is_its_shape_and_the_digest_of_its_counts() -> None:
    weights = np.array([[2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    first = hashlib.sha256(weights.tobytes()).hexdigest()[:16]
    second = hashlib.sha256(np.array([[2.0, 1.0], [0.0, 1.0], [1.0, 1.0]]).tobytes())
    assert Draw.of(weights) == (2, 3, first)
    assert Draw.of(weights.T) == (3, 2, second.hexdigest()[:16])  # in row order
    assert len(first) == 16


def test_replicates_keep_flat_float_copies_and_follow_renamed_rows() -> None:
    reps = Replicates(draws=[Draw(2, 2, "d")])
    values = np.array([[1, 2], [3, 4]])
    reps.keep("acc", 1, 2, values)  # type: ignore[arg-type]
    values[0, 0] = 99  # a copy was kept, not a view
    got = reps.rows[("acc", "1", "2")]
    assert got.dtype == float and got.tolist() == [1.0, 2.0, 3.0, 4.0]
    renamed = reps.renamed(
        [(("acc", "1", "2"), ("accuracy", "1", "2")), (("x", "s", "t"), ("y", "s", "t"))]
    )
    assert list(renamed.rows) == [("accuracy", "1", "2")]  # only what was kept moves
    assert renamed.draws == reps.draws
    assert renamed.rows[("accuracy", "1", "2")].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_replicates_compare_by_rows_nan_alike_and_by_draws() -> None:
    a = Replicates({("m", "s", "t"): np.array([0.5, np.nan])}, [Draw(2, 1, "d")])
    b = Replicates({("m", "s", "t"): np.array([0.5, np.nan])}, [Draw(2, 1, "d")])
    assert a == b
    assert a != Replicates({("m", "s", "t"): np.array([0.5, 1.0])}, [Draw(2, 1, "d")])
    assert a != Replicates(dict(a.rows), [Draw(2, 1, "e")])
    assert a != Replicates({("n", "s", "t"): np.array([0.5, np.nan])}, [Draw(2, 1, "d")])


def test_metric_rows_keep_the_replicates_of_bootstrapped_rows_only() -> None:
    rows = MetricRows(level=0.5)
    rows.add("acc", "s", "t", 0.5, np.array([0.0, 1.0, 2.0]), n=3)
    rows.add("rate", "s", "t", 0.25, None, n=4)
    rows.add("gap", "s", "t", math.nan, np.array([1.0]), n=2)
    assert list(rows.replicates.rows) == [("acc", "s", "t"), ("gap", "s", "t")]
    first, second, third = rows.records
    assert (first["ci_low"], first["ci_high"]) == (0.5, 1.5)  # the 25th and 75th percentiles
    assert math.isnan(second["ci_low"]) and math.isnan(third["ci_high"])
