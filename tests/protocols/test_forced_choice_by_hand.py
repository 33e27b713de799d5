"""Forced choice from hand-built rows and answers: templates, option orders, letters, joins.

Every expected value is written out here (the prompt text, the request ids, the combined
roles), never computed by the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from winoscope.errors import TaskError
from winoscope.languages import Wording
from winoscope.protocols import forced_choice as fc
from winoscope.protocols.choice_rows import ChoiceRow
from winoscope.records import Item, Option, Request, Response
from winoscope.tasks.base import join_answers

T = "S={sentence} P={pronoun} A={option_a} B={option_b}"
DOCTOR = ("лікар", "target", ("лікаря", "лікарем"))
NURSE = ("медсестра", "distractor", ())
ITEM_EN = Item("i1", "r1", "en", "The doctor hired the nurse.", (), None)


def _row(row: str = "r1", item: Item | None = None) -> ChoiceRow:
    return ChoiceRow(row, "i" + row, "Лікар найняв медсестру.", "він", (DOCTOR, NURSE), item)


def _req(order: str, row: str = "r1", item: Item | None = None) -> Request:
    first, second = (DOCTOR, NURSE) if order == "target_first" else (NURSE, DOCTOR)
    opts = (Option("A", first[0], first[1]), Option("B", second[0], second[1]))
    return Request(f"{row}|{order}", "choice", "p", opts, row, "i" + row, order, item)


def _resp(request_id: str, **kw: object) -> Response:
    return Response(request_id, "scripted", "m", **kw)  # type: ignore[arg-type]


# --- templates -----------------------------------------------------------------------------


def test_a_template_names_its_unknown_placeholders_sorted_and_the_allowed_ones() -> None:
    with pytest.raises(TaskError) as err:
        fc.PromptTemplate("{zeta} {sentence} {option_a} {option_b} {alpha}", name="mine")
    assert str(err.value) == (
        "prompt template 'mine' uses unknown placeholder(s) {alpha}, {zeta}; allowed: "
        "{option_a}, {option_b}, {pronoun}, {sentence}"
    )


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("{sentence} {option_b}", "option_a"),
        ("{sentence} {option_a}", "option_b"),
        ("{option_a} {option_b}", "sentence"),
    ],
)
def test_a_template_needs_both_options_and_the_sentence(text: str, missing: str) -> None:
    with pytest.raises(TaskError) as err:
        fc.PromptTemplate(text, name="t")
    assert str(err.value) == f"prompt template 't' must contain {{{missing}}}"


def test_the_pronoun_is_optional_and_other_placeholder_sets_need_only_their_own() -> None:
    t = fc.PromptTemplate("{sentence}: {option_a} / {option_b}")
    assert t.name == "custom"
    assert t.render(sentence="S", option_a="x", option_b="y", pronoun="він") == "S: x / y"
    # an NLI-like set without {sentence}: nothing asks for a sentence it cannot have
    nli = frozenset({"premise", "hypothesis", "option_a", "option_b"})
    t2 = fc.PromptTemplate("{premise} {hypothesis} {option_a} {option_b}", allowed=nli)
    assert t2.render(premise="p", hypothesis="h", option_a="a", option_b="b") == "p h a b"
    with pytest.raises(TaskError, match=r"must contain \{option_b\}"):
        fc.PromptTemplate("{premise} {option_a}", allowed=nli)
    with pytest.raises(TaskError, match=r"unknown placeholder\(s\) \{sentence\}"):
        fc.PromptTemplate("{sentence} {option_a} {option_b}", allowed=nli)


def test_load_reads_a_template_file_or_takes_the_text(tmp_path: Path) -> None:
    f = tmp_path / "mine.txt"
    f.write_text("F {sentence} {option_a} {option_b}\n", encoding="utf-8")
    t = fc.PromptTemplate.load(f)
    assert (t.text, t.name) == ("F {sentence} {option_a} {option_b}\n", "mine.txt")
    assert fc.PromptTemplate.load(str(f), name="given").name == "given"
    for suffix in (".tmpl", ".prompt"):
        g = tmp_path / f"other{suffix}"
        g.write_text("G {sentence} {option_a} {option_b}", encoding="utf-8")
        assert fc.PromptTemplate.load(g).text == "G {sentence} {option_a} {option_b}"
    literal = fc.PromptTemplate.load("L {sentence} {option_a} {option_b}")
    assert (literal.text, literal.name) == ("L {sentence} {option_a} {option_b}", "custom")
    assert fc.PromptTemplate.load("L {sentence} {option_a} {option_b}", name="n").name == "n"
    # another suffix is not a template file: its path is the text (and has no placeholders)
    other = tmp_path / "mine.md"
    other.write_text("M {sentence} {option_a} {option_b}", encoding="utf-8")
    with pytest.raises(TaskError, match="must contain"):
        fc.PromptTemplate.load(other)


def test_from_wording_is_one_object_per_wording_and_keeps_the_allowed_set() -> None:
    w = Wording("xx-v1", "choice", "{sentence} {option_a} {option_b}")
    t = fc.from_wording(w)
    assert fc.from_wording(w) is t
    assert (t.text, t.name, t.allowed) == (
        "{sentence} {option_a} {option_b}",
        "xx-v1",
        frozenset({"sentence", "pronoun", "option_a", "option_b"}),
    )
    nli = frozenset({"premise", "option_a", "option_b"})
    wn = Wording("xx-nli-v1", "nli", "{premise} {option_a} {option_b}")
    assert fc.from_wording(wn, nli).allowed == nli


# --- requests ------------------------------------------------------------------------------


def test_two_requests_per_row_the_given_order_then_swapped() -> None:
    item = Item("ia", "a", "uk", "s", (), None)
    reqs = fc.build_requests([_row("a", item), _row("b")], fc.PromptTemplate(T))
    assert [r.request_id for r in reqs] == [
        "a|target_first",
        "a|distractor_first",
        "b|target_first",
        "b|distractor_first",
    ]
    first, second = reqs[0], reqs[1]
    assert first.prompt == "S=Лікар найняв медсестру. P=він A=лікар B=медсестра"
    assert second.prompt == "S=Лікар найняв медсестру. P=він A=медсестра B=лікар"
    assert first.options == (
        Option("A", "лікар", "target", ("лікаря", "лікарем")),
        Option("B", "медсестра", "distractor", ()),
    )
    assert second.options == (
        Option("A", "медсестра", "distractor", ()),
        Option("B", "лікар", "target", ("лікаря", "лікарем")),
    )
    assert [(r.kind, r.row_id, r.item_id, r.order) for r in reqs[:2]] == [
        ("choice", "a", "ia", "target_first"),
        ("choice", "a", "ia", "distractor_first"),
    ]
    assert first.item is item and second.item is item and reqs[2].item is None
    assert fc.LABELS == ("A", "B")


# --- one answer ----------------------------------------------------------------------------


def test_no_answer_or_an_error_is_error() -> None:
    req = _req("target_first")
    assert fc.answer_role(req, None) == "error"
    assert fc.answer_role(req, _resp(req.request_id, error="timeout", choice="A")) == "error"


def test_a_direct_choice_is_the_letter_s_role() -> None:
    req = _req("distractor_first")  # A медсестра (distractor), B лікар (target)
    assert fc.answer_role(req, _resp(req.request_id, choice="A")) == "distractor"
    assert fc.answer_role(req, _resp(req.request_id, choice="B")) == "target"
    assert fc.answer_role(req, _resp(req.request_id, choice="C")) == "invalid"
    # a choice wins over the text
    assert fc.answer_role(req, _resp(req.request_id, choice="B", text="A")) == "target"


def test_option_logprobs_pick_the_largest_and_a_tie_or_wrong_count_is_invalid() -> None:
    req = _req("distractor_first")
    rid = req.request_id
    assert fc.answer_role(req, _resp(rid, option_logprobs=(-1.0, -2.0))) == "distractor"
    assert fc.answer_role(req, _resp(rid, option_logprobs=(-3.0, -0.5))) == "target"
    assert fc.answer_role(req, _resp(rid, option_logprobs=(-1.0, -1.0))) == "invalid"
    assert fc.answer_role(req, _resp(rid, option_logprobs=(-1.0,))) == "invalid"
    assert fc.answer_role(req, _resp(rid, option_logprobs=(-1.0, -2.0, -3.0))) == "invalid"
    # log-probabilities win over the text
    assert fc.answer_role(req, _resp(rid, option_logprobs=(-3.0, -0.5), text="A")) == "target"


def test_a_text_answer_is_read_in_the_item_s_language() -> None:
    # Cyrillic "А" is the letter A in Ukrainian (the default without an item), not in English
    plain = _req("target_first")
    assert fc.answer_role(plain, _resp(plain.request_id, text="А")) == "target"
    assert fc.answer_role(plain, _resp(plain.request_id, text="B.")) == "distractor"
    en = _req("target_first", item=ITEM_EN)
    assert fc.answer_role(en, _resp(en.request_id, text="А")) == "invalid"
    assert fc.answer_role(en, _resp(en.request_id, text="B")) == "distractor"
    assert fc.answer_role(plain, _resp(plain.request_id)) == "invalid"  # no text at all


# --- both orders ---------------------------------------------------------------------------

TF, DF = "r1|target_first", "r1|distractor_first"


def _combined(responses: dict[str, Response], **kw: object) -> dict[str, object]:
    reqs = [_req("target_first"), _req("distractor_first")]
    table = fc.combine_orders(reqs, responses, **kw)  # type: ignore[arg-type]
    assert len(table) == 1
    return table.iloc[0].to_dict()


def test_both_orders_agreeing_give_the_role() -> None:
    # target_first: A is the doctor; distractor_first: B is the doctor
    got = _combined({TF: _resp(TF, choice="A"), DF: _resp(DF, choice="B")})
    assert got == {
        "row_id": "r1",
        "role_target_first": "target",
        "answer_target_first": "A",
        "role_distractor_first": "target",
        "answer_distractor_first": "B",
        "prediction_role": "target",
        "order_consistent": True,
        "orders_asked": 2,
        "failed_requests": 0,
    }


def test_the_same_letter_in_both_orders_is_invalid() -> None:
    got = _combined({TF: _resp(TF, choice="A"), DF: _resp(DF, choice="A")})
    assert (got["role_target_first"], got["role_distractor_first"]) == ("target", "distractor")
    assert (got["prediction_role"], got["order_consistent"]) == ("invalid", False)


def test_two_invalid_answers_agree_on_nothing() -> None:
    got = _combined({TF: _resp(TF, text="?"), DF: _resp(DF, text="?")})
    assert (got["role_target_first"], got["role_distractor_first"]) == ("invalid", "invalid")
    assert (got["prediction_role"], got["order_consistent"]) == ("invalid", False)
    assert (got["answer_target_first"], got["failed_requests"]) == ("?", 0)


def test_one_invalid_answer_makes_the_row_invalid() -> None:
    got = _combined({TF: _resp(TF, choice="A"), DF: _resp(DF, text="не знаю")})
    assert (got["prediction_role"], got["order_consistent"]) == ("invalid", False)
    got = _combined({TF: _resp(TF, text="не знаю"), DF: _resp(DF, choice="B")})
    assert (got["prediction_role"], got["order_consistent"]) == ("invalid", False)


@pytest.mark.parametrize("missing", [TF, DF])
def test_an_unanswered_request_leaves_the_row_unscored(missing: str) -> None:
    answers = {TF: _resp(TF, choice="A"), DF: _resp(DF, choice="B")}
    answers[missing] = _resp(missing, error="HTTP 500")
    got = _combined(answers)
    assert pd.isna(got["prediction_role"]) and pd.isna(got["order_consistent"])
    assert got["failed_requests"] == 1 and got["orders_asked"] == 2
    order = missing.split("|")[1]
    assert got[f"answer_{order}"] == "<error: HTTP 500>" and got[f"role_{order}"] == "error"
    # a request with no response at all is unanswered too (its answer is empty)
    del answers[missing]
    got = _combined(answers)
    assert pd.isna(got["prediction_role"]) and got["failed_requests"] == 1
    assert got[f"answer_{order}"] is None


def test_both_unanswered_count_two_failed_requests() -> None:
    got = _combined({})
    assert got["failed_requests"] == 2 and pd.isna(got["prediction_role"])


def test_a_row_asked_in_one_order_only_is_invalid_unless_one_order_is_all() -> None:
    one = [_req("target_first", "r1"), _req("target_first", "r2"), _req("distractor_first", "r2")]
    answers = {
        "r1|target_first": _resp("r1|target_first", choice="A"),
        "r2|target_first": _resp("r2|target_first", choice="A"),
        "r2|distractor_first": _resp("r2|distractor_first", choice="B"),
    }
    table = fc.combine_orders(one, answers).set_index("row_id")
    assert table.loc["r1", "prediction_role"] == "invalid"
    assert not table.loc["r1", "order_consistent"]
    assert table.loc["r1", "orders_asked"] == 1
    assert table.loc["r2", "prediction_role"] == "target"
    # the orders a task uses may be given: a task of one order needs only that one
    only = fc.combine_orders(one[:1], answers, orders=["target_first"])
    assert only.iloc[0]["prediction_role"] == "target"
    assert bool(only.iloc[0]["order_consistent"]) is True
    # ... and a row asked in one order of a two-order task is invalid even when alone
    alone = fc.combine_orders(one[:1], answers, orders=["target_first", "distractor_first"])
    assert alone.iloc[0]["prediction_role"] == "invalid"
    # with no orders given, a task of one order needs just that one
    assert fc.combine_orders(one[:1], answers).iloc[0]["prediction_role"] == "target"


def test_answer_texts_and_the_mean_letter_mass() -> None:
    got = _combined(
        {
            TF: _resp(TF, option_logprobs=(-0.25, -1.5), letter_mass=0.9),
            DF: _resp(DF, option_logprobs=(-2.0, -0.125), letter_mass=0.4),
        }
    )
    assert got["answer_target_first"] == "logprobs -0.2500 -1.5000"
    assert got["answer_distractor_first"] == "logprobs -2.0000 -0.1250"
    assert got["letter_mass"] == pytest.approx(0.65)
    assert got["prediction_role"] == "target"
    one = _combined({TF: _resp(TF, text="A", letter_mass=0.3), DF: _resp(DF, text="B")})
    assert one["letter_mass"] == pytest.approx(0.3)
    assert one["answer_target_first"] == "A"
    none = _combined({TF: _resp(TF, text="A"), DF: _resp(DF, text="B")})
    assert "letter_mass" not in none


# --- failed-request policy -----------------------------------------------------------------


def test_an_unknown_policy_is_named() -> None:
    with pytest.raises(TaskError) as err:
        fc.apply_failed_policy(pd.DataFrame({"p": ["x"]}), "p", "drop")
    assert str(err.value) == "unknown failed-request policy 'drop'; choose exclude or wrong"
    assert fc.FAILED_POLICIES == ("exclude", "wrong")


def test_empty_predictions_are_counted_and_kept_or_made_invalid() -> None:
    table = pd.DataFrame({"id": [1, 2, 3, 4, 5], "p": ["target", None, "", "  ", "invalid"]})
    kept, n = fc.apply_failed_policy(table, "p")
    assert n == 3 and kept is table
    wrong, n = fc.apply_failed_policy(table, "p", "wrong")
    assert n == 3
    assert wrong["p"].tolist() == ["target", "invalid", "invalid", "invalid", "invalid"]
    assert pd.isna(table.loc[1, "p"]) and table.loc[2, "p"] == ""  # not changed in place
    full = pd.DataFrame({"p": ["target", "distractor"]})
    same, n = fc.apply_failed_policy(full, "p", "wrong")
    assert n == 0 and same is full
    na = pd.DataFrame({"p": pd.array(["target", pd.NA], dtype="string")})
    assert fc.apply_failed_policy(na, "p", "wrong")[0]["p"].tolist() == ["target", "invalid"]


def test_a_table_without_the_column_has_nothing_to_count() -> None:
    table = pd.DataFrame({"q": [None]})
    assert fc.apply_failed_policy(table, "p", "wrong") == (table, 0)


def test_coreference_rows_are_dropped_or_kept_by_their_status() -> None:
    table = pd.DataFrame({"id": ["a", "b", "c"], "response_status": ["ok", "error", "ok"]})
    dropped, n = fc.apply_failed_policy(table, "p")
    assert n == 1
    assert dropped["id"].tolist() == ["a", "c"] and dropped.index.tolist() == [0, 1]
    assert dropped.columns.tolist() == ["id", "response_status"]  # the old index not kept
    kept, n = fc.apply_failed_policy(table, "p", "wrong")
    assert n == 1 and kept is table
    fine = pd.DataFrame({"id": ["a"], "response_status": ["ok"]})
    assert fc.apply_failed_policy(fine, "p") == (fine, 0)


# --- the join ------------------------------------------------------------------------------


def test_the_combined_answer_joins_its_dataset_row_by_key() -> None:
    reqs = [_req("target_first"), _req("distractor_first")]
    answers = {TF: _resp(TF, choice="A"), DF: _resp(DF, choice="B")}
    table = pd.DataFrame({"id": ["r0", "r1"], "gold": ["target", "target"]})
    by_id = fc.row_answers(reqs, answers, key="id", prediction="prediction")
    joined = join_answers(table, by_id, "id")
    assert joined["id"].tolist() == ["r0", "r1"]
    assert pd.isna(joined.loc[0, "prediction"]) and joined.loc[1, "prediction"] == "target"
    assert "row_id" not in joined.columns and "prediction_role" not in joined.columns
    default = join_answers(
        table.rename(columns={"id": "row_id"}), fc.row_answers(reqs, answers), "row_id"
    )
    assert default["prediction_role"].tolist()[1] == "target"
    with pytest.raises(pd.errors.MergeError):
        join_answers(pd.concat([table, table]), by_id, "id")


def test_a_tables_own_prediction_columns_give_way_to_the_runs_answers() -> None:
    """Data that is an earlier run's predictions file already has the answer columns: the
    join replaces them (kept beside, pandas would name both ``prediction_role_x``/``_y``)."""
    reqs = [_req("target_first"), _req("distractor_first")]
    answers = {TF: _resp(TF, choice="A"), DF: _resp(DF, choice="B")}
    table = pd.DataFrame(
        {"row_id": ["r0", "r1"], "prediction_role": ["distractor", "distractor"], "x": [1, 2]}
    )
    joined = join_answers(table, fc.row_answers(reqs, answers), "row_id")
    assert [c for c in joined.columns if c.endswith(("_x", "_y"))] == []
    assert (
        pd.isna(joined.loc[0, "prediction_role"]) and joined.loc[1, "prediction_role"] == "target"
    )
    assert joined["x"].tolist() == [1, 2]


def test_cloze_requests_are_joined_by_the_cloze_combination() -> None:
    opts = (Option("target", " лікар", "target"), Option("distractor", " медсестра", "distractor"))
    req = Request("r1|cloze", "cloze", "ctx", opts, "r1", "i1", "cloze")
    answers = {"r1|cloze": _resp("r1|cloze", option_logprobs=(-5.0, -1.0))}
    joined = join_answers(
        pd.DataFrame({"row_id": ["r1"]}), fc.row_answers([req], answers), "row_id"
    )
    assert joined.loc[0, "prediction_role"] == "distractor"
    assert joined.loc[0, "answer_cloze"] == "logprobs -5.0000 -1.0000"


# --- letter mass ---------------------------------------------------------------------------


def test_letter_mass_summary_and_its_line() -> None:
    assert fc.letter_mass_summary([_resp("x"), _resp("y", text="A")]) is None
    masses = [0.2, 0.3, 0.5, 0.9, None]
    summary = fc.letter_mass_summary(_resp(str(i), letter_mass=m) for i, m in enumerate(masses))
    assert summary == {
        "requests": 4,
        "mean": 0.475,  # 1.9 / 4
        "below": 0.5,
        "requests_below": 2,  # 0.2 and 0.3; 0.5 is not below a half
        "share_below": 0.5,
    }
    assert fc.letter_mass_lines(summary) == [
        "- **Letter mass** (probability on the offered option letters): mean 0.475 over 4 "
        "requests; 50.0% (2) below 0.5"
    ]
    assert fc.letter_mass_lines(None) == [] and fc.letter_mass_lines({}) == []
    assert fc.LOW_LETTER_MASS == 0.5
    thirds = fc.letter_mass_summary(
        [_resp("a", letter_mass=0.1), *(_resp("b", letter_mass=0.8),) * 2]
    )
    assert thirds is not None and (thirds["mean"], thirds["share_below"]) == (0.566667, 0.333333)


def test_the_orders_and_the_join_s_names_are_keyword_only() -> None:
    reqs, answers = [_req("target_first")], {TF: _resp(TF, choice="A")}
    with pytest.raises(TypeError):
        fc.combine_orders(reqs, answers, ["target_first"])  # type: ignore[misc]
    with pytest.raises(TypeError):
        fc.row_answers(reqs, answers, "row_id")  # type: ignore[misc]


def test_roles_agree_by_value_not_by_object() -> None:
    # requests read back from a file hold their own copies of the role strings
    target, distractor = "".join(["tar", "get"]), "".join(["distr", "actor"])
    copied = Request(
        DF,
        "choice",
        "p",
        (Option("A", "медсестра", distractor), Option("B", "лікар", target)),
        "r1",
        "ir1",
        "distractor_first",
    )
    reqs = [_req("target_first"), copied]
    table = fc.combine_orders(reqs, {TF: _resp(TF, choice="A"), DF: _resp(DF, choice="B")})
    assert table.iloc[0]["prediction_role"] == "target"
    assert bool(table.iloc[0]["order_consistent"]) is True


def test_a_row_asked_in_more_orders_than_needed_is_complete() -> None:
    reqs = [_req("target_first"), _req("distractor_first")]
    answers = {TF: _resp(TF, choice="A"), DF: _resp(DF, choice="B")}
    table = fc.combine_orders(reqs, answers, orders=["target_first"])
    assert table.iloc[0]["prediction_role"] == "target"


def test_a_policy_read_at_run_time_is_compared_by_value() -> None:
    # the CLI's --failed value is a string of its own, not the literal in the code
    exclude, wrong = "".join(["ex", "clude"]), "".join(["wr", "ong"])
    coref = pd.DataFrame({"id": ["a", "b"], "response_status": ["error", "ok"]})
    assert fc.apply_failed_policy(coref, "p", exclude)[0]["id"].tolist() == ["b"]
    table = pd.DataFrame({"p": ["target", None]})
    assert fc.apply_failed_policy(table, "p", wrong)[0]["p"].tolist() == ["target", "invalid"]


def test_a_template_is_frozen_and_hashable() -> None:
    import dataclasses

    t = fc.PromptTemplate(T, name="t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.text = "other"  # type: ignore[misc]
    assert hash(t) == hash(fc.PromptTemplate(T, name="t"))
