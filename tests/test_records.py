"""Typed records between the stages: Item and Mention on requests, the choice-row builder, the
family task factory, and content hashes pinned before the records became typed."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from winoscope.backends import create_backend
from winoscope.datasets.base import Dataset
from winoscope.datasets.sources import SourceInfo
from winoscope.families.winobias.tasks import winobias_task
from winoscope.protocols.choice_rows import choice_rows, plain_wording
from winoscope.protocols.forced_choice import EN_DEFAULT, build_requests
from winoscope.records import Item, Mention, Option, Request
from winoscope.tasks import get_task
from winoscope.tasks.base import DatasetAccess

# sha256 of (kind, prompt, option labels and texts), computed before Request.meta became
# Request.item: stored answers keyed by these hashes must still resume
PINNED = {
    ("winobias-uk", "validation/type1/1/mm|target_first"): (
        "1c617c63d78dd1f28522378425ff88af853e71baccda9bbae6b217068ad34a73"
    ),
    ("winobias-uk/coref", "validation/type1/1/mm"): (
        "c71428b4a75cbae36f56b3c584446a25d8241913d7d748bc2ba9ebf54b575562"
    ),
    ("swewinogender/nli", "1|entailment_first"): (
        "2d4b54dfb081b00d1caf2fa41216143b1659ddde046da0c4cc97c1852e86573f"
    ),
    ("winopron-uk", "double-001-occupation-male-occupation_first"): (
        "9e9325eebf7587d55c253e3c562ca4169261058cba947513abf29102190b2df8"
    ),
}


def _requests(task_name: str) -> list[Request]:
    t = get_task(task_name)
    assert t.primary.template is not None
    return t.primary.build_requests(t.data.load(), t.primary.template)


@pytest.mark.parametrize(("task_name", "request_id"), sorted(PINNED))
def test_content_hash_unchanged(task_name: str, request_id: str) -> None:
    req = next(r for r in _requests(task_name) if r.request_id == request_id)
    assert req.content_hash == PINNED[(task_name, request_id)]
    assert isinstance(req.item, Item)


def test_request_has_no_meta_and_item_is_not_compared() -> None:
    assert "meta" not in {f.name for f in dataclasses.fields(Request)}
    opts = (Option("A", "лікар", "target"), Option("B", "медсестра", "distractor"))
    bare = Request("r|x", "choice", "Хто?", opts, row_id="r", item_id="i")
    item = Item("i", "r", "uk", "Лікар прийшов.", (), None)
    annotated = dataclasses.replace(bare, item=item)
    assert not hasattr(bare, "meta")
    assert bare == annotated and hash(bare) == hash(annotated)
    assert bare.content_hash == annotated.content_hash


def test_winobias_items_have_char_spans_and_no_gold() -> None:
    reqs = _requests("winobias-uk")
    for r in reqs:
        item = r.item
        assert item is not None and item.language == "uk"
        assert {f.name for f in dataclasses.fields(item)}.isdisjoint({"gold_role", "gold"})
        for m in (*item.mentions, item.pronoun):
            assert m is not None
            if m.start is not None:
                assert item.sentence[m.start : m.end] == m.text
    first = next(r for r in reqs if r.request_id == "validation/type1/1/mm|target_first")
    assert first.item is not None
    target, other = first.item.mention("target"), first.item.mention("distractor")
    assert (target.text, target.start, target.end, target.gender) == ("Розробник", 0, 9, "male")
    assert (other.text, other.start, other.stereotype) == ("дизайнером", 25, "female")
    assert first.item.pronoun == Mention("він", 40, 43, "pronoun", gender="male", case="nom")
    assert first.item.stereotype_role == "target"  # male-stereotyped developer, pronoun він


def _ask(model: str, item: Item | None) -> str | None:
    opts = (Option("A", "лікарка", "target"), Option("B", "кухар", "distractor"))
    req = Request("r|x", "choice", "?", opts, row_id="r", item_id="i", item=item)
    (resp,) = create_backend(model).respond([req])
    return resp.choice


def _item(language: str, target_start: int, other_start: int) -> Item:
    return Item(
        item_id="i",
        row_id="r",
        language=language,
        sentence="x" * 40,
        mentions=(
            Mention("лікарка", target_start, target_start + 7, "target", gender="female"),
            Mention("кухар", other_start, other_start + 5, "distractor", gender="male"),
        ),
        pronoun=Mention("він", 30, 33, "pronoun", gender="male"),
    )


def test_typed_item_reaches_the_baselines() -> None:
    # the baselines answer from the item: position, grammatical gender
    assert _ask("baseline:first", _item("en", 10, 0)) == "B"
    assert _ask("baseline:first", _item("en", 0, 10)) == "A"
    assert _ask("baseline:first", None) == "A"  # no item: the first option
    # en has no analyser: the mention genders decide; uk's analyser reads кухар as male too
    assert _ask("baseline:agreement", _item("en", 0, 10)) == "B"
    assert _ask("baseline:agreement", _item("uk", 0, 10)) == "B"
    stereo = dataclasses.replace(
        _item("en", 0, 10),
        mentions=(
            Mention("лікарка", 0, 7, "target", stereotype="female"),
            Mention("кухар", 10, 15, "distractor", stereotype_labels="male"),
        ),
    )
    assert stereo.stereotype_role == "distractor"
    assert _ask("baseline:stereotype", stereo) == "B"
    assert _ask("baseline:stereotype-labels", stereo) == "B"


def test_choice_rows_builder_words_options_from_mentions() -> None:
    item = _item("en", 0, 10)
    (row,) = choice_rows([item], plain_wording, roles=("distractor", "target"))
    assert [o[:2] for o in row.options] == [("кухар", "distractor"), ("лікарка", "target")]
    assert row.pronoun == "він" and row.item is item
    reqs = build_requests([row], EN_DEFAULT)
    assert [r.order for r in reqs] == ["distractor_first", "target_first"]
    assert all(r.item is item for r in reqs)


def _tiny_winobias() -> Dataset:
    """Two Danish-style rows (pro and anti) in the WinoBias family's fields, ``_da`` suffixed."""
    rows = []
    for cond, pron, gender in (("pro", "han", "male"), ("anti", "hun", "female")):
        rows.append(
            {
                "row_id": f"validation/type1/1/{cond}",
                "item_id": "validation/type1/1",
                "split": "validation",
                "type": "type1",
                "item_number": 1,
                "variant": "mm" if gender == "male" else "ff",
                "score_group": "primary_balanced",
                "condition": cond,
                "pronoun_gender": gender,
                "coreference_role": "target",
                "target_occupation_da": "mekanikeren",
                "other_occupation_da": "sygeplejersken",
                "sentence_da": f"Mekanikeren hjalp sygeplejersken, fordi {pron} var færdig.",
                "sentence_annotated_da": f"[Mekanikeren] hjalp sygeplejersken, fordi [{pron}] var "
                "færdig.",
                "target_span_da": "Mekanikeren",
                "other_span_da": "sygeplejersken",
                "pronoun_span_da": pron,
            }
        )
    table = pd.DataFrame(rows)
    return Dataset("winobias-da", "tiny", table, SourceInfo("file", "tiny"), "test")


def test_winobias_factory_builds_a_task_for_a_new_language() -> None:
    access = DatasetAccess(load=lambda source=None, **_: _tiny_winobias(), validate=lambda ds: [])
    t = winobias_task(
        "winobias-da-test", language="da", dataset=access, template=EN_DEFAULT, register=False
    )
    ds = t.data.load()
    reqs = t.primary.build_requests(ds, EN_DEFAULT)
    assert len(reqs) == 4 and {r.order for r in reqs} == {"target_first", "distractor_first"}
    assert reqs[0].options[0].text == "mekanikeren" and reqs[0].item.language == "da"
    # the stereotypes come from the pro/anti labels: the mechanic is male-stereotyped
    pro = next(r for r in reqs if r.row_id.endswith("/pro"))
    assert pro.item.mention("target").stereotype_labels == "male"
    assert pro.item.mention("distractor").stereotype_labels == "female"
    assert "control" not in " ".join(t.metrics)
