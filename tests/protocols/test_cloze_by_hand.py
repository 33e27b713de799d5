"""Cloze from hand-built rows and log-probabilities: templates, requests, the argmax, joins.

Every expected value is written out here, never computed by the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from winoscope.errors import TaskError
from winoscope.languages import Wording
from winoscope.protocols import cloze
from winoscope.protocols.choice_rows import ChoiceRow
from winoscope.records import Item, Option, Request, Response

DOCTOR = ("лікар", "target", ("лікаря",))
NURSE = ("медсестра", "distractor", ())
T = cloze.ClozeTemplate("{sentence} «{Pronoun}/{pronoun}» — це {candidate}", name="t")


def _row(row: str = "r1", item: Item | None = None) -> ChoiceRow:
    return ChoiceRow(row, "i" + row, "Лікар прийшов.", "ВІН", (DOCTOR, NURSE), item)


def _req(row: str = "r1", n: int = 2) -> Request:
    opts = (
        Option("target", " лікар", "target"),
        Option("distractor", " медсестра", "distractor"),
        Option("other", " пацієнт", "other"),
    )[:n]
    return Request(f"{row}|cloze", "cloze", "ctx", opts, row, "i" + row, "cloze")


def _resp(request_id: str = "r1|cloze", **kw: object) -> Response:
    return Response(request_id, "scripted", "m", **kw)  # type: ignore[arg-type]


# --- templates -----------------------------------------------------------------------------


def test_unknown_placeholders_are_named_sorted_with_the_allowed_ones() -> None:
    with pytest.raises(TaskError) as err:
        cloze.ClozeTemplate("{zz} {sentence} {aa} {candidate}", name="c")
    assert str(err.value) == (
        "cloze template 'c' uses unknown placeholder(s) {aa}, {zz}; allowed: "
        "{Pronoun}, {candidate}, {pronoun}, {sentence}"
    )


def test_a_template_needs_the_sentence_and_ends_with_one_candidate() -> None:
    with pytest.raises(TaskError) as err:
        cloze.ClozeTemplate("{pronoun} {candidate}", name="c")
    assert str(err.value) == "cloze template 'c' must contain {sentence}"
    ending = (
        "cloze template 'c' must end with {candidate} (once): the candidate is the scored "
        "continuation"
    )
    for text in ("{sentence} {candidate}.", "{sentence}", "{candidate} {sentence} {candidate}"):
        with pytest.raises(TaskError) as err:
            cloze.ClozeTemplate(text, name="c")
        assert str(err.value) == ending


def test_the_context_ends_where_the_whitespace_before_the_candidate_starts() -> None:
    assert (T.context_text, T.continuation_text) == (
        "{sentence} «{Pronoun}/{pronoun}» — це",
        " {candidate}",
    )
    glued = cloze.ClozeTemplate("{sentence} це{candidate}")
    assert (glued.context_text, glued.continuation_text) == ("{sentence} це", "{candidate}")
    wide = cloze.ClozeTemplate("{sentence}:\n \t{candidate}")
    assert (wide.context_text, wide.continuation_text) == ("{sentence}:", "\n \t{candidate}")
    assert glued.name == "custom-cloze"


def test_context_capitalises_the_pronoun_and_the_continuation_holds_the_candidate() -> None:
    assert T.context("Лікар прийшов.", "ВІН") == "Лікар прийшов. «Він/ВІН» — це"
    assert T.context("S.", "he") == "S. «He/he» — це"
    assert T.continuation("лікар") == " лікар"
    assert T.describe() == {
        "name": "t",
        "text": "{sentence} «{Pronoun}/{pronoun}» — це {candidate}",
        "context": "{sentence} «{Pronoun}/{pronoun}» — це",
        "continuation": " {candidate}",
    }


def test_load_reads_a_template_file_or_takes_the_text(tmp_path: Path) -> None:
    f = tmp_path / "mine.txt"
    f.write_text("{sentence} is the {candidate}\n\n", encoding="utf-8")
    t = cloze.ClozeTemplate.load(f)
    assert (t.text, t.name) == ("{sentence} is the {candidate}", "mine.txt")
    assert cloze.ClozeTemplate.load(str(f), name="given").name == "given"
    for suffix in (".tmpl", ".prompt"):
        g = tmp_path / f"other{suffix}"
        g.write_text("{sentence} = {candidate}", encoding="utf-8")
        assert cloze.ClozeTemplate.load(g).text == "{sentence} = {candidate}"
    literal = cloze.ClozeTemplate.load("{sentence} x {candidate}")
    assert (literal.text, literal.name) == ("{sentence} x {candidate}", "custom-cloze")
    assert cloze.ClozeTemplate.load("{sentence} x {candidate}", name="n").name == "n"
    other = tmp_path / "mine.md"  # not a template file: the path is the text
    other.write_text("{sentence} x {candidate}", encoding="utf-8")
    with pytest.raises(TaskError, match="must contain"):
        cloze.ClozeTemplate.load(other)


def test_the_defaults_are_the_languages_wordings_one_object_each() -> None:
    w = Wording("xx-cloze-v1", "cloze", "{sentence} → {candidate}")
    assert cloze.cloze_from_wording(w) is cloze.cloze_from_wording(w)
    assert cloze.cloze_from_wording(w).name == "xx-cloze-v1"
    assert (cloze.EN_CLOZE.name, cloze.EN_CLOZE.text) == (
        "en-cloze-v1",
        "{sentence} ‘{Pronoun}’ refers to the {candidate}",
    )
    assert cloze.UK_CLOZE.context_text == "{sentence} Тут «{pronoun}» — це"
    assert cloze.SV_CLOZE.continuation_text == " {candidate}"
    assert cloze.ORDER == "cloze"


# --- requests ------------------------------------------------------------------------------


def test_one_request_per_row_with_each_role_s_continuation() -> None:
    item = Item("ia", "a", "uk", "s", (), None)
    reqs = cloze.build_requests([_row("a", item), _row("b")], T)
    assert [r.request_id for r in reqs] == ["a|cloze", "b|cloze"]
    a = reqs[0]
    assert (a.kind, a.row_id, a.item_id, a.order, a.prompt) == (
        "cloze",
        "a",
        "ia",
        "cloze",
        "Лікар прийшов. «Він/ВІН» — це",
    )
    assert a.options == (
        Option("target", " лікар", "target", ("лікаря",)),
        Option("distractor", " медсестра", "distractor", ()),
    )
    assert a.item is item and reqs[1].item is None


def test_candidates_replace_a_row_s_wording_by_role() -> None:
    given = {"a": {"distractor": "сестра"}, "zz": {"target": "x"}}
    a, b = cloze.build_requests([_row("a"), _row("b")], T, given)
    assert [o.text for o in a.options] == [" лікар", " сестра"]
    assert [o.text for o in b.options] == [" лікар", " медсестра"]


# --- one answer ----------------------------------------------------------------------------


def test_the_largest_log_probability_wins_and_a_top_tie_is_invalid() -> None:
    req = _req()
    assert cloze.answer_role(req, _resp(option_logprobs=(-1.0, -2.0))) == "target"
    assert cloze.answer_role(req, _resp(option_logprobs=(-3.0, -0.5))) == "distractor"
    assert cloze.answer_role(req, _resp(option_logprobs=(-1.0, -1.0))) == "invalid"
    three = _req(n=3)
    assert cloze.answer_role(three, _resp(option_logprobs=(-2.0, -1.0, -2.0))) == "distractor"
    assert cloze.answer_role(three, _resp(option_logprobs=(-1.0, -3.0, -3.0))) == "target"
    assert cloze.answer_role(three, _resp(option_logprobs=(-3.0, -1.0, -1.0))) == "invalid"
    assert cloze.answer_role(three, _resp(option_logprobs=(-4.0, -5.0, -1.0))) == "other"


def test_a_nan_a_wrong_count_or_nothing_to_pick_is_invalid() -> None:
    req = _req()
    nan = float("nan")
    assert cloze.answer_role(req, _resp(option_logprobs=(nan, -1.0))) == "invalid"
    assert cloze.answer_role(req, _resp(option_logprobs=(-1.0, nan))) == "invalid"
    assert cloze.answer_role(req, _resp(option_logprobs=(-1.0,))) == "invalid"
    assert cloze.answer_role(req, _resp(option_logprobs=(-1.0, -2.0, -3.0))) == "invalid"
    assert cloze.answer_role(_req(n=0), _resp(option_logprobs=())) == "invalid"


def test_no_answer_is_error_and_a_direct_choice_is_its_role() -> None:
    req = _req()
    assert cloze.answer_role(req, None) == "error"
    assert cloze.answer_role(req, _resp(error="boom", option_logprobs=(-1.0, -2.0))) == "error"
    assert cloze.answer_role(req, _resp(choice="distractor")) == "distractor"
    assert cloze.answer_role(req, _resp(choice="A")) == "invalid"
    assert cloze.answer_role(req, _resp(text="target")) == "invalid"
    # log-probabilities win over a choice
    assert cloze.answer_role(req, _resp(choice="target", option_logprobs=(-5.0, -1.0))) == (
        "distractor"
    )


# --- the combination -----------------------------------------------------------------------


def test_combine_gives_the_role_the_scores_and_the_token_counts() -> None:
    answers = {
        "r1|cloze": _resp(option_logprobs=(-2.5, -0.75), option_token_counts=(1, 3)),
        "r2|cloze": _resp("r2|cloze", option_logprobs=(-1.0, -1.0)),
    }
    table = cloze.combine([_req("r1"), _req("r2")], answers)
    assert table.columns.tolist() == [
        "row_id",
        "logprob_target",
        "tokens_target",
        "logprob_distractor",
        "tokens_distractor",
        "prediction_role",
        "order_consistent",
        "answer_cloze",
        "orders_asked",
        "failed_requests",
    ]
    one = table.iloc[0].to_dict()
    assert one == {
        "row_id": "r1",
        "logprob_target": -2.5,
        "tokens_target": 1,
        "logprob_distractor": -0.75,
        "tokens_distractor": 3,
        "prediction_role": "distractor",
        "order_consistent": True,
        "answer_cloze": "logprobs -2.5000 -0.7500",
        "orders_asked": 1,
        "failed_requests": 0,
    }
    assert str(table["logprob_target"].dtype) == "Float64"
    assert str(table["tokens_target"].dtype) == "Int64"
    two = table.iloc[1]
    assert two["prediction_role"] == "invalid" and bool(two["order_consistent"]) is True
    assert pd.isna(two["tokens_target"]) and two["logprob_target"] == -1.0


def test_combine_leaves_a_failed_or_malformed_answer_unscored() -> None:
    answers = {
        "r1|cloze": _resp(
            error="HTTP 500", option_logprobs=(-1.0, -2.0), option_token_counts=(1, 1)
        ),
        "r3|cloze": _resp("r3|cloze", option_logprobs=(-1.0,), option_token_counts=(2,)),
        "r4|cloze": _resp("r4|cloze", choice="target"),
    }
    table = cloze.combine([_req("r1"), _req("r2"), _req("r3"), _req("r4")], answers)
    r1, r2, r3, r4 = (table.iloc[i] for i in range(4))
    assert pd.isna(r1["prediction_role"]) and pd.isna(r1["order_consistent"])
    assert r1["failed_requests"] == 1 and r1["answer_cloze"] == "<error: HTTP 500>"
    assert pd.isna(r1["logprob_target"]) and pd.isna(r1["tokens_target"])
    assert pd.isna(r2["prediction_role"]) and r2["failed_requests"] == 1
    assert pd.isna(r2["answer_cloze"])
    assert r3["prediction_role"] == "invalid" and r3["failed_requests"] == 0
    assert pd.isna(r3["logprob_target"]) and pd.isna(r3["tokens_distractor"])
    assert r3["answer_cloze"] == "logprobs -1.0000"
    assert r4["prediction_role"] == "target" and r4["answer_cloze"] == "target"
    text_only = cloze.combine([_req()], {"r1|cloze": _resp(text="лікар")})
    assert text_only.iloc[0]["answer_cloze"] == "<no log-probabilities>"
    assert text_only.iloc[0]["prediction_role"] == "invalid"


def test_combine_refuses_other_kinds_and_a_row_asked_twice() -> None:
    choice = Request("r1|target_first", "choice", "p", (), "r1", "i1", "target_first")
    with pytest.raises(TaskError) as err:
        cloze.combine([choice], {})
    assert str(err.value) == "request r1|target_first is a choice request, not cloze"
    with pytest.raises(TaskError) as err:
        cloze.combine([_req(), _req()], {})
    assert str(err.value) == "row r1 has more than one cloze request"


def test_is_cloze_only_for_cloze_requests_and_a_mix_is_an_error() -> None:
    choice = Request("r1|target_first", "choice", "p", (), "r1", "i1", "target_first")
    nli = Request("r2|x", "nli", "p", (), "r2", "i2", "x")
    assert cloze.is_cloze([_req(), _req("r2")]) is True
    assert cloze.is_cloze([choice, nli]) is False
    assert cloze.is_cloze([]) is False
    with pytest.raises(TaskError) as err:
        cloze.is_cloze([nli, _req(), choice])
    assert str(err.value) == "cloze requests mixed with choice, nli"


def test_too_many_scores_or_counts_are_left_empty() -> None:
    answers = {"r1|cloze": _resp(option_logprobs=(-1.0, -2.0, -3.0), option_token_counts=(1, 2, 3))}
    row = cloze.combine([_req()], answers).iloc[0]
    assert pd.isna(row["logprob_target"]) and pd.isna(row["tokens_distractor"])
    assert row["prediction_role"] == "invalid"
    # counts of the wrong length alone are empty, the scores kept
    fine = {"r1|cloze": _resp(option_logprobs=(-1.0, -2.0), option_token_counts=(1, 2, 3))}
    row = cloze.combine([_req()], fine).iloc[0]
    assert row["logprob_target"] == -1.0 and pd.isna(row["tokens_target"])


def test_every_other_kind_is_refused_and_a_kind_read_back_is_compared_by_value() -> None:
    for kind in ("nli", "coref", "choice"):
        other = Request("r2|x", kind, "p", (), "r2", "i2", "x")  # type: ignore[arg-type]
        with pytest.raises(TaskError, match=f"request r2\\|x is a {kind} request, not cloze"):
            cloze.combine([other], {})
    kind = "".join(["clo", "ze"])  # a request read back from a file holds its own string
    read = Request("r1|cloze", kind, "ctx", _req().options, "r1", "ir1", "cloze")  # type: ignore[arg-type]
    answers = {"r1|cloze": _resp(option_logprobs=(-2.0, -1.0))}
    assert cloze.combine([read], answers).iloc[0]["prediction_role"] == "distractor"


def test_a_cloze_template_is_frozen_and_hashable() -> None:
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        T.text = "{sentence} {candidate}"  # type: ignore[misc]
    assert hash(T) == hash(cloze.ClozeTemplate(T.text, name="t"))
