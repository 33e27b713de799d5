"""The resolver protocol on the bundled WinoPron-UK sample: contexts, breakdowns, the gap."""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pandas as pd
import pytest

from winoscope.families.winopron.coref_tasks import winopron_items
from winoscope.families.winopron.dataset import UK as winopron_uk
from winoscope.families.winopron.dataset import UK_PRONOUN_FORMS
from winoscope.runs import runner

# hand-worked per-document values (see tests/families/winobias/test_coref_winobias_en.py): CoNLL F1 of a document
# whose pronoun is dropped: MUC 0, B3 F1 0.4, CEAF-e 2/3.
DROPPED = (0 + 0.4 + 2 / 3) / 3


def _value(m: pd.DataFrame, metric: str, context: str, typ: str = "all") -> float:
    row = m[(m.metric == metric) & (m.split == context) & (m.type == typ)]
    assert len(row) == 1, (metric, context, typ)
    return float(row.value.iloc[0])


def _write(path: Path, drop: set[str] = frozenset()) -> None:
    ds = winopron_uk.load()
    with path.open("w", encoding="utf-8") as fh:
        for it in winopron_items(ds.table):
            cluster = (
                [it.spans["target"]] if it.doc_id in drop else [it.spans["target"], it.pronoun]
            )
            fh.write(json.dumps({"id": it.doc_id, "clusters": [[list(x) for x in cluster]]}) + "\n")


def test_items_find_both_entities_in_double_sentences() -> None:
    ds = winopron_uk.load()
    items = winopron_items(ds.table)
    by_context = ds.table["context"].astype(str).tolist()
    for it, ctx in zip(items, by_context, strict=True):
        text = it.text
        assert text[it.pronoun[0] : it.pronoun[1]].lower() in {
            f for forms in UK_PRONOUN_FORMS.values() for s in forms.values() for f in s
        }
        if ctx == "double":
            assert it.spans["distractor"] is not None, text
        else:
            assert it.spans["distractor"] is None


def test_gold_as_system_and_dropped_female_pronouns(tmp_path: Path) -> None:
    ds = winopron_uk.load()
    t = ds.table
    female_double = set(t[(t.context == "double") & (t.pronoun_set == "female")].row_key)
    gold = tmp_path / "gold.jsonl"
    _write(gold)
    rr = runner.run("winopron-uk/coref", f"file:{gold}", n_boot=20)
    m = rr.metrics
    assert set(m[m.metric.str.endswith("conll_f1")].value) == {1.0}
    assert set(m.split) == {"double", "single", "macro"}
    # the breakdown is reported for double-context sentences only
    assert set(m[m.split == "single"].type) == {"all"}
    assert set(m[m.split == "double"].type) == {
        "all",
        "male",
        "female",
        "plural",
        "nominative",
        "oblique",
        "possessive",
    }
    assert _value(m, "conll_f1_female_minus_male", "double") == 0.0
    assert _value(m, "double_conll_f1", "macro", "macro") == 1.0

    sys_path = tmp_path / "drop.jsonl"
    _write(sys_path, drop=female_double)
    m2 = runner.run("winopron-uk/coref", f"file:{sys_path}", n_boot=20).metrics
    assert _value(m2, "conll_f1", "double", "female") == pytest.approx(DROPPED)
    assert _value(m2, "conll_f1", "double", "male") == 1.0
    assert _value(m2, "conll_f1_female_minus_male", "double") == pytest.approx(DROPPED - 1)
    assert _value(m2, "conll_f1_female_minus_male", "macro", "macro") == pytest.approx(DROPPED - 1)
    assert _value(m2, "link_accuracy", "double", "female") == 0.0
    assert _value(m2, "conll_f1", "single") == 1.0
    # a third of the double documents lost their pronoun: CoNLL F1 over all of them
    n = len(t[t.context == "double"])
    k = len(female_double)
    muc = (F(n - k, n), F(1))
    b3 = (F(2 * (n - k) + F(k, 2), 2 * n), F(2 * (n - k) + k, 2 * n - k))
    ce = (F(n - k) / n + F(2, 3) * k / n,) * 2
    f = [2 * r * p / (r + p) for r, p in (muc, b3, ce)]
    assert _value(m2, "conll_f1", "double") == pytest.approx(float(sum(f) / 3), abs=1e-12)
    # every pronoun type holds 1/3 of the female rows: per type, a third of the documents drop
    n_type = len(t[(t.context == "double") & (t.pronoun_type == "nominative")])
    k = len(
        t[(t.context == "double") & (t.pronoun_type == "nominative") & (t.pronoun_set == "female")]
    )
    assert k * 3 == n_type


def test_first_mention_baseline_is_right_on_half_of_double_sentences() -> None:
    m = runner.run("winopron-uk/coref", "baseline:first", n_boot=50).metrics
    # the occupation is mentioned first; gold_role splits evenly between occupation and participant
    assert _value(m, "link_accuracy", "double") == 0.5
    # half the documents right, half swapped: MUC 1/2, B3 (1 + 1/4)/2, CEAF-e (1 + 1/2)/2
    assert _value(m, "conll_f1", "double") == pytest.approx((0.5 + 0.625 + 0.75) / 3)
    assert _value(m, "conll_f1", "single") == 1.0
    row = m[(m.metric == "conll_f1") & (m.split == "double") & (m.type == "nominative")].iloc[0]
    assert row.ci_low <= row.value <= row.ci_high


def test_predictions_keep_the_card_fields_and_rescore_identically(tmp_path: Path) -> None:
    rr = runner.run("winopron-uk/coref", "baseline:first", n_boot=30, seed=2, out=tmp_path / "r")
    assert set(rr.predictions.gold_role.astype(str)) == {"occupation", "participant"}
    assert set(rr.predictions.referent_role) == {"target"}
    again = runner.score("winopron-uk/coref", tmp_path / "r" / "predictions.csv", n_boot=30, seed=2)
    pd.testing.assert_frame_equal(
        rr.metrics.reset_index(drop=True), again.metrics.reset_index(drop=True)
    )
