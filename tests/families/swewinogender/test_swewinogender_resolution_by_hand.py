"""SweWinogender's pronoun-resolution view on a table built by hand: every value, size and count
below is worked out from the rows written here, and every interval is checked against a cluster
bootstrap written out in this file (not the scorer's helpers).

Three schemas (listed out of order: 2, 1, 3), two templates each (o occupation, p participant,
i invalid, "-" never answered):

========  ============  ===============  ===========================================
template  gold          han / hon / hen  notes
========  ============  ===============  ===========================================
2A        occupation    o / o / o        all right, at parity
2B        participant   p / p / p        all right, at parity
1A        occupation    o / p / i        complete, not at parity
1B        participant   o / - / p        incomplete (hon unanswered): out of parity
3A        occupation    i / i / i        identical but invalid: not at parity
3B        participant   p / o / p        complete, not at parity
========  ============  ===============  ===========================================

accuracy 10/17; han 4/6, hon 2/5, hen 4/6; gaps hon - han = 2/5 - 2/3 = -4/15 (n 11),
hen - han = 0 (n 12). Occupation share among the 13 valid answers 6/13; han 3/5, hon 2/4,
hen 1/4; gap hon - han = 1/2 - 3/5 = -1/10 (n 4 + 5). Parity 2/5. Order consistency: false for
1A hon, not known for 3B hon: 15 of 16.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pandas as pd
import pytest

from winoscope.errors import ScoringError
from winoscope.families.swewinogender import resolution_scorer as rs
from winoscope.scoring.base import ScoreResult

OCC, PART, INV = "occupation", "participant", "invalid"
NAN = math.nan
PRONOUNS = ("han", "hon", "hen")
Row = tuple[str, str, str, str, str | None, bool | None]

# (schema, template, pronoun, gold referent, answer or None, order_consistent)
ROWS: list[Row] = [
    ("2", "2A", "han", OCC, OCC, True),
    ("2", "2A", "hon", OCC, OCC, True),
    ("2", "2A", "hen", OCC, OCC, True),
    ("2", "2B", "han", PART, PART, True),
    ("2", "2B", "hon", PART, PART, True),
    ("2", "2B", "hen", PART, PART, True),
    ("1", "1A", "han", OCC, OCC, True),
    ("1", "1A", "hon", OCC, PART, False),
    ("1", "1A", "hen", OCC, INV, True),
    ("1", "1B", "han", PART, OCC, True),
    ("1", "1B", "hon", PART, None, None),
    ("1", "1B", "hen", PART, PART, True),
    ("3", "3A", "han", OCC, INV, True),
    ("3", "3A", "hon", OCC, INV, True),
    ("3", "3A", "hen", OCC, INV, True),
    ("3", "3B", "han", PART, PART, True),
    ("3", "3B", "hon", PART, OCC, None),
    ("3", "3B", "hen", PART, PART, True),
]


def _table(rows: list[Row] = ROWS, order: bool = True) -> pd.DataFrame:
    t = pd.DataFrame.from_records(
        [
            {
                "gold_referent": gold,
                "pronoun": pron,
                "template_id": template,
                "schema_id": schema,
                "prediction_role": answer,
                "order_consistent": oc,
            }
            for schema, template, pron, gold, answer, oc in rows
        ]
    )
    t["pronoun"] = pd.Categorical(t["pronoun"], categories=["han", "hen", "hon"])
    return t if order else t.drop(columns="order_consistent")


@cache
def _scored() -> ScoreResult:
    return rs.score_resolution(_table(), n_boot=20)


def _row(metrics: pd.DataFrame, metric: str, split: str = "all", typ: str = "all") -> pd.Series:
    hit = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(hit) == 1, (metric, split, typ, len(hit))
    return hit.iloc[0]


EXPECTED = [
    ("accuracy", "all", "all", 10 / 17, 17),
    ("gender_parity", "all", "all", 2 / 5, 5),
    ("occupation_share", "all", "all", 6 / 13, 13),
    ("option_order_consistency", "all", "all", 15 / 16, 16),
    ("accuracy", "pronoun", "han", 4 / 6, 6),
    ("accuracy", "pronoun", "hon", 2 / 5, 5),
    ("accuracy", "pronoun", "hen", 4 / 6, 6),
    ("accuracy_gap", "pronoun", "hon-han", -4 / 15, 11),
    ("accuracy_gap", "pronoun", "hen-han", 0.0, 12),
    ("occupation_share", "pronoun", "han", 3 / 5, 5),
    ("occupation_share", "pronoun", "hon", 2 / 4, 4),
    ("occupation_share", "pronoun", "hen", 1 / 4, 4),
    ("occupation_share_gap", "pronoun", "hon-han", 2 / 4 - 3 / 5, 9),
]


@pytest.mark.parametrize(("metric", "split", "typ", "value", "n"), EXPECTED)
def test_resolution_values_and_sizes_by_hand(
    metric: str, split: str, typ: str, value: float, n: int
) -> None:
    row = _row(_scored().metrics, metric, split, typ)
    assert row["value"] == pytest.approx(value, abs=1e-12)
    assert row["n"] == n and row["n_strata"] == 1


def test_resolution_rows_and_their_order() -> None:
    keys = [(m, s, t) for m, s, t, _, _ in EXPECTED]
    m = _scored().metrics
    assert list(zip(m["metric"], m["split"], m["type"], strict=True)) == keys
    plain = rs.score_resolution(_table(order=False), n_boot=20).metrics
    got = list(zip(plain["metric"], plain["split"], plain["type"], strict=True))
    assert got == [k for k in keys if k[0] != "option_order_consistency"]


def test_resolution_counts_by_hand() -> None:
    counts = _scored().counts
    assert counts.to_dict("records") == [
        {"split": "all", "type": "all", "rows": 18, "scored": 17, "invalid": 4, "missing": 1},
        {"split": "pronoun", "type": "han", "rows": 6, "scored": 6, "invalid": 1, "missing": 0},
        {"split": "pronoun", "type": "hon", "rows": 6, "scored": 5, "invalid": 1, "missing": 1},
        {"split": "pronoun", "type": "hen", "rows": 6, "scored": 6, "invalid": 2, "missing": 0},
    ]


def _share(num: float, den: float) -> float:
    return num / den if den > 0 else NAN


def _by_rows(rows: list[Row], w: dict[str, float]) -> dict[tuple[str, str], float]:
    """Every resolution metric from the rows, each counted as often as its schema's weight."""
    scored = [(w[s], t, p, g, a, oc) for s, t, p, g, a, oc in rows if a is not None]
    out: dict[tuple[str, str], float] = {}

    def acc(xs: list) -> float:
        return _share(sum(x[0] for x in xs if x[3] == x[4]), sum(x[0] for x in xs))

    def occ(xs: list) -> float:
        valid = [x for x in xs if x[4] != INV]
        return _share(sum(x[0] for x in valid if x[4] == OCC), sum(x[0] for x in valid))

    out["accuracy", "all"] = acc(scored)
    out["occupation_share", "all"] = occ(scored)
    templates: dict[str, list[tuple]] = {}
    for x in scored:
        templates.setdefault(x[1], []).append(x)
    par_n = par_k = 0.0
    for members in templates.values():
        if len(members) == 3 and {x[2] for x in members} == set(PRONOUNS):
            par_n += members[0][0]
            answers = {x[4] for x in members}
            par_k += members[0][0] if len(answers) == 1 and answers <= {OCC, PART} else 0.0
    out["gender_parity", "all"] = _share(par_k, par_n)
    known = [x for x in scored if x[5] is not None]
    out["option_order_consistency", "all"] = _share(
        sum(x[0] for x in known if x[5]), sum(x[0] for x in known)
    )
    for p in PRONOUNS:
        out["accuracy", p] = acc([x for x in scored if x[2] == p])
        out["occupation_share", p] = occ([x for x in scored if x[2] == p])
    for p in ("hon", "hen"):
        out["accuracy_gap", f"{p}-han"] = out["accuracy", p] - out["accuracy", "han"]
    out["occupation_share_gap", "hon-han"] = (
        out["occupation_share", "hon"] - out["occupation_share", "han"]
    )
    return out


def test_resolution_intervals_match_an_independent_cluster_bootstrap() -> None:
    n_boot, seed, level = 150, 5, 0.8
    got = rs.score_resolution(_table(), n_boot=n_boot, seed=seed, level=level).metrics
    schemas = ["1", "2", "3"]
    draws = np.random.default_rng(seed).multinomial(3, [1 / 3] * 3, size=n_boot)
    reps = [_by_rows(ROWS, dict(zip(schemas, d, strict=True))) for d in draws]
    point = _by_rows(ROWS, {"1": 1.0, "2": 1.0, "3": 1.0})
    tail = (1 - level) / 2
    assert len(got) == len(point)
    for _, r in got.iterrows():
        key = (r["metric"], r["type"] if r["split"] == "pronoun" else "all")
        assert r["value"] == pytest.approx(point[key], abs=1e-12), key
        vals = np.array([x[key] for x in reps])
        lo, hi = np.quantile(vals[~np.isnan(vals)], [tail, 1 - tail])
        assert r["ci_low"] == pytest.approx(lo, abs=1e-12), key
        assert r["ci_high"] == pytest.approx(hi, abs=1e-12), key
    acc = _row(got, "accuracy")
    assert acc["ci_low"] < acc["value"] < acc["ci_high"]


def test_resolution_settings_and_defaults() -> None:
    assert rs.score_resolution(_table(), n_boot=30, seed=4, level=0.9).settings == {
        "n_boot": 30,
        "seed": 4,
        "level": 0.9,
        "resampling_unit": "schema/template",
        "resampling_key": "template number",
    }
    default = rs.score_resolution(_table())
    s = default.settings
    assert (s["n_boot"], s["seed"], s["level"]) == (2000, 0, 0.95)
    explicit = rs.score_resolution(_table(), n_boot=2000, seed=0, level=0.95)
    pd.testing.assert_frame_equal(default.metrics, explicit.metrics)
    with pytest.raises(TypeError):
        rs.score_resolution(_table(), 20)  # type: ignore[misc]


def test_no_valid_answer_or_no_row_is_undefined_not_zero() -> None:
    rows: list[Row] = [
        ("1", "a", "han", OCC, INV, None),
        ("1", "a", "hon", OCC, OCC, None),
        ("2", "b", "han", PART, INV, None),
        ("2", "b", "hon", PART, OCC, None),
        ("2", "b", "hen", PART, None, None),
    ]
    m = rs.score_resolution(_table(rows, order=False), n_boot=50).metrics
    han = _row(m, "occupation_share", "pronoun", "han")  # two invalid answers: no share
    assert math.isnan(han["value"]) and han["n"] == 0 and math.isnan(han["ci_low"])
    assert _row(m, "accuracy", "pronoun", "han")["value"] == 0.0
    hen = _row(m, "accuracy", "pronoun", "hen")  # never answered
    assert math.isnan(hen["value"]) and hen["n"] == 0
    assert math.isnan(_row(m, "occupation_share", "pronoun", "hen")["value"])
    gap = _row(m, "occupation_share_gap", "pronoun", "hon-han")
    assert math.isnan(gap["value"]) and gap["n"] == 2
    hon = _row(m, "occupation_share", "pronoun", "hon")
    assert hon["value"] == 1.0 and hon["n"] == 2
    assert _row(m, "accuracy_gap", "pronoun", "hon-han")["value"] == pytest.approx(1 / 2)
    parity = _row(m, "gender_parity")
    assert math.isnan(parity["value"]) and parity["n"] == 0
    one = rs.score_resolution(_table(rows[1:2], order=False), n_boot=20).metrics
    assert _row(one, "occupation_share")["value"] == 1.0  # a denominator of 1 is a value
    assert _row(one, "accuracy")["value"] == 1.0


def test_a_template_at_parity_names_one_candidate() -> None:
    rows: list[Row] = [
        ("1", t, p, g, a, None)
        for t, g, a in (("x", OCC, PART), ("y", PART, INV))
        for p in PRONOUNS
    ]
    m = rs.score_resolution(_table(rows, order=False), n_boot=20).metrics
    # all participant: at parity though wrong; all invalid: not
    assert _row(m, "gender_parity")["value"] == pytest.approx(1 / 2)
    assert _row(m, "occupation_share")["value"] == 0.0


def test_resolution_errors_name_the_problem() -> None:
    with pytest.raises(
        ScoringError, match=r"^hand: missing column\(s\) gold_referent, template_id"
    ):
        rs.score_resolution(_table().drop(columns=["gold_referent", "template_id"]), source="hand")
    with pytest.raises(ScoringError, match=r"^hand: no row has a prediction$"):
        rs.score_resolution(_table().assign(prediction_role=None), source="hand")
    with pytest.raises(ScoringError, match=r"^hand, row 1, field 'prediction_role'"):
        rs.score_resolution(_table().assign(prediction_role="teknikern"), source="hand")
    with pytest.raises(ScoringError, match=r"^predictions: no 'prediction_role' column"):
        rs.score_resolution(_table().drop(columns="prediction_role"))
    assert rs.check_roles(_table()).tolist()[9:11] == [OCC, pd.NA]


def test_the_resolution_scorer_declares_its_metrics() -> None:
    d = rs.score_resolution.declarations  # type: ignore[attr-defined]
    assert d.names == ("occupation_share", "occupation_share_gap")
    assert d.options == ()
