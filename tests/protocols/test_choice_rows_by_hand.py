"""Choice rows built from hand-written items: option order, wording, forms and the errors."""

from __future__ import annotations

import dataclasses

import pytest

from winoscope.errors import TaskError
from winoscope.protocols.choice_rows import candidates, choice_rows, plain_wording
from winoscope.records import Item, Mention

NURSE = Mention("медсестрою", 10, 20, "target", name="медсестра", occupation="nurse")
COOK = Mention("кухарем", 25, 32, "distractor", occupation="кухар")
BARE = Mention("лікар", 0, 5, "distractor")
HE = Mention("він", 40, 43, "pronoun")


def _item(*mentions: Mention, pronoun: Mention | None = HE, row: str = "r1") -> Item:
    return Item("i1", row, "uk", "Речення про медсестру і кухаря.", tuple(mentions), pronoun)


def test_plain_wording_prefers_the_name_then_the_occupation_then_the_text() -> None:
    assert plain_wording(NURSE) == ("медсестра", ("медсестра", "nurse", "медсестрою"))
    assert plain_wording(COOK) == ("кухар", ("кухар", "кухарем"))
    assert plain_wording(BARE) == ("лікар", ("лікар",))  # one form, not repeated


def test_options_follow_the_mentions_or_the_given_roles() -> None:
    (row,) = choice_rows([_item(NURSE, COOK)])
    assert row.options == (
        ("медсестра", "target", ("медсестра", "nurse", "медсестрою")),
        ("кухар", "distractor", ("кухар", "кухарем")),
    )
    assert (row.row_id, row.item_id, row.pronoun) == ("r1", "i1", "він")
    assert row.sentence == "Речення про медсестру і кухаря."
    (swapped,) = choice_rows([_item(NURSE, COOK)], roles=["distractor", "target"])
    assert [o[1] for o in swapped.options] == ["distractor", "target"]
    # a custom wording; a row without a pronoun gets an empty one
    (upper,) = choice_rows([_item(NURSE, COOK, pronoun=None)], lambda m: (m.text.upper(), ()))
    assert [o[0] for o in upper.options] == ["МЕДСЕСТРОЮ", "КУХАРЕМ"] and upper.pronoun == ""


def test_one_row_per_item_in_order() -> None:
    rows = choice_rows([_item(NURSE, COOK, row="a"), _item(COOK, NURSE, row="b")])
    assert [r.row_id for r in rows] == ["a", "b"]
    assert [r.options[0][1] for r in rows] == ["target", "distractor"]


def test_a_choice_needs_exactly_two_candidates() -> None:
    with pytest.raises(TaskError, match="row r1 has 1 candidates; a choice needs two"):
        choice_rows([_item(NURSE)])
    with pytest.raises(TaskError, match="row r1 has 3 candidates"):
        choice_rows([_item(NURSE, COOK, BARE)])
    with pytest.raises(TaskError, match="row r1 has no 'occupation' mention"):
        choice_rows([_item(NURSE, COOK)], roles=["occupation", "target"])


def test_candidates_by_row_and_role() -> None:
    got = candidates([_item(NURSE, COOK, row="a"), _item(BARE, row="b")], lambda m: m.text)
    assert got == {
        "a": {"target": "медсестрою", "distractor": "кухарем"},
        "b": {"distractor": "лікар"},
    }


def test_a_choice_row_is_frozen_and_roles_are_a_keyword() -> None:
    (row,) = choice_rows([_item(NURSE, COOK)])
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.pronoun = "вона"  # type: ignore[misc]
    with pytest.raises(TypeError):
        choice_rows([_item(NURSE, COOK)], plain_wording, ["distractor", "target"])  # type: ignore[misc]
