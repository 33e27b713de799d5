"""Pairing two runs' rows, on tables built here and worked out by hand: which data identity
decides, how B's rows are put in A's order (and when that is refused), what counts as an
answer, row correctness per kind of task, and McNemar's counts, exact p-values and Holm
across strata (the p-values from the binomial sum written out here)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from winoscope.compare.pairing import (
    MCNEMAR_COLUMNS,
    align_rows,
    answered,
    answered_rows,
    check_same_data,
    coref_link_correctness,
    data_identity,
    mcnemar_table,
    row_correctness,
)
from winoscope.errors import DatasetError, ScoringError
from winoscope.results.record import RunRecord
from winoscope.results.rundir import RunDir


def _run(name: str, dataset: dict | None = None) -> RunDir:
    manifest = {} if dataset is None else {"dataset": dataset}
    return RunDir(Path("/runs") / name, manifest, pd.DataFrame())


def _right(table: pd.DataFrame, column: str) -> pd.Series:
    got = row_correctness(table, column)
    assert got is not None
    return got


def _exact(b: int, c: int) -> float:
    """Two-sided exact binomial p of b among b + c at 1/2, written out."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


# --- data identity ---------------------------------------------------------------------------


def test_data_identity_lists_what_is_recorded_strongest_first() -> None:
    full = {"table_sha256": "t", "source": {"sha256": "f", "revision": "r"}}
    got = data_identity(RunRecord.from_json({"dataset": full}))
    assert list(got.items()) == [
        ("dataset.table_sha256", "t"),
        ("dataset.source.revision", "r"),
        ("dataset.source.sha256", "f"),
    ]
    # empty values are no identity; a number is kept as text
    some = {"table_sha256": "", "source": {"revision": None, "sha256": 12}}
    assert data_identity(RunRecord.from_json({"dataset": some})) == {"dataset.source.sha256": "12"}
    assert data_identity(RunRecord.from_json({})) == {}
    assert data_identity(RunRecord.from_json({"dataset": None})) == {}
    assert data_identity(RunRecord.from_json({"dataset": {"source": None}})) == {}


def test_the_strongest_identity_both_record_decides() -> None:
    a = _run("a", {"table_sha256": "t1", "source": {"sha256": "fa"}})
    b = _run("b", {"table_sha256": "t1", "source": {"sha256": "fb"}})
    assert check_same_data(a, b) == "dataset.table_sha256=t1"  # file hashes may differ
    # A records no table hash: the file hash both record decides (and here they agree)
    a2 = _run("a2", {"source": {"sha256": "f", "revision": "r1"}})
    b2 = _run("b2", {"table_sha256": "t9", "source": {"sha256": "f", "revision": "r1"}})
    assert check_same_data(a2, b2) == "dataset.source.revision=r1"
    assert check_same_data(b2, a2) == "dataset.source.revision=r1"


def test_different_data_is_refused_naming_the_field_and_both_values() -> None:
    a = _run("a", {"table_sha256": "t1", "source": {"sha256": "f"}})
    b = _run("b", {"table_sha256": "t2", "source": {"sha256": "f"}})
    with pytest.raises(DatasetError) as err:
        check_same_data(a, b)
    text = str(err.value)
    assert "the runs used different data: dataset.table_sha256 is t1 in a and t2 in b" in text
    assert err.value.field == "dataset.table_sha256"
    assert err.value.file == str(Path("/runs/b/manifest.json"))
    with pytest.raises(DatasetError, match="is t2 in b and t1 in a"):
        check_same_data(b, a)


def test_no_shared_identity_is_refused_saying_what_each_records() -> None:
    a = _run("a", {"table_sha256": "t", "source": {"revision": "r"}})
    b = _run("b", {"source": {"sha256": "f"}})
    with pytest.raises(DatasetError) as err:
        check_same_data(a, b)
    text = str(err.value)
    assert "cannot tell whether the two runs used the same data: " in text
    assert "a records dataset.table_sha256, dataset.source.revision, " in text
    assert "b records dataset.source.sha256" in text
    assert err.value.file == str(Path("/runs/b/manifest.json"))
    with pytest.raises(DatasetError, match="a records no dataset hash, b records no dataset hash"):
        check_same_data(_run("a"), _run("b"))


# --- row alignment ---------------------------------------------------------------------------


def test_b_rows_are_put_in_a_order_by_their_id() -> None:
    pa = pd.DataFrame({"row_id": ["r1", "r2", "r3"], "x": [1, 2, 3]})
    pb = pd.DataFrame({"row_id": ["r3", "r1", "r2"], "x": [30, 10, 20]}, index=[7, 8, 9])
    got = align_rows(pa, pb, _run("a"), _run("b"))
    assert got["row_id"].tolist() == ["r1", "r2", "r3"]
    assert got["x"].tolist() == [10, 20, 30]
    assert got.index.tolist() == [0, 1, 2]
    assert list(got.columns) == ["row_id", "x"]


def test_row_ids_are_compared_as_text_and_the_first_shared_key_is_used() -> None:
    # row_id comes first: row_key (here in the opposite order) is not looked at
    pa = pd.DataFrame({"row_key": ["k1", "k2"], "row_id": [1, 2], "x": [1, 2]})
    pb = pd.DataFrame({"row_key": ["k1", "k2"], "row_id": ["2", "1"], "x": [20, 10]})
    assert align_rows(pa, pb, _run("a"), _run("b"))["x"].tolist() == [10, 20]
    # A has no row_id: row_key (shared) decides; then idx
    pa2 = pd.DataFrame({"row_key": ["k2", "k1"], "idx": [0, 1], "x": [1, 2]})
    pb2 = pd.DataFrame(
        {"row_id": ["z", "y"], "row_key": ["k1", "k2"], "idx": [1, 0], "x": [10, 20]}
    )
    assert align_rows(pa2, pb2, _run("a"), _run("b"))["x"].tolist() == [20, 10]
    pa3 = pd.DataFrame({"idx": [1, 0], "x": [1, 2]})
    pb3 = pd.DataFrame({"row_key": ["k", "j"], "idx": [0, 1], "x": [10, 20]})
    assert align_rows(pa3, pb3, _run("a"), _run("b"))["x"].tolist() == [20, 10]


def test_no_shared_row_id_is_refused() -> None:
    pa = pd.DataFrame({"row_id": [1]})
    pb = pd.DataFrame({"row_key": [1]})
    with pytest.raises(ScoringError, match=r"no row id column \(row_id, row_key, idx\)"):
        align_rows(pa, pb, _run("a"), _run("b"))


@pytest.mark.parametrize("twice", ["a", "b"])
def test_a_row_id_twice_is_refused_naming_the_run(twice: str) -> None:
    ok = pd.DataFrame({"row_id": ["r1", "r2", "r3"]})
    dup = pd.DataFrame({"row_id": ["r1", "r2", "r2", "r1"]})
    pa, pb = (dup, ok) if twice == "a" else (ok, dup)
    with pytest.raises(DatasetError) as err:
        align_rows(pa, pb, _run("a"), _run("b"))
    assert "row id 'r2' appears twice" in str(err.value)
    assert err.value.file == str(Path("/runs") / twice / "predictions.parquet")
    assert err.value.field == "row_id"


def test_rows_only_one_run_has_are_refused_with_counts_and_examples() -> None:
    pa = pd.DataFrame({"row_id": ["r1", "e", "d", "c", "b"]})
    pb = pd.DataFrame({"row_id": ["r1", "z", "y", "x", "w", "v"]})
    with pytest.raises(DatasetError) as err:
        align_rows(pa, pb, _run("a"), _run("b"))
    assert (
        "the runs cover different rows (4 only in a, e.g. ['b', 'c', 'd']; "
        "5 only in b, e.g. ['v', 'w', 'x'])"
    ) in str(err.value)
    assert err.value.file == str(Path("/runs/b/predictions.parquet"))
    assert err.value.field == "row_id"
    # rows only in B are refused too
    with pytest.raises(DatasetError, match=r"\(0 only in a, e.g. \[\]; 1 only in b, e.g. \['x'\]"):
        align_rows(
            pd.DataFrame({"row_id": ["r1"]}),
            pd.DataFrame({"row_id": ["r1", "x"]}),
            _run("a"),
            _run("b"),
        )


# --- answers ---------------------------------------------------------------------------------


def test_an_answer_is_non_empty_after_stripping() -> None:
    col = pd.Series(["target", None, "", "  ", float("nan"), " x ", 0])
    assert answered(col).tolist() == [True, False, False, False, False, True, True]


def test_a_coref_row_is_unanswered_only_when_its_request_failed() -> None:
    table = pd.DataFrame(
        {
            "predicted_clusters": ["[]", None, "[[[0, 1]]]", "[]"],
            "response_status": ["ok", "ok", "error", None],
        }
    )
    # no clusters (an empty list, even a missing value) is an answer: a miss
    assert answered_rows(table, "predicted_clusters").tolist() == [True, True, False, True]
    # without a response status the column itself decides
    plain = table.drop(columns="response_status")
    assert answered_rows(plain, "predicted_clusters").tolist() == [True, False, True, True]
    # any other prediction column: the text decides, whatever the status says
    other = pd.DataFrame(
        {"prediction_role": ["target", "", None], "response_status": ["error"] * 3}
    )
    assert answered_rows(other, "prediction_role").tolist() == [True, False, False]
    named = other.rename(columns={"prediction_role": "answer"})  # a name before the coref one
    assert answered_rows(named, "answer").tolist() == [True, False, False]


# --- row correctness -------------------------------------------------------------------------


def test_row_correctness_strips_and_casefolds_and_leaves_unanswered_rows_na() -> None:
    table = pd.DataFrame(
        {
            "prediction_role": [" Target", "distractor", "", None, "TARGET "],
            "coreference_role": ["target", "target", "target", "target", " target"],
        }
    )
    got = row_correctness(table, "prediction_role")
    assert got is not None and str(got.dtype) == "boolean"
    assert got.tolist() == [True, False, pd.NA, pd.NA, True]


def test_the_first_gold_column_present_is_the_gold_label() -> None:
    table = pd.DataFrame(
        {
            "prediction_role": ["a", "b"],
            "gold_referent": ["a", "b"],
            "gold_role": ["b", "b"],
            "coreference_role": ["a", "a"],
        }
    )
    assert _right(table, "prediction_role").tolist() == [True, False]
    no_coref_role = table.drop(columns="coreference_role")
    assert _right(no_coref_role, "prediction_role").tolist() == [False, True]
    only_referent = no_coref_role.drop(columns="gold_role")
    assert _right(only_referent, "prediction_role").tolist() == [True, True]


def test_nli_predictions_count_contradiction_as_neutral() -> None:
    table = pd.DataFrame(
        {
            "prediction": ["Contradiction", "neutral", "entailment", "contradiction"],
            "label": ["neutral", "neutral", "neutral", "contradiction"],
        }
    )
    # "contradiction" is read as "neutral": right against neutral, wrong against contradiction
    assert _right(table, "prediction").tolist() == [True, True, False, False]
    # the alias is the NLI column's only: a role called "contradiction" stays itself
    roles = pd.DataFrame({"prediction_role": ["contradiction"], "coreference_role": ["neutral"]})
    assert _right(roles, "prediction_role").tolist() == [False]


def test_no_gold_label_per_row_gives_none() -> None:
    assert row_correctness(pd.DataFrame({"prediction_role": ["a"]}), "prediction_role") is None
    gold_only = pd.DataFrame({"coreference_role": ["a"]})
    assert row_correctness(gold_only, "prediction_role") is None
    assert row_correctness(pd.DataFrame({"score": [1], "label": [1]}), "score") is None
    assert row_correctness(pd.DataFrame({"x": ["[]"]}), "predicted_clusters") is None
    # a column of another name is no coreference column, whatever the table also holds
    other = pd.DataFrame({"answer": ["a"], "predicted_clusters": ["[]"]})
    assert row_correctness(other, "answer") is None


def test_the_coref_column_is_known_by_its_name_not_its_object() -> None:
    name = "".join(["predicted", "_clusters"])  # equal, but not the module's string object
    assert _right(_coref_rows(), name).tolist() == [True, False, False, pd.NA]
    status = pd.DataFrame({name: ["[]", "[]"], "response_status": ["ok", "error"]})
    assert answered_rows(status, name).tolist() == [True, False]


def _coref_rows() -> pd.DataFrame:
    """Three documents: pronoun (4, 5), target (0, 1), distractor (2, 3), gold the target.

    Row 1 links the pronoun to the target only (right); row 2 to the distractor (wrong);
    row 3 to both (wrong); row 4 was blanked (unanswered)."""
    gold = json.dumps([[[0, 1], [4, 5]], [[2, 3]]])
    pred = [
        json.dumps([[[0, 1], [4, 5]]]),
        json.dumps([[[2, 3], [4, 5]]]),
        json.dumps([[[0, 1], [2, 3], [4, 5]]]),
        None,
    ]
    return pd.DataFrame(
        {
            "gold_clusters": [gold] * 4,
            "pronoun_span": ["[4, 5]"] * 4,
            "target_span": ["[0, 1]"] * 4,
            "distractor_span": ["[2, 3]"] * 4,
            "predicted_clusters": pred,
            "referent_role": ["target"] * 4,
        },
        index=[10, 11, 12, 13],
    )


def test_coref_row_correctness_is_the_pronoun_link() -> None:
    table = _coref_rows()
    got = coref_link_correctness(table)
    assert got.index.tolist() == [10, 11, 12, 13]
    assert got.tolist() == [True, False, False, pd.NA]
    assert _right(table, "predicted_clusters").tolist() == [True, False, False, pd.NA]
    # the referent is the distractor: row 2 is the right one
    dist = table.assign(referent_role="distractor")
    assert _right(dist, "predicted_clusters").tolist() == [False, True, False, pd.NA]


def test_coref_row_correctness_names_its_source() -> None:
    with pytest.raises(ScoringError, match="mine: missing column"):
        coref_link_correctness(_coref_rows().drop(columns="pronoun_span"), "mine")
    with pytest.raises(ScoringError, match="predictions: missing column"):
        row_correctness(_coref_rows().drop(columns="pronoun_span"), "predicted_clusters")


# --- McNemar ---------------------------------------------------------------------------------


def _bools(values: Sequence[object]) -> pd.Series:
    return pd.Series(values, dtype="boolean")


def test_mcnemar_by_stratum_and_overall_with_holm_across_strata() -> None:
    # strata (test, t1): rows 0-4; (dev, t2): rows 5-8; listed sorted: dev before test
    table = pd.DataFrame(
        {"split": ["test"] * 5 + ["dev"] * 4, "type": ["t1"] * 5 + ["t2"] * 4, "x": range(9)}
    )
    ra = _bools([True, True, True, True, False, False, False, False, None])
    rb = _bools([False, False, False, True, False, True, True, True, True])
    got = mcnemar_table(table, ra, rb)
    assert list(got.columns) == MCNEMAR_COLUMNS
    rows = got[
        ["split", "type", "rows", "both_right", "only_a_right", "only_b_right", "both_wrong"]
    ]
    assert rows.values.tolist() == [
        ["dev", "t2", 3, 0, 0, 3, 0],  # row 8 has no answer from A: left out
        ["test", "t1", 5, 1, 3, 0, 1],
        ["all", "all", 8, 1, 3, 3, 1],
    ]
    p_dev, p_test = _exact(0, 3), _exact(3, 0)  # 2 / 8 each
    assert got["p_value"].tolist() == pytest.approx([p_dev, p_test, _exact(3, 3)])
    assert (p_dev, _exact(3, 3)) == (0.25, 1.0)
    # Holm over the two strata: both 0.25 -> 2 * 0.25; the overall row keeps its own p
    assert got["p_holm"].tolist() == pytest.approx([0.5, 0.5, 1.0])


def test_mcnemar_holm_is_step_down_over_unequal_strata() -> None:
    # stratum "a": 5 discordant all one way (p = 2/32); "b": 1 of 2 (p = 1); "c": 4 of 4
    table = pd.DataFrame({"split": list("aaaaabbcccc"), "type": ["t"] * 11})
    ra = _bools([True] * 5 + [True, False] + [False] * 4)
    rb = _bools([False] * 5 + [False, True] + [True] * 4)
    got = mcnemar_table(table, ra, rb)
    assert got["split"].tolist() == ["a", "b", "c", "all"]
    pa, pb, pc = _exact(5, 0), _exact(1, 1), _exact(0, 4)
    assert (pa, pb, pc) == (0.0625, 1.0, 0.125)
    # sorted a (0.0625), c (0.125), b (1): 3 * 0.0625, max(0.1875, 2 * 0.125), 1
    assert got["p_holm"].tolist() == pytest.approx([0.1875, 1.0, 0.25, _exact(6, 5)])
    assert got["p_value"].iloc[-1] == pytest.approx(_exact(6, 5))


def test_mcnemar_strata_by_context_or_pronoun_else_only_overall() -> None:
    ra = _bools([True, True, False])
    rb = _bools([False, True, True])
    by_context = pd.DataFrame({"pronoun": ["x", "x", "y"], "context": ["c2", "c1", "c2"]})
    got = mcnemar_table(by_context, ra, rb)
    assert got[["split", "type", "rows"]].values.tolist() == [
        ["c1", "all", 1],
        ["c2", "all", 2],
        ["all", "all", 3],
    ]
    by_pronoun = pd.DataFrame({"pronoun": ["x", "x", "y"], "split": ["s"] * 3})
    got = mcnemar_table(by_pronoun, ra, rb)  # split without type is no stratum pair
    assert got[["split", "type", "rows", "only_a_right", "only_b_right"]].values.tolist() == [
        ["x", "all", 2, 1, 0],
        ["y", "all", 1, 0, 1],
        ["all", "all", 3, 1, 1],
    ]
    none = mcnemar_table(pd.DataFrame({"z": [1, 2, 3]}), ra, rb)
    assert none[["split", "type", "rows", "both_right"]].values.tolist() == [["all", "all", 3, 1]]
    assert none["p_holm"].tolist() == none["p_value"].tolist() == [1.0]


def test_mcnemar_with_stratum_values_of_other_types_and_no_answered_rows() -> None:
    table = pd.DataFrame({"split": [2, 10, 2], "type": ["t", "t", "t"]}, index=[5, 6, 7])
    ra = pd.Series([True, None, False], index=[5, 6, 7], dtype="boolean")
    rb = pd.Series([False, True, None], index=[5, 6, 7], dtype="boolean")
    got = mcnemar_table(table, ra, rb)
    # labels as text, sorted as text ("10" before "2"); only row 5 was answered by both
    assert got[["split", "rows", "only_a_right", "only_b_right"]].values.tolist() == [
        ["10", 0, 0, 0],
        ["2", 1, 1, 0],
        ["all", 1, 1, 0],
    ]
    assert got["p_value"].tolist() == [1.0, 1.0, 1.0]
    assert np.all(got["p_holm"].to_numpy() == 1.0)
