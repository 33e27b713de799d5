"""The shared task builders: coref gold spans with errors that name the row, and the typed
items every coref request carries for the reference baselines."""

from __future__ import annotations

import pytest

from winoscope.errors import DatasetError
from winoscope.records import Item
from winoscope.tasks import get_task
from winoscope.tasks.coref_task import bracket_spans


def test_bracket_spans_reads_referent_and_pronoun() -> None:
    row = {"a": "[Лікар] найняв секретарку, бо [він] мав багато пацієнтів.", "p": "він"}
    assert bracket_spans(row, "a", "p", source="x.csv", index=3) == ((0, 5), (28, 31))


def test_bracket_spans_error_names_file_row_and_column() -> None:
    row = {"a": "[Лікар] найняв секретарку, бо він мав багато пацієнтів.", "p": "він"}
    with pytest.raises(DatasetError) as err:
        bracket_spans(row, "a", "p", source="x.csv", index=3)
    text = str(err.value)
    assert "x.csv" in text and "3" in text and "a" in text and "found 1" in text


@pytest.mark.parametrize("name", ["winobias-uk/coref", "winopron-uk/coref"])
def test_coref_requests_carry_items_with_the_document_pronoun_span(name: str) -> None:
    t = get_task(name)
    assert t.primary.template is not None
    reqs = t.primary.build_requests(t.data.load(), t.primary.template)
    assert reqs
    for r in reqs:
        assert isinstance(r.item, Item) and r.item.pronoun is not None
        p = r.item.pronoun
        assert p.start is not None and r.prompt[p.start : p.end] == p.text
        # the options are the located entities; the item names them target/distractor
        assert {o.role for o in r.options} <= {m.role for m in r.item.mentions}
        assert {m.role for m in r.item.mentions} == {"target", "distractor"}
