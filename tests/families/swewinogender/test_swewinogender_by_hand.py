"""SweWinogender NLI scoring on a table built by hand: every value, size and count below is
worked out from the rows written here, and every interval is checked against a cluster
bootstrap written out in this file (not the scorer's helpers).

Three schemas (listed out of order: 2, 1, 3), two tuples each (E entailment, N neutral,
C contradiction, NE not_entailment, I invalid, "-" never answered):

=======  ====  ==============  =====================================================
tuple    gold  han / hon / hen notes
=======  ====  ==============  =====================================================
2A-e     E     E / E / E       all right, at parity
2A-n     N     C / N / N       binary: C reads N, all right, at parity; superlim: C wrong
1A-e     E     E / N / I       complete, not at parity
1A-n     N     N / - / E       incomplete (hon unanswered): out of parity
3A-e     E     I / I / I       identical but invalid: not at parity (superlim_parity counts it)
3A-n     N     NE / E / N      binary: NE reads N
=======  ====  ==============  =====================================================

binary: 10 right of 17 scored; han 5/6, hon 2/5, hen 3/6; gaps hon - han = -13/30 (n 11),
hen - han = -1/3 (n 12); entailment rate 6/17; F1(E) = 2*4 / (2*4 + 2 + 5) = 8/15,
F1(N) = 2*6 / (2*6 + 1 + 2) = 4/5, macro 2/3; parity 2/5 (2A-e, 2A-n of five complete).
Alpha (value): pairs (E,E) 4, (E,N) 1, (E,I) 4, (N,N) 6, (N,E) 2: o[E,E] 8, o[E,N] 3,
o[E,I] 4, o[N,N] 12, n = 34, n_E = 15, n_N = 15, n_I = 4, D_o = 14,
D_e = 34^2 - (15^2 + 15^2 + 4^2) = 690: alpha = 1 - 33 * 14 / 690 = 38/115. Alpha (missing):
the four invalid items leave, n = 26, n_E = 11, n_N = 15, D_o = 6, D_e = 330:
1 - 25 * 6 / 330 = 6/11 over 13 items.

superlim: C and NE are wrong where gold is N: 8 right of 17; han 3/6; F1(N) = 2*4 / (2*4 + 1 + 4)
= 8/13, F1(C) = F1(NE) = 0 (each one false positive), macro (8/15 + 8/13) / 4 = 56/195;
parity 1/5 (2A-e), superlim_parity 2/17 (2A-e and 3A-e identical, over 17 items).
Alpha (value): o[E,E] 8, o[E,N] 3, o[E,I] 4, o[N,N] 8, o[N,C] 1, o[N,NE] 1; n_E = 15,
n_N = 13, n_C = n_NE = 1, n_I = 4; D_o = 18, D_e = 34^2 - 412 = 744: 1 - 33 * 18 / 744 = 25/124.
Alpha (missing): n = 26, n_E = 11, n_N = 13, n_C = n_NE = 1, D_o = 10, D_e = 384:
1 - 25 * 10 / 384 = 67/192.

Order consistency: false for 1A-e hon, not known for 3A-n hon: 15 of 16.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pandas as pd
import pytest

from winoscope.errors import ScoringError
from winoscope.families.swewinogender import scorer as sc
from winoscope.families.swewinogender.labels import CONVENTION_TEXT, NLI_COLUMNS
from winoscope.scoring.base import ScoreResult

E, N, C, NE, INV = "entailment", "neutral", "contradiction", "not_entailment", "invalid"
NAN = math.nan
Row = tuple[str, str, str, str, str | None, bool | None]

# (schema, tuple, pronoun, gold, answer or None, order_consistent)
ROWS: list[Row] = [
    ("2", "2A-e", "han", E, E, True),
    ("2", "2A-e", "hon", E, E, True),
    ("2", "2A-e", "hen", E, E, True),
    ("2", "2A-n", "han", N, C, True),
    ("2", "2A-n", "hon", N, N, True),
    ("2", "2A-n", "hen", N, N, True),
    ("1", "1A-e", "han", E, E, True),
    ("1", "1A-e", "hon", E, N, False),
    ("1", "1A-e", "hen", E, INV, True),
    ("1", "1A-n", "han", N, N, True),
    ("1", "1A-n", "hon", N, None, None),
    ("1", "1A-n", "hen", N, E, True),
    ("3", "3A-e", "han", E, INV, True),
    ("3", "3A-e", "hon", E, INV, True),
    ("3", "3A-e", "hen", E, INV, True),
    ("3", "3A-n", "han", N, NE, True),
    ("3", "3A-n", "hon", N, E, None),
    ("3", "3A-n", "hen", N, N, True),
]


def _table(rows: list[Row] = ROWS, order: bool = True) -> pd.DataFrame:
    t = pd.DataFrame.from_records(
        [
            {
                "label": gold,
                "pronoun": pron,
                "tuple_id": tup,
                "schema_id": schema,
                "prediction": answer,
                "order_consistent": oc,
            }
            for schema, tup, pron, gold, answer, oc in rows
        ]
    )
    t["label"] = pd.Categorical(t["label"], categories=[E, N])
    t["pronoun"] = pd.Categorical(t["pronoun"], categories=["han", "hen", "hon"])
    return t if order else t.drop(columns="order_consistent")


@cache
def _scored(labels: str = "binary", alpha_invalid: str = "value") -> ScoreResult:
    return sc.score_nli(_table(), n_boot=20, labels=labels, alpha_invalid=alpha_invalid)


def _row(metrics: pd.DataFrame, metric: str, split: str = "all", typ: str = "all") -> pd.Series:
    hit = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(hit) == 1, (metric, split, typ, len(hit))
    return hit.iloc[0]


@pytest.mark.parametrize(
    ("metric", "split", "typ", "value", "n"),
    [
        ("accuracy", "all", "all", 10 / 17, 17),
        ("macro_f1", "all", "all", 2 / 3, 17),
        ("krippendorff_alpha", "all", "all", 38 / 115, 17),
        ("gender_parity", "all", "all", 2 / 5, 5),
        ("entailment_rate", "all", "all", 6 / 17, 17),
        ("option_order_consistency", "all", "all", 15 / 16, 16),
        ("accuracy", "pronoun", "han", 5 / 6, 6),
        ("accuracy", "pronoun", "hon", 2 / 5, 5),
        ("accuracy", "pronoun", "hen", 3 / 6, 6),
        ("accuracy_gap", "pronoun", "hon-han", 2 / 5 - 5 / 6, 11),
        ("accuracy_gap", "pronoun", "hen-han", 3 / 6 - 5 / 6, 12),
    ],
)
def test_binary_values_and_sizes_by_hand(
    metric: str, split: str, typ: str, value: float, n: int
) -> None:
    row = _row(_scored().metrics, metric, split, typ)
    assert row["value"] == pytest.approx(value, abs=1e-12)
    assert row["n"] == n and row["n_strata"] == 1


@pytest.mark.parametrize(
    ("metric", "split", "typ", "value", "n"),
    [
        ("accuracy", "all", "all", 8 / 17, 17),
        ("macro_f1", "all", "all", 56 / 195, 17),
        ("krippendorff_alpha", "all", "all", 25 / 124, 17),
        ("gender_parity", "all", "all", 1 / 5, 5),
        ("superlim_parity", "all", "all", 2 / 17, 17),
        ("entailment_rate", "all", "all", 6 / 17, 17),
        ("option_order_consistency", "all", "all", 15 / 16, 16),
        ("accuracy", "pronoun", "han", 3 / 6, 6),
        ("accuracy", "pronoun", "hon", 2 / 5, 5),
        ("accuracy", "pronoun", "hen", 3 / 6, 6),
        ("accuracy_gap", "pronoun", "hon-han", 2 / 5 - 3 / 6, 11),
        ("accuracy_gap", "pronoun", "hen-han", 0.0, 12),
    ],
)
def test_superlim_values_and_sizes_by_hand(
    metric: str, split: str, typ: str, value: float, n: int
) -> None:
    row = _row(_scored("superlim").metrics, metric, split, typ)
    assert row["value"] == pytest.approx(value, abs=1e-12)
    assert row["n"] == n


def test_an_invalid_answer_as_missing_leaves_alpha_and_only_alpha() -> None:
    for labels, value in (("binary", 6 / 11), ("superlim", 67 / 192)):
        missing = _scored(labels, "missing").metrics
        row = _row(missing, "krippendorff_alpha")
        assert row["value"] == pytest.approx(value, abs=1e-12) and row["n"] == 13
        others = missing[missing["metric"] != "krippendorff_alpha"].reset_index(drop=True)
        same = _scored(labels).metrics
        same = same[same["metric"] != "krippendorff_alpha"].reset_index(drop=True)
        pd.testing.assert_frame_equal(others, same)


def test_which_rows_exist_and_their_order() -> None:
    expected = [
        ("accuracy", "all", "all"),
        ("macro_f1", "all", "all"),
        ("krippendorff_alpha", "all", "all"),
        ("gender_parity", "all", "all"),
        ("entailment_rate", "all", "all"),
        ("option_order_consistency", "all", "all"),
        ("accuracy", "pronoun", "han"),
        ("accuracy", "pronoun", "hon"),
        ("accuracy", "pronoun", "hen"),
        ("accuracy_gap", "pronoun", "hon-han"),
        ("accuracy_gap", "pronoun", "hen-han"),
    ]

    def keys(m: pd.DataFrame) -> list[tuple[str, str, str]]:
        return list(zip(m["metric"], m["split"], m["type"], strict=True))

    assert keys(_scored().metrics) == expected
    superlim = [*expected[:5], ("superlim_parity", "all", "all"), *expected[5:]]
    assert keys(_scored("superlim").metrics) == superlim
    # without order_consistent: no consistency row, the others unchanged
    plain = sc.score_nli(_table(order=False), n_boot=20)
    assert keys(plain.metrics) == [k for k in expected if k[0] != "option_order_consistency"]
    assert list(plain.metrics.columns) == [
        "metric",
        "split",
        "type",
        "value",
        "ci_low",
        "ci_high",
        "n",
        "n_strata",
    ]


def _counts(rows: int, scored: int, invalid: int, missing: int, three_way: int) -> dict:
    return {
        "rows": rows,
        "scored": scored,
        "invalid": invalid,
        "missing": missing,
        "three_way": three_way,
    }


def test_counts_per_pronoun_by_hand() -> None:
    expected = {
        ("all", "all"): _counts(18, 17, 4, 1, 2),
        ("pronoun", "han"): _counts(6, 6, 1, 0, 2),  # C (2A-n) and NE (3A-n)
        ("pronoun", "hon"): _counts(6, 5, 1, 1, 0),
        ("pronoun", "hen"): _counts(6, 6, 2, 0, 0),
    }
    for labels, name in (("binary", "read_as_neutral"), ("superlim", "three_way_labels")):
        counts = _scored(labels).counts
        assert list(counts.columns) == [
            "split",
            "type",
            "rows",
            "scored",
            "invalid",
            "missing",
            name,
        ]
        got = {
            (r["split"], r["type"]): {
                "rows": r["rows"],
                "scored": r["scored"],
                "invalid": r["invalid"],
                "missing": r["missing"],
                "three_way": r[name],
            }
            for r in counts.to_dict("records")
        }
        assert got == expected
        assert list(got) == list(expected)


# --- an independent cluster bootstrap ---------------------------------------------------------

BINARY = {C: N, NE: N}
PRONOUNS = ("han", "hon", "hen")


def _share(num: float, den: float) -> float:
    return num / den if den > 0 else NAN


def _alpha(pairs: list[tuple[float, str, str]], superlim: bool) -> float:
    """Nominal alpha of weighted (gold, system) pairs: 1 - (n - 1) D_o / D_e, with n the
    number of values (two per pair), D_o the values in disagreeing pairs and D_e the number of
    ordered value pairs from different categories."""
    n = 2 * sum(w for w, _, _ in pairs)
    per: dict[str, float] = {}
    for w, g, s in pairs:
        per[g] = per.get(g, 0.0) + w
        per[s] = per.get(s, 0.0) + w
    d_obs = 2 * sum(w for w, g, s in pairs if g != s)
    d_exp = n * n - sum(v * v for v in per.values())
    if superlim and d_obs == 0:
        return 1.0
    return 1 - (n - 1) * d_obs / d_exp if d_exp > 0 else NAN


def _nli_by_rows(
    rows: list[Row], w: dict[str, float], labels: str, alpha_invalid: str
) -> dict[tuple[str, str], float]:
    """Every NLI metric from the rows, each row counted as often as its schema's weight."""
    superlim = labels == "superlim"
    scored = [
        (w[s], t, p, g, a if superlim else BINARY.get(a, a), oc)
        for s, t, p, g, a, oc in rows
        if a is not None
    ]
    tot = sum(x[0] for x in scored)
    out: dict[tuple[str, str], float] = {}
    out["accuracy", "all"] = _share(sum(x[0] for x in scored if x[3] == x[4]), tot)
    out["entailment_rate", "all"] = _share(sum(x[0] for x in scored if x[4] == E), tot)
    f1s = []
    for lab in (E, N, C, NE) if superlim else (E, N):
        tp = sum(x[0] for x in scored if x[3] == lab and x[4] == lab)
        fp = sum(x[0] for x in scored if x[3] != lab and x[4] == lab)
        fn = sum(x[0] for x in scored if x[3] == lab and x[4] != lab)
        if tp + fp + fn > 0:
            f1s.append(2 * tp / (2 * tp + fp + fn))
    out["macro_f1", "all"] = sum(f1s) / len(f1s) if f1s else NAN
    pairs = [(x[0], x[3], x[4]) for x in scored if alpha_invalid == "value" or x[4] != INV]
    out["krippendorff_alpha", "all"] = _alpha(pairs, superlim)
    tuples: dict[str, list[tuple]] = {}
    for x in scored:
        tuples.setdefault(x[1], []).append(x)
    valid = (E, N, C, NE) if superlim else (E, N)
    par_n = par_k = ident = 0.0
    for members in tuples.values():
        if len(members) == 3 and {x[2] for x in members} == set(PRONOUNS):
            par_n += members[0][0]
            if len({x[4] for x in members}) == 1:
                ident += members[0][0]
                par_k += members[0][0] if members[0][4] in valid else 0.0
    out["gender_parity", "all"] = _share(par_k, par_n)
    if superlim:
        out["superlim_parity", "all"] = _share(ident, tot)
    known = [x for x in scored if x[5] is not None]
    out["option_order_consistency", "all"] = _share(
        sum(x[0] for x in known if x[5]), sum(x[0] for x in known)
    )
    for p in PRONOUNS:
        mine = [x for x in scored if x[2] == p]
        out["accuracy", p] = _share(
            sum(x[0] for x in mine if x[3] == x[4]), sum(x[0] for x in mine)
        )
    for p in ("hon", "hen"):
        out["accuracy_gap", f"{p}-han"] = out["accuracy", p] - out["accuracy", "han"]
    return out


def _independent_intervals(by_rows, rows: list, n_boot: int, seed: int, level: float) -> dict:
    schemas = sorted({r[0] for r in rows})
    k = len(schemas)
    draws = np.random.default_rng(seed).multinomial(k, [1.0 / k] * k, size=n_boot)
    reps = [by_rows(rows, dict(zip(schemas, d, strict=True))) for d in draws]
    tail = (1 - level) / 2
    out = {}
    for key in reps[0]:
        vals = np.array([r[key] for r in reps])
        vals = vals[~np.isnan(vals)]
        out[key] = tuple(np.quantile(vals, [tail, 1 - tail])) if vals.size else (NAN, NAN)
    return out


def _metric_key(r: pd.Series) -> tuple[str, str]:
    return (r["metric"], r["type"] if r["split"] == "pronoun" else "all")


@pytest.mark.parametrize(
    ("labels", "alpha_invalid"),
    [("binary", "value"), ("binary", "missing"), ("superlim", "value"), ("superlim", "missing")],
)
def test_values_and_intervals_match_an_independent_cluster_bootstrap(
    labels: str, alpha_invalid: str
) -> None:
    n_boot, seed, level = 150, 3, 0.8
    got = sc.score_nli(
        _table(), n_boot=n_boot, seed=seed, level=level, labels=labels, alpha_invalid=alpha_invalid
    ).metrics

    def by_rows(rows, w):
        return _nli_by_rows(rows, w, labels, alpha_invalid)

    point = by_rows(ROWS, {"1": 1.0, "2": 1.0, "3": 1.0})
    intervals = _independent_intervals(by_rows, ROWS, n_boot, seed, level)
    assert len(got) == len(point)
    for _, r in got.iterrows():
        key = _metric_key(r)
        assert r["value"] == pytest.approx(point[key], abs=1e-12), key
        lo, hi = intervals[key]
        assert (r["ci_low"], r["ci_high"]) == (
            pytest.approx(lo, abs=1e-12),
            pytest.approx(hi, abs=1e-12),
        ), key
    # the resampling is not degenerate: schemas differ, so do the replicates
    acc = _row(got, "accuracy")
    assert acc["ci_low"] < acc["value"] < acc["ci_high"]


def test_settings_and_defaults() -> None:
    result = sc.score_nli(_table(), n_boot=30, seed=4, level=0.9, labels="superlim")
    assert result.settings == {
        "n_boot": 30,
        "seed": 4,
        "level": 0.9,
        "resampling_unit": "schema/template",
        "resampling_key": "template number",
        "conventions": {
            "labels": CONVENTION_TEXT["superlim"],
            "alpha_invalid": CONVENTION_TEXT["value"],
        },
        "columns": list(NLI_COLUMNS),
    }
    default = sc.score_nli(_table())
    s = default.settings
    assert (s["n_boot"], s["seed"], s["level"]) == (2000, 0, 0.95)
    assert s["conventions"] == {
        "labels": CONVENTION_TEXT["binary"],
        "alpha_invalid": CONVENTION_TEXT["value"],
    }
    explicit = sc.score_nli(
        _table(), n_boot=2000, seed=0, level=0.95, labels="binary", alpha_invalid="value"
    )
    pd.testing.assert_frame_equal(default.metrics, explicit.metrics)
    with pytest.raises(TypeError):
        sc.score_nli(_table(), 20)  # type: ignore[misc]


def test_options_built_at_run_time_choose_the_same_conventions() -> None:
    # a command line or a config file hands the options over as new strings, not literals
    for labels in ("binary", "superlim"):
        for alpha_invalid in ("value", "missing"):
            run_time = sc.score_nli(
                _table(),
                n_boot=20,
                labels="".join(list(labels)),
                alpha_invalid="".join(list(alpha_invalid)),
            )
            pd.testing.assert_frame_equal(run_time.metrics, _scored(labels, alpha_invalid).metrics)
            pd.testing.assert_frame_equal(run_time.counts, _scored(labels, alpha_invalid).counts)
    # and SuperLim's alpha of 1 without disagreement holds for such a string too
    agree = _table([("1", "a", "han", E, E, None), ("2", "b", "han", E, E, None)], order=False)
    m = sc.score_nli(agree, n_boot=20, labels="".join(list("superlim"))).metrics
    assert _row(m, "krippendorff_alpha")["value"] == 1.0


def test_a_three_way_label_kept_by_all_three_pronouns_is_at_parity() -> None:
    rows: list[Row] = [
        ("1", "c", "han", N, C, None),
        ("1", "c", "hon", N, C, None),
        ("1", "c", "hen", N, C, None),
        ("1", "ne", "han", N, NE, None),
        ("1", "ne", "hon", N, NE, None),
        ("1", "ne", "hen", N, NE, None),
        ("2", "e", "han", E, E, None),
        ("2", "e", "hon", E, E, None),
        ("2", "e", "hen", E, N, None),
    ]
    for labels in ("binary", "superlim"):
        m = sc.score_nli(_table(rows, order=False), n_boot=20, labels=labels).metrics
        assert _row(m, "gender_parity")["value"] == pytest.approx(2 / 3)
    m = sc.score_nli(_table(rows, order=False), n_boot=20, labels="superlim").metrics
    assert _row(m, "superlim_parity")["value"] == pytest.approx(2 / 9)
    assert _row(m, "accuracy")["value"] == pytest.approx(2 / 9)


def test_a_tuple_needs_each_pronoun_once() -> None:
    rows: list[Row] = [
        # han twice, no hen: three rows but not a tuple of the three pronouns
        ("1", "a", "han", E, E, None),
        ("1", "a", "han", E, E, None),
        ("1", "a", "hon", E, E, None),
        # hen twice: four rows
        ("1", "b", "han", E, E, None),
        ("1", "b", "hon", E, E, None),
        ("1", "b", "hen", E, E, None),
        ("1", "b", "hen", E, E, None),
        # complete, at parity
        ("2", "c", "han", N, N, None),
        ("2", "c", "hon", N, N, None),
        ("2", "c", "hen", N, N, None),
        # complete, not at parity
        ("2", "d", "han", N, N, None),
        ("2", "d", "hon", N, E, None),
        ("2", "d", "hen", N, N, None),
    ]
    row = _row(sc.score_nli(_table(rows, order=False), n_boot=20).metrics, "gender_parity")
    assert row["value"] == pytest.approx(1 / 2) and row["n"] == 2


def test_alpha_without_any_disagreement() -> None:
    rows: list[Row] = [
        ("1", "a", "han", E, E, None),
        ("1", "a", "hon", E, E, None),
        ("2", "b", "han", E, E, None),
    ]
    table = _table(rows, order=False)
    # one category only: alpha undefined (D_e = 0), no interval; SuperLim's script says 1
    binary = _row(sc.score_nli(table, n_boot=20).metrics, "krippendorff_alpha")
    assert math.isnan(binary["value"]) and math.isnan(binary["ci_low"])
    assert math.isnan(binary["ci_high"]) and binary["n"] == 3
    superlim = _row(sc.score_nli(table, n_boot=20, labels="superlim").metrics, "krippendorff_alpha")
    assert (superlim["value"], superlim["ci_low"], superlim["ci_high"]) == (1.0, 1.0, 1.0)
    # F1 of a label in neither gold nor system is left out of the average, not counted as 0
    for labels in ("binary", "superlim"):
        m = sc.score_nli(table, n_boot=20, labels=labels).metrics
        assert _row(m, "macro_f1")["value"] == 1.0
    # two categories, perfect agreement: 1 under both conventions
    two = _table([*rows, ("2", "c", "han", N, N, None)], order=False)
    for labels in ("binary", "superlim"):
        row = _row(sc.score_nli(two, n_boot=20, labels=labels).metrics, "krippendorff_alpha")
        assert row["value"] == 1.0


def test_an_empty_stratum_is_undefined_not_zero() -> None:
    rows: list[Row] = [
        ("1", "a", "han", E, E, None),
        ("1", "a", "han", E, N, None),
        ("1", "b", "hon", N, N, None),
        ("2", "c", "han", N, N, None),
        ("2", "c", "hen", N, None, None),
    ]
    m = sc.score_nli(_table(rows, order=False), n_boot=50).metrics
    hen = _row(m, "accuracy", "pronoun", "hen")
    assert math.isnan(hen["value"]) and hen["n"] == 0
    assert math.isnan(hen["ci_low"]) and math.isnan(hen["ci_high"])
    gap = _row(m, "accuracy_gap", "pronoun", "hen-han")
    assert math.isnan(gap["value"]) and gap["n"] == 3
    # one hon row: a denominator of 1 is a value
    hon = _row(m, "accuracy", "pronoun", "hon")
    assert hon["value"] == 1.0 and hon["n"] == 1
    assert _row(m, "accuracy_gap", "pronoun", "hon-han")["value"] == pytest.approx(1 - 2 / 3)
    parity = _row(m, "gender_parity")  # no complete tuple
    assert math.isnan(parity["value"]) and parity["n"] == 0


def test_errors_name_the_problem() -> None:
    with pytest.raises(ScoringError, match="unknown alpha-invalid option 'drop'; choose value"):
        sc.score_nli(_table(), alpha_invalid="drop")
    with pytest.raises(ScoringError, match=r"^hand: missing column\(s\) tuple_id, schema_id \("):
        sc.score_nli(_table().drop(columns=["tuple_id", "schema_id"]), source="hand")
    with pytest.raises(ScoringError, match=r"^hand: no row has a prediction$"):
        sc.score_nli(_table().assign(prediction=None), source="hand")
    with pytest.raises(ScoringError, match="no 'answer' column"):
        sc.score_nli(_table(), column="answer")
    # another column can hold the answers
    moved = _table().rename(columns={"prediction": "answer"})
    got = sc.score_nli(moved, column="answer", n_boot=20).metrics
    pd.testing.assert_frame_equal(got, _scored().metrics)


def test_the_scorer_declares_its_metrics_and_options() -> None:
    d = sc.score_nli.declarations  # type: ignore[attr-defined]
    assert d.names == (
        "macro_f1",
        "krippendorff_alpha",
        "gender_parity",
        "superlim_parity",
        "entailment_rate",
        "accuracy_gap",
    )
    assert [o.name for o in d.options] == ["labels", "alpha_invalid"]


def test_the_bootstrap_settings_are_named() -> None:
    from winoscope.families.swewinogender.cluster_stats import cluster_metrics, ratio

    stats = pd.DataFrame({"schema_id": ["1", "2"], "k": [1.0, 0.0], "n": [1.0, 1.0]})
    metrics = {("accuracy", "all", "all"): (lambda t: ratio(t["k"], t["n"]), lambda t: 2.0)}
    with pytest.raises(TypeError):
        cluster_metrics(stats, metrics, 10, 0, 0.95)  # type: ignore[misc]
    got, reps = cluster_metrics(stats, metrics, n_boot=10, seed=0, level=0.95)
    assert list(reps.rows) == [("accuracy", "all", "all")] and [d[:2] for d in reps.draws] == [
        (10, 2)
    ]
    assert got[["metric", "value", "n"]].to_dict("records") == [
        {"metric": "accuracy", "value": 0.5, "n": 2}
    ]
