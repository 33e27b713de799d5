"""Resolver-protocol scoring on documents worked out by hand: the pronoun's link, the spans'
parsing and its errors, the per-document counts, F1 from summed counts, the subset values with
and without bootstrap weights, and the tables of :func:`score_frame` (strata labels, counts, gaps,
macro rows, the bootstrap drawn over items).

Every document has the gold key ``[[T, P]]`` (the pronoun P refers to the target T; the
distractor D is in no gold cluster). The four responses and their counts (recall numerator,
recall denominator, precision numerator, precision denominator), from the metrics' definitions:

- RIGHT ``[[T, P]]``: MUC 1/1, 1/1; B-cubed 2/2, 2/2; CEAF-e 1/1, 1/1; CEAF-m and mentions 2/2,
  2/2; BLANC coreference links 1/1, 1/1, no non-coreference links. Linked to the target.
- WRONG ``[[D, P]]``: MUC 0/1, 0/1 (the one response link joins two key entities); B-cubed
  P's cluster shares 1 of 2 mentions: 0.5/2, 0.5/2; CEAF-e phi4 = 2 * 1 / (2 + 2): 0.5/1,
  0.5/1; CEAF-m 1/2, 1/2; mentions 1/2, 1/2 (D is not a key mention); BLANC 0/1, 0/1.
- EMPTY ``[]``: every numerator 0, the key's denominators (MUC 1, B-cubed 2, CEAF-e 1, CEAF-m 2,
  mentions 2, BLANC 1), precision denominators 0. Linked to nothing.
- BOTH ``[[T, D, P]]``: MUC 1/1, 1/2 (two response links, one right); B-cubed recall 1 + 1 of 2,
  precision 2/3 + 0 + 2/3 of 3; CEAF-e phi4 = 2 * 2 / (2 + 3) = 0.8: 0.8/1, 0.8/1; CEAF-m and
  mentions 2/2, 2/3; BLANC coreference links 1/1, 1/3. Linked to both entities.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from coref_totals import total_score
from winoscope.errors import ScoringError
from winoscope.scoring import coref
from winoscope.scoring.coref import (
    Subset,
    document_frame,
    pronoun_link,
    score_frame,
    subset_values,
)
from winoscope.scoring.metric import get_metric

T, D, P = (0, 5), (10, 15), (20, 23)
SPANS = {"target": T, "distractor": D}

RIGHT = [[T, P]]
WRONG = [[D, P]]
EMPTY: list[list[tuple[int, int]]] = []
BOTH = [[T, D, P]]

# (recall_num, recall_den, precision_num, precision_den) per metric, worked out above
COUNTS: dict[str, dict[str, tuple[float, float, float, float]]] = {
    "right": {
        "muc": (1, 1, 1, 1),
        "bcub": (2, 2, 2, 2),
        "ceafe": (1, 1, 1, 1),
        "ceafm": (2, 2, 2, 2),
        "mentions": (2, 2, 2, 2),
        "blanc_coref": (1, 1, 1, 1),
        "blanc_noncoref": (0, 0, 0, 0),
    },
    "wrong": {
        "muc": (0, 1, 0, 1),
        "bcub": (0.5, 2, 0.5, 2),
        "ceafe": (0.5, 1, 0.5, 1),
        "ceafm": (1, 2, 1, 2),
        "mentions": (1, 2, 1, 2),
        "blanc_coref": (0, 1, 0, 1),
        "blanc_noncoref": (0, 0, 0, 0),
    },
    "empty": {
        "muc": (0, 1, 0, 0),
        "bcub": (0, 2, 0, 0),
        "ceafe": (0, 1, 0, 0),
        "ceafm": (0, 2, 0, 0),
        "mentions": (0, 2, 0, 0),
        "blanc_coref": (0, 1, 0, 0),
        "blanc_noncoref": (0, 0, 0, 0),
    },
    "both": {
        "muc": (1, 1, 1, 2),
        "bcub": (2, 2, 4 / 3, 3),
        "ceafe": (0.8, 1, 0.8, 1),
        "ceafm": (2, 2, 2, 3),
        "mentions": (2, 2, 2, 3),
        "blanc_coref": (1, 1, 1, 3),
        "blanc_noncoref": (0, 0, 0, 0),
    },
}
RESPONSES = {"right": RIGHT, "wrong": WRONG, "empty": EMPTY, "both": BOTH}
LINK = {"right": "target", "wrong": "distractor", "empty": "none", "both": "both"}
FIELDS = ("recall_num", "recall_den", "precision_num", "precision_den")


def f1(rn: float, rd: float, pn: float, pd_: float) -> float:
    """F1 of one set of counts, written out again: 0 where a ratio is undefined."""
    r = rn / rd if rd else 0.0
    p = pn / pd_ if pd_ else 0.0
    return 2 * r * p / (r + p) if r + p else 0.0


def conll(kinds: list[str], weights: list[float] | None = None) -> float:
    """CoNLL F1 of documents of the given kinds, counts summed with ``weights``."""
    w = weights or [1.0] * len(kinds)
    parts = []
    for m in ("muc", "bcub", "ceafe"):
        sums = [sum(wi * COUNTS[k][m][j] for wi, k in zip(w, kinds, strict=True)) for j in range(4)]
        parts.append(f1(*sums))
    return sum(parts) / 3


def doc(kind: str | None, referent: str = "target", **extra: Any) -> dict[str, Any]:
    """One row of the standard columns; ``kind`` None: the response cell is None."""
    return {
        "gold_clusters": json.dumps([[list(T), list(P)]]),
        "pronoun_span": json.dumps(list(P)),
        "target_span": json.dumps(list(T)),
        "distractor_span": json.dumps(list(D)),
        "predicted_clusters": None
        if kind is None
        else json.dumps([[list(m) for m in c] for c in RESPONSES[kind]]),
        "referent_role": referent,
        **extra,
    }


# --- declarations ------------------------------------------------------------------------------


def test_the_scorer_declares_every_metric_with_its_card() -> None:
    from winoscope.families.winobias import coref_tasks as winobias_coref
    from winoscope.families.winopron import coref_tasks as winopron_coref

    measures = ["conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "link_accuracy"]
    # the core declares the measures; each family the subsets and gaps its documents have
    assert score_frame.declarations.names == tuple(measures)  # type: ignore[attr-defined]
    subsets = ["_pro", "_anti", "_agreement_control", "_cross_control"]
    expected = [m + s for m in measures for s in subsets] + ["conll_f1_pro_minus_anti"]
    assert winobias_coref.declare.names == tuple(expected)
    assert winopron_coref.declare.names == (
        "double_conll_f1",
        "single_conll_f1",
        "conll_f1_female_minus_male",
    )
    spec = get_metric("conll_f1")
    assert spec.card == "CoNLL F1 (mean of MUC, B-cubed and CEAF-e F1)."
    assert (spec.kind, spec.direction) == ("f1", "higher")
    assert spec.components == ("muc_f1", "bcub_f1", "ceafe_f1")
    assert get_metric("muc_f1").components == ()
    # the first letter is raised, the rest kept
    assert get_metric("link_accuracy").card == "Share of pronouns linked to the gold referent only."
    assert get_metric("link_accuracy").kind == "accuracy"
    assert get_metric("muc_f1_pro").card == "MUC F1 on the pro-stereotypical documents."
    assert get_metric("link_accuracy_cross_control").card == (
        "Share of pronouns linked to the gold referent only on the cross-control documents."
    )
    assert get_metric("single_conll_f1").card == "CoNLL F1 on the single-context sentences."
    gap = get_metric("conll_f1_pro_minus_anti")
    assert (gap.kind, gap.direction) == ("gap", "zero")
    assert gap.components == ("conll_f1_pro", "conll_f1_anti")


def test_a_subset_is_frozen() -> None:
    sub = Subset("pro", lambda f: f["condition"] == "pro")
    assert sub.name == "pro"
    with pytest.raises(dataclasses.FrozenInstanceError):
        sub.name = "anti"  # type: ignore[misc]


# --- the pronoun's link ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("clusters", "expected"),
    [
        ([[T, P]], "target"),
        ([[P, T]], "target"),  # the pronoun first: the mentions after it count
        ([[D, P]], "distractor"),
        ([[P, D]], "distractor"),
        ([[T, D, P]], "both"),
        ([[T, P], [D, P]], "both"),  # two clusters holding the pronoun
        ([[T, D]], "none"),  # a cluster without the pronoun links nothing
        ([[T, D], [(30, 35), P]], "none"),  # linked, but to neither entity
        ([[T, D], [P, D]], "distractor"),  # a cluster without it, then one with it
        ([[(40, 45), T]], "none"),  # a cluster after the pronoun, without it
        ([], "none"),
        ([[P]], "none"),
        # overlap, not exact match: [1, 4] inside T, [12, 20] over D's end
        ([[(1, 4), P]], "target"),
        ([[(12, 20), P]], "distractor"),
        # touching is not overlapping (ends are exclusive)
        ([[(5, 10), P]], "none"),
        ([[(15, 20), P]], "none"),
        # lists, as parsed JSON gives them
        ([[[0, 5], [20, 23]]], "target"),
    ],
)
def test_pronoun_link_by_hand(clusters: list[list[Any]], expected: str) -> None:
    assert pronoun_link(P, SPANS, clusters) == expected


def test_the_pronoun_itself_is_not_a_link() -> None:
    # a pronoun inside the distractor's span ("the doctor of her sister"): its own mention
    # overlaps D but links nothing; the other mention of its cluster decides
    inside = (12, 14)
    assert pronoun_link(inside, SPANS, [[T, inside]]) == "target"
    assert pronoun_link(inside, SPANS, [[inside, T]]) == "target"
    assert pronoun_link(inside, SPANS, [[inside]]) == "none"
    # the pronoun is found by value: parsed spans are new objects each time
    pron: Any = tuple([12, 14])
    parsed: Any = [[[0, 5], [12, 14]]]
    assert pronoun_link(pron, SPANS, parsed) == "target"


def test_mentions_after_the_pronoun_count() -> None:
    later = {"target": T, "distractor": (30, 35)}
    assert pronoun_link(P, later, [[P, (30, 35)]]) == "distractor"
    assert pronoun_link(P, later, [[(30, 35), P]]) == "distractor"
    assert pronoun_link(P, later, [[T, P, (30, 35)]]) == "both"
    assert pronoun_link(P, later, [[(30, 35), T]]) == "none"  # no pronoun in that cluster


def test_an_entity_without_a_span_is_never_linked() -> None:
    assert pronoun_link(P, {"target": T, "distractor": None}, [[T, D, P]]) == "target"
    assert pronoun_link(P, {"target": None, "distractor": None}, [[T, D, P]]) == "none"
    assert pronoun_link(P, {"target": None, "distractor": D}, [[T, P]]) == "none"


# --- per-document counts -----------------------------------------------------------------------


def test_document_counts_by_hand() -> None:
    kinds = ["right", "wrong", "empty", "both"]
    table = pd.DataFrame([doc(k) for k in kinds], index=[10, 11, 12, 13])
    docs = document_frame(table)
    assert list(docs.index) == [10, 11, 12, 13]
    count_columns = [
        f"{m}_{f}"
        for m in ("muc", "bcub", "ceafe", "ceafm", "mentions", "blanc_coref", "blanc_noncoref")
        for f in FIELDS
    ]
    assert list(docs.columns) == [*count_columns, "pronoun_link", "link_correct"]
    assert all(t == np.float64 for t in docs[count_columns].dtypes)
    for i, kind in enumerate(kinds):
        row = docs.iloc[i]
        for m, counts in COUNTS[kind].items():
            got = tuple(row[f"{m}_{f}"] for f in FIELDS)
            assert got == pytest.approx(counts, abs=1e-12), (kind, m)
    assert docs["pronoun_link"].tolist() == ["target", "distractor", "none", "both"]
    assert docs["link_correct"].tolist() == [True, False, False, False]


def test_link_correct_compares_the_referent_by_value() -> None:
    # a referent read from a file is a new string object, equal to the role but not the same
    referent = "".join(["distr", "actor"])
    table = pd.DataFrame([doc("wrong", referent=referent), doc("right", referent=referent)])
    assert document_frame(table)["link_correct"].tolist() == [True, False]


def test_missing_and_empty_cells() -> None:
    rows = [doc("right") for _ in range(4)]
    rows[0]["predicted_clusters"] = None  # no response: no clusters
    rows[1]["predicted_clusters"] = math.nan  # an empty cell read from a CSV
    rows[2]["distractor_span"] = None  # a single-entity sentence
    rows[3]["distractor_span"] = math.nan
    rows[3]["predicted_clusters"] = [[[0, 5], [20, 23]]]  # already parsed: taken as it is
    docs = document_frame(pd.DataFrame(rows))
    assert docs["pronoun_link"].tolist() == ["none", "none", "target", "target"]
    assert docs["muc_recall_num"].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert docs["mentions_precision_den"].tolist() == [0.0, 0.0, 2.0, 2.0]


def test_a_missing_column_is_named() -> None:
    table = pd.DataFrame([doc("right")]).drop(columns=["pronoun_span", "referent_role"])
    with pytest.raises(
        ScoringError,
        match=r"^run\.csv: missing column\(s\) pronoun_span, referent_role for coreference",
    ):
        document_frame(table, "run.csv")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("gold_clusters", "[[", "field 'gold_clusters': not JSON"),
        ("predicted_clusters", "nope", "field 'predicted_clusters': not JSON"),
        ("pronoun_span", "[1,", "field 'pronoun_span': not JSON"),
        ("pronoun_span", None, "field 'pronoun_span': missing"),
        ("pronoun_span", math.nan, "field 'pronoun_span': missing"),
        (
            "predicted_clusters",
            "[5]",
            "field 'predicted_clusters': expected a list of clusters",
        ),  # TypeError
        ("predicted_clusters", "[[5]]", "field 'predicted_clusters': expected a list"),  # TypeError
        (
            "predicted_clusters",
            '[[["a", 1]]]',
            "field 'predicted_clusters': expected a list",
        ),  # ValueError
        (
            "predicted_clusters",
            "[[[1]]]",
            "field 'predicted_clusters': expected a list",
        ),  # IndexError
        ("gold_clusters", '[[{"a": 1}]]', "field 'gold_clusters': expected a list"),  # KeyError
        ("target_span", "5", r"field 'target_span': expected \[start, end\]"),  # TypeError
        ("target_span", '["a", 1]', r"field 'target_span': expected \[start, end\]"),
        ("distractor_span", "[1]", r"field 'distractor_span': expected \[start, end\]"),
    ],
)
def test_malformed_cells_name_the_row_and_field(field: str, value: Any, message: str) -> None:
    rows = [doc("right"), doc("right")]
    rows[1][field] = value
    with pytest.raises(ScoringError, match=rf"^preds, row 2, {message}"):
        document_frame(pd.DataFrame(rows), "preds")


def test_spans_are_read_from_either_end() -> None:
    # spans that are not [0, n]: start and end taken in order, as integers
    rows = [doc("right")]
    rows[0]["gold_clusters"] = json.dumps([[[30, 36], [40, 43]]])
    rows[0]["pronoun_span"] = json.dumps([40.0, 43.0])
    rows[0]["target_span"] = json.dumps([30, 36])
    rows[0]["predicted_clusters"] = json.dumps([[[31, 35], [40, 43]], [[30, 36]]])
    docs = document_frame(pd.DataFrame(rows))
    assert docs["pronoun_link"].tolist() == ["target"]
    # [40, 43] and [30, 36] match key mentions exactly, [31, 35] does not
    assert docs["mentions_recall_num"].tolist() == [2.0]
    assert docs["mentions_precision_den"].tolist() == [3.0]


def test_total_score_sums_the_counts() -> None:
    docs = document_frame(pd.DataFrame([doc("right"), doc("both"), doc("wrong")]))
    total = total_score(docs)
    for m in ("muc", "bcub", "ceafe", "ceafm", "mentions", "blanc_coref", "blanc_noncoref"):
        got = getattr(total, m)
        want = [sum(COUNTS[k][m][j] for k in ("right", "both", "wrong")) for j in range(4)]
        assert [getattr(got, f) for f in FIELDS] == pytest.approx(want, abs=1e-12), m
    # only the count columns are summed: the table's own columns may hold anything
    table = pd.DataFrame([doc("right"), doc("both")])
    table["predicted_clusters"] = pd.Series([None, [[[0, 5]]]], dtype=object)
    frame = pd.concat([table, document_frame(table)], axis=1)
    assert total_score(frame).mentions.precision_den == 1.0  # the one response mention
    empty = total_score(pd.DataFrame())
    assert [getattr(empty.muc, f) for f in FIELDS] == [0.0, 0.0, 0.0, 0.0]
    assert [getattr(empty.blanc_noncoref, f) for f in FIELDS] == [0.0, 0.0, 0.0, 0.0]


# --- F1 from summed counts ---------------------------------------------------------------------


def test_f1_from_counts_by_hand() -> None:
    sums = np.array(
        [
            [3, 4, 1, 5],  # R 3/4, P 1/5: 2 * 0.15 / 0.95
            [1, 1, 1, 1],  # denominators of 1: R = P = 1
            [1, 4, 1, 4],  # R = P = 1/4: F1 1/4 (R + P below 1)
            [2, 4, 3, 3],  # R 1/2, P 1: 2/3
            [0, 2, 0, 3],  # nothing right: 0
            [0, 0, 1, 2],  # no recall denominator: R = 0, so F1 = 0
            [1, 2, 0, 0],  # no precision denominator: P = 0
            [1, 0, 1, 1],  # R undefined (0), whatever its numerator
            [1, 1, 1, 0],  # P undefined (0)
            [0, 0, 0, 0],
        ],
        dtype=float,
    )
    want = [0.3 / 0.95, 1.0, 0.25, 2 / 3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    got = coref._f1_from(sums)
    assert got.shape == (10,)
    assert got.tolist() == pytest.approx(want, abs=1e-12)
    # weights need not be whole numbers: denominators below 1 are still denominators
    halves = np.array([[0.25, 0.5, 0.5, 0.5], [0.5, 0.5, 0.25, 0.5], [0.5, 0.5, 0.5, 0.5]])
    assert coref._f1_from(halves).tolist() == pytest.approx([2 / 3, 2 / 3, 1.0], abs=1e-12)
    # any leading shape: replicates x counts, or one set of counts
    assert float(coref._f1_from(sums[0])) == pytest.approx(0.3 / 0.95, abs=1e-12)
    np.testing.assert_allclose(
        coref._f1_from(sums.reshape(2, 5, 4)), [want[:5], want[5:]], rtol=0, atol=1e-12
    )


# --- subset values -----------------------------------------------------------------------------


def _docs(kinds: list[str], referents: list[str] | None = None) -> pd.DataFrame:
    refs = referents or ["target"] * len(kinds)
    return document_frame(pd.DataFrame([doc(k, r) for k, r in zip(kinds, refs, strict=True)]))


def test_subset_values_by_hand() -> None:
    got = subset_values(_docs(["right", "wrong"]))
    # MUC 1/2, 1/2; B-cubed 2.5/4, 2.5/4; CEAF-e 1.5/2, 1.5/2
    assert got["muc_f1"] == pytest.approx(0.5, abs=1e-12)
    assert got["bcub_f1"] == pytest.approx(0.625, abs=1e-12)
    assert got["ceafe_f1"] == pytest.approx(0.75, abs=1e-12)
    assert got["conll_f1"] == pytest.approx((0.5 + 0.625 + 0.75) / 3, abs=1e-12)
    assert got["link_accuracy"] == 0.5
    assert set(got) == {"muc_f1", "bcub_f1", "ceafe_f1", "conll_f1", "link_accuracy"}
    # four documents, MUC 3/4, 3/4 ...: F1s that differ from each other
    four = subset_values(_docs(["right", "right", "both", "empty"]))
    assert four["muc_f1"] == pytest.approx(f1(3, 4, 3, 4), abs=1e-12)
    assert four["bcub_f1"] == pytest.approx(f1(6, 8, 16 / 3, 7), abs=1e-12)
    assert four["ceafe_f1"] == pytest.approx(f1(2.8, 4, 2.8, 3), abs=1e-12)
    assert four["conll_f1"] == pytest.approx(conll(["right", "right", "both", "empty"]))
    assert four["link_accuracy"] == 0.5
    one = subset_values(_docs(["both"]))
    assert one["conll_f1"] == pytest.approx((2 / 3 + 8 / 13 + 0.8) / 3, abs=1e-12)
    assert one["link_accuracy"] == 0.0
    assert isinstance(one["link_accuracy"], float)


def test_an_empty_subset_is_undefined() -> None:
    none = _docs(["right"]).iloc[:0]
    got = subset_values(none)
    assert set(got) == {"muc_f1", "bcub_f1", "ceafe_f1", "conll_f1", "link_accuracy"}
    assert all(isinstance(v, float) and math.isnan(v) for v in got.values())
    boot = subset_values(none, np.zeros((3, 0)))
    for v in boot.values():
        assert v.shape == (3,) and np.isnan(v).all()


def test_subset_values_with_weights_by_hand() -> None:
    docs = _docs(["right", "wrong", "empty"], ["target", "distractor", "target"])
    weights = np.array(
        [
            [1.0, 1.0, 1.0],  # the documents themselves
            [0.0, 0.0, 0.0],  # drew none of them: undefined
            [1.0, 0.0, 0.0],  # one document (a weight sum of 1)
            [0.0, 2.0, 1.0],
            [3.0, 0.0, 1.0],
        ]
    )
    got = subset_values(docs, weights)
    kinds = ["right", "wrong", "empty"]
    for m in ("muc", "bcub", "ceafe"):
        assert got[f"{m}_f1"].shape == (5,)
    want = [conll(kinds, list(w)) for w in weights]
    want[1] = math.nan
    assert got["conll_f1"].tolist() == pytest.approx(want, abs=1e-12, nan_ok=True)
    muc = [
        f1(
            *[
                sum(wi * COUNTS[k]["muc"][j] for wi, k in zip(w, kinds, strict=True))
                for j in range(4)
            ]
        )
        for w in weights
    ]
    muc[1] = math.nan
    assert got["muc_f1"].tolist() == pytest.approx(muc, abs=1e-12, nan_ok=True)
    # right and wrong are correct (wrong's referent is the distractor), empty is not
    assert got["link_accuracy"].tolist() == pytest.approx(
        [2 / 3, math.nan, 1.0, 2 / 3, 3 / 4], nan_ok=True
    )
    # a weight sum below 1 (weights need not be counts)
    half = subset_values(docs, np.array([[0.5, 0.0, 0.0], [0.25, 0.0, 0.25]]))
    assert half["link_accuracy"].tolist() == pytest.approx([1.0, 0.5])
    assert half["conll_f1"].tolist() == pytest.approx(
        [1.0, conll(kinds, [0.25, 0.0, 0.25])], abs=1e-12
    )
    # the unweighted values are the first replicate's
    plain = subset_values(docs)
    assert plain["conll_f1"] == pytest.approx(want[0], abs=1e-12)
    assert plain["link_accuracy"] == pytest.approx(2 / 3)


# --- score_frame -------------------------------------------------------------------------------

PRO = Subset("pro", lambda f: f["condition"] == "pro")
ANTI = Subset("anti", lambda f: f["condition"] == "anti")


def _table(specs: list[tuple[str, str, str, str, int]], **columns: list[Any]) -> pd.DataFrame:
    """(split, type, condition, response kind, item number) rows."""
    rows = [doc(kind, split=s, type=t, condition=c, item=i) for s, t, c, kind, i in specs]
    table = pd.DataFrame(rows)
    for name, values in columns.items():
        table[name] = values
    return table


def _values(metrics: pd.DataFrame) -> dict[tuple[str, str, str], float]:
    return {(r.metric, r.split, r.type): r.value for r in metrics.itertuples()}


TWO_STRATA = [
    ("s1", "t1", "pro", "right", 1),
    ("s1", "t1", "pro", "wrong", 2),
    ("s1", "t1", "anti", "right", 3),
    ("s1", "t1", "anti", "empty", 4),
    ("s2", "t1", "pro", "right", 1),
    ("s2", "t1", "pro", "right", 2),
    ("s2", "t1", "pro", "both", 3),
    ("s2", "t1", "anti", "wrong", 4),
]


def test_points_counts_gaps_and_macro_rows_by_hand() -> None:
    table = _table(TWO_STRATA, response_status=["ok", "ok", "ok", "error"] + ["ok"] * 4)
    metrics, strata, subsets, _ = score_frame(
        table,
        strata=["split"],
        subsets=[PRO, ANTI],
        item_columns=["split", "item"],
        gaps=[("gap", "pro", "anti")],
        n_boot=0,
        metrics=("conll_f1", "link_accuracy"),
    )
    got = _values(metrics)
    pro1, anti1 = conll(["right", "wrong"]), conll(["right", "empty"])
    pro2, anti2 = conll(["right", "right", "both"]), conll(["wrong"])
    assert pro1 - anti1 == pytest.approx(-1 / 24)  # 0.625 - 2/3
    want = {
        ("conll_f1_pro", "s1", "all"): pro1,
        ("link_accuracy_pro", "s1", "all"): 0.5,
        ("conll_f1_anti", "s1", "all"): anti1,
        ("link_accuracy_anti", "s1", "all"): 0.5,
        ("gap", "s1", "all"): pro1 - anti1,
        ("conll_f1_pro", "s2", "all"): pro2,
        ("link_accuracy_pro", "s2", "all"): 2 / 3,
        ("conll_f1_anti", "s2", "all"): anti2,
        ("link_accuracy_anti", "s2", "all"): 0.0,
        ("gap", "s2", "all"): pro2 - anti2,
        ("conll_f1_pro", "macro", "macro"): (pro1 + pro2) / 2,
        ("link_accuracy_pro", "macro", "macro"): (0.5 + 2 / 3) / 2,
        ("conll_f1_anti", "macro", "macro"): (anti1 + anti2) / 2,
        ("link_accuracy_anti", "macro", "macro"): 0.25,
        ("gap", "macro", "macro"): (pro1 - anti1 + pro2 - anti2) / 2,
    }
    assert list(got) == list(want)
    assert list(got.values()) == pytest.approx(list(want.values()), abs=1e-12)
    assert list(metrics.columns) == [
        "metric",
        "split",
        "type",
        "value",
        "ci_low",
        "ci_high",
        "n",
        "n_strata",
    ]
    assert metrics["ci_low"].isna().all() and metrics["ci_high"].isna().all()
    n = {(r.metric, r.split): (r.n, r.n_strata) for r in metrics.itertuples()}
    assert n[("conll_f1_pro", "s1")] == (2, 1) and n[("conll_f1_pro", "s2")] == (3, 1)
    assert n[("conll_f1_anti", "s2")] == (1, 1)
    # a gap's n is both subsets' documents: 2 + 2, 3 + 1
    assert n[("gap", "s1")] == (4, 1) and n[("gap", "s2")] == (4, 1)
    assert n[("gap", "macro")] == (8, 2) and n[("conll_f1_pro", "macro")] == (5, 2)
    assert strata.to_dict("records") == [
        {"split": "s1", "type": "all", "rows": 4, "scored": 3, "invalid": 0, "missing": 1},
        {"split": "s2", "type": "all", "rows": 4, "scored": 4, "invalid": 0, "missing": 0},
    ]
    links = {"link_target": 0, "link_distractor": 0, "link_both": 0, "link_none": 0}
    assert subsets.to_dict("records") == [
        {
            "split": "s1",
            "type": "all",
            "subset": "pro",
            "documents": 2,
            "items": 2,
            "no_output": 0,
            "missing_responses": 0,
            **links,
            "link_target": 1,
            "link_distractor": 1,
        },
        {
            "split": "s1",
            "type": "all",
            "subset": "anti",
            "documents": 2,
            "items": 2,
            "no_output": 1,
            "missing_responses": 1,
            **links,
            "link_target": 1,
            "link_none": 1,
        },
        {
            "split": "s2",
            "type": "all",
            "subset": "pro",
            "documents": 3,
            "items": 3,
            "no_output": 0,
            "missing_responses": 0,
            **links,
            "link_target": 2,
            "link_both": 1,
        },
        {
            "split": "s2",
            "type": "all",
            "subset": "anti",
            "documents": 1,
            "items": 1,
            "no_output": 0,
            "missing_responses": 0,
            **links,
            "link_distractor": 1,
        },
    ]


def test_the_default_metrics_are_the_f1s_and_the_link_accuracy() -> None:
    table = _table(TWO_STRATA[:4])
    metrics, _, _, _ = score_frame(
        table, strata=["split"], subsets=[PRO], item_columns=["item"], n_boot=0
    )
    assert metrics["metric"].tolist() == [
        "conll_f1_pro",
        "muc_f1_pro",
        "bcub_f1_pro",
        "ceafe_f1_pro",
        "link_accuracy_pro",
    ]
    assert metrics["value"].tolist() == pytest.approx([0.625, 0.5, 0.625, 0.75, 0.5])


def test_counts_of_failed_and_empty_responses() -> None:
    # four rows of one stratum: a failed request and three responses without clusters;
    # no response_status column in the second run
    specs = [("s", "t", "pro", "empty", i) for i in range(1, 5)]
    specs.append(("s", "t", "anti", "right", 5))
    table = _table(specs, response_status=["error", "ok", "ok", "ok", "ok"])
    _, strata, subsets, _ = score_frame(
        table, strata=["split"], subsets=[PRO, ANTI], item_columns=["item"], n_boot=0
    )
    assert strata.to_dict("records") == [
        {"split": "s", "type": "all", "rows": 5, "scored": 4, "invalid": 3, "missing": 1}
    ]
    assert subsets["no_output"].tolist() == [4, 0]
    assert subsets["missing_responses"].tolist() == [1, 0]
    _, strata, subsets, _ = score_frame(
        table.drop(columns=["response_status"]),
        strata=["split"],
        subsets=[PRO, ANTI],
        item_columns=["item"],
        n_boot=0,
    )
    assert strata.to_dict("records") == [
        {"split": "s", "type": "all", "rows": 5, "scored": 5, "invalid": 4, "missing": 0}
    ]
    assert subsets["missing_responses"].tolist() == [0, 0]
    assert subsets["no_output"].tolist() == [4, 0]


def test_an_empty_response_cell_counts_as_no_output_in_both_tables() -> None:
    # None, or NaN as pandas reads an empty CSV field (pandas stores None in a text column so)
    specs = [("s", "t", "pro", "right", i) for i in range(1, 4)]
    table = _table(specs)
    table["predicted_clusters"] = [None, math.nan, json.dumps(RIGHT)]
    _, strata, subsets, _ = score_frame(
        table, strata=["split"], subsets=[PRO], item_columns=["item"], n_boot=0
    )
    assert strata["invalid"].tolist() == [2]
    assert subsets["no_output"].tolist() == [2]


def test_items_count_distinct_items_not_documents() -> None:
    specs = [("s", "t", "pro", "right", 1), ("s", "t", "pro", "wrong", 1)]
    specs += [("s", "t", "anti", "right", 2)]
    _, _, subsets, _ = score_frame(
        _table(specs), strata=[], subsets=[PRO, ANTI], item_columns=["item"], n_boot=0
    )
    assert subsets["documents"].tolist() == [2, 1]
    assert subsets["items"].tolist() == [1, 1]


@pytest.mark.parametrize(
    ("strata", "labels"),
    [
        ([], [("all", "all")]),
        (["split"], [("a", "all"), ("b", "all")]),
        (["split", "type"], [("a", "x"), ("b", "y")]),
        (["split", "type", "condition"], [("a", "x/pro"), ("b", "y/pro")]),
    ],
)
def test_stratum_labels(strata: list[str], labels: list[tuple[str, str]]) -> None:
    specs = [("a", "x", "pro", "right", 1), ("b", "y", "pro", "wrong", 2)]
    _, counts, _, _ = score_frame(
        _table(specs), strata=strata, subsets=[PRO], item_columns=["item"], n_boot=0
    )
    assert list(zip(counts["split"], counts["type"], strict=True)) == labels


def test_strata_come_sorted_and_only_observed() -> None:
    specs = [("b", "x", "pro", "right", 1), ("a", "x", "pro", "wrong", 2)]
    table = _table(specs)
    table["split"] = pd.Categorical(table["split"], categories=["b", "a", "unused"])
    table["type"] = pd.Categorical(table["type"], categories=["x", "y"])
    _, counts, _, _ = score_frame(
        table, strata=["split", "type"], subsets=[PRO], item_columns=["item"], n_boot=0
    )
    # categorical order (b before a), unused categories and combinations left out
    assert counts["split"].tolist() == ["b", "a"] and counts["type"].tolist() == ["x", "x"]
    plain = _table([("b", "x", "pro", "right", 1), ("a", "x", "pro", "wrong", 2)])
    _, counts, _, _ = score_frame(
        plain, strata=["split"], subsets=[PRO], item_columns=["item"], n_boot=0
    )
    assert counts["split"].tolist() == ["a", "b"]  # sorted, not in order of appearance


def test_one_stratum_has_no_macro_rows_and_an_empty_subset_no_row() -> None:
    specs = [("s", "t", "pro", "right", 1), ("s", "t", "pro", "wrong", 2)]
    metrics, _, subsets, _ = score_frame(
        _table(specs),
        strata=["split"],
        subsets=[PRO, ANTI],
        item_columns=["item"],
        n_boot=0,
        metrics=("conll_f1",),
    )
    assert metrics[["metric", "split"]].values.tolist() == [["conll_f1_pro", "s"]]
    assert subsets["documents"].tolist() == [2, 0]
    # two strata, the second without anti documents: macro rows over the defined ones
    specs += [("r", "t", "anti", "right", 3), ("r", "t", "pro", "right", 4)]
    metrics, _, _, _ = score_frame(
        _table(specs),
        strata=["split"],
        subsets=[PRO, ANTI],
        item_columns=["item"],
        n_boot=0,
        metrics=("conll_f1",),
    )
    rows = {(r.metric, r.split): (r.value, r.n_strata) for r in metrics.itertuples()}
    assert list(rows) == [
        ("conll_f1_pro", "r"),
        ("conll_f1_anti", "r"),
        ("conll_f1_pro", "s"),
        ("conll_f1_pro", "macro"),
        ("conll_f1_anti", "macro"),
    ]
    assert rows[("conll_f1_anti", "macro")] == (1.0, 1)
    assert rows[("conll_f1_pro", "macro")][1] == 2


def test_the_tables_index_and_an_index_column_are_ignored() -> None:
    table = _table(TWO_STRATA[:4])
    other = table.set_axis([7, 3, 9, 1]).assign(index=[0, 1, 2, 3])
    a = score_frame(table, strata=["split"], subsets=[PRO, ANTI], item_columns=["item"], n_boot=0)
    b = score_frame(other, strata=["split"], subsets=[PRO, ANTI], item_columns=["item"], n_boot=0)
    for x, y in zip(a[:3], b[:3], strict=True):
        pd.testing.assert_frame_equal(x, y)
    assert a.replicates == b.replicates


def test_a_table_indexed_by_its_own_column() -> None:
    # set_index(..., drop=False): the index repeats a column; it is dropped, never inserted
    table = _table(TWO_STRATA[:4])
    kw: dict[str, Any] = dict(strata=["split"], subsets=[PRO, ANTI], item_columns=["item"])
    a = score_frame(table, n_boot=0, **kw)
    b = score_frame(table.set_index("split", drop=False), n_boot=0, **kw)
    for x, y in zip(a[:3], b[:3], strict=True):
        pd.testing.assert_frame_equal(x, y)
    assert a.replicates == b.replicates


def test_the_default_bootstrap_is_2000_replicates_with_seed_0() -> None:
    table = _table(TWO_STRATA[:4])
    kw: dict[str, Any] = dict(strata=["split"], subsets=[PRO], item_columns=["item"])
    a, _, _, default = score_frame(table, metrics=("conll_f1",), **kw)
    b, _, _, explicit = score_frame(table, metrics=("conll_f1",), n_boot=2000, seed=0, **kw)
    assert [d[:2] for d in default.draws] == [(2000, 4)]
    assert default == explicit
    pd.testing.assert_frame_equal(a, b)


def _replicates(
    kinds: list[str], items: list[int], n_boot: int, rng: np.random.Generator
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Item weights drawn as the scorer draws them (multinomial over distinct items, in order
    of first appearance), and per-document weights."""
    uniq = list(dict.fromkeys(items))
    w = rng.multinomial(len(uniq), np.full(len(uniq), 1.0 / len(uniq)), size=n_boot)
    return w.astype(float), [w[:, uniq.index(i)].astype(float) for i in items]


def test_the_bootstrap_resamples_items_by_hand() -> None:
    table = _table(TWO_STRATA)
    metrics, _, _, returned = score_frame(
        table,
        strata=["split"],
        subsets=[PRO, ANTI],
        item_columns=["split", "item"],
        gaps=[("gap", "pro", "anti")],
        n_boot=40,
        seed=5,
        metrics=("conll_f1", "link_accuracy"),
    )
    rng = np.random.default_rng(5)
    reps: dict[tuple[str, str], np.ndarray] = {}
    for split in ("s1", "s2"):
        part = [s for s in TWO_STRATA if s[0] == split]
        _, per_doc = _replicates([s[3] for s in part], [s[4] for s in part], 40, rng)
        for cond in ("pro", "anti"):
            idx = [i for i, s in enumerate(part) if s[2] == cond]
            kinds = [part[i][3] for i in idx]
            vals = []
            accs = []
            for b in range(40):
                w = [per_doc[i][b] for i in idx]
                vals.append(conll(kinds, w) if sum(w) else math.nan)
                right = [wi for wi, k in zip(w, kinds, strict=True) if k == "right"]
                accs.append(sum(right) / sum(w) if sum(w) else math.nan)
            reps[(f"conll_f1_{cond}", split)] = np.array(vals)
            reps[(f"link_accuracy_{cond}", split)] = np.array(accs)
        reps[("gap", split)] = reps[("conll_f1_pro", split)] - reps[("conll_f1_anti", split)]
    for (m, split), r in list(reps.items()):
        if split == "s1":
            both = np.vstack([r, reps[(m, "s2")]])
            with warnings.catch_warnings():  # a replicate undefined in both strata
                warnings.simplefilter("ignore", RuntimeWarning)
                reps[(m, "macro")] = np.nanmean(both, axis=0)
    assert any(np.isnan(r).any() for r in reps.values())  # some replicate drew no anti item
    for row in metrics.itertuples():
        r = reps[(row.metric, row.split)]
        lo, hi = np.quantile(r[~np.isnan(r)], [0.025, 0.975])
        assert (row.ci_low, row.ci_high) == pytest.approx((lo, hi), abs=1e-12), row
        # the scorer returns each row's replicates, the ones worked out here
        np.testing.assert_allclose(returned.rows[(row.metric, row.split, row.type)], r, atol=1e-12)
    assert len(returned.rows) == len(metrics)
    # the point values are not the replicates' mean
    assert len(metrics) == 15


def test_n_boot_of_one_gives_an_interval_and_none_gives_none() -> None:
    table = _table(TWO_STRATA[:4])
    kw: dict[str, Any] = dict(strata=["split"], subsets=[PRO], item_columns=["item"])
    metrics, _, _, reps = score_frame(table, n_boot=1, seed=2, metrics=("conll_f1",), **kw)
    assert [d[:2] for d in reps.draws] == [(1, 4)]
    assert list(reps.rows) == [("conll_f1_pro", "s1", "all")]
    (row,) = metrics.itertuples()
    assert row.ci_low == row.ci_high and not math.isnan(row.ci_low)
    for n_boot in (0, -1):
        metrics, _, _, reps = score_frame(table, n_boot=n_boot, **kw)
        assert reps.draws == [] and reps.rows == {}
        assert metrics["ci_low"].isna().all()


def test_only_the_table_is_positional() -> None:
    table = _table(TWO_STRATA[:2])
    with pytest.raises(TypeError):
        score_frame(table, [], [PRO], ["item"])  # type: ignore[misc]
    metrics, _, _, _ = score_frame(
        table=table, strata=[], subsets=[PRO], item_columns=["item"], n_boot=0
    )
    assert metrics["metric"].tolist()[0] == "conll_f1_pro"
