"""The resolver protocol on WinoBias-UK: gold from brackets, resolver output files, runs."""

from __future__ import annotations

import json
import re
from fractions import Fraction as F
from pathlib import Path

import pandas as pd
import pytest

from coref_totals import total_score
from winoscope.datasets.conll import ConllDocument, token_offsets, write_conll
from winoscope.errors import DatasetError
from winoscope.families.winobias.coref_tasks import uk_items
from winoscope.families.winobias.dataset import UK as winobias_uk
from winoscope.protocols import coref
from winoscope.protocols.resolver_output import read_resolver_output
from winoscope.runs import runner
from winoscope.scoring import coref as coref_scoring

SENT = "Лікар найняв секретарку, бо він мав чудові рекомендації."
ANN = "Лікар найняв [секретарку], бо [він] мав чудові рекомендації."


def test_gold_spans_from_brackets() -> None:
    ref, pron = coref.gold_spans(ANN, "він")
    assert SENT[ref[0] : ref[1]] == "секретарку"
    assert SENT[pron[0] : pron[1]] == "він"
    assert (ref, pron) == ((13, 23), (28, 31))
    with pytest.raises(ValueError, match="two bracketed"):
        coref.gold_spans("[Лікар] найняв секретарку", "він")


def test_locate_avoids_gold_mentions_and_handles_inflection() -> None:
    text = "Лікар сказав лікарці, що вона втомилася."
    assert coref.locate(text, "лікар", avoid=[(0, 5)]) == (13, 18)  # not the first "Лікар"
    assert coref.locate(text, "лікарка", start=13) == (13, 20)  # inflected form at a known offset
    assert coref.locate(text, "медсестра") is None


ITEM = coref.CorefItem(
    doc_id="d",
    item_id="i",
    text=SENT,
    pronoun=(28, 31),
    spans={"target": (13, 23), "distractor": (0, 5)},
    gold_role="target",
)


@pytest.mark.parametrize(
    ("clusters", "link"),
    [
        ([[(13, 23), (28, 31)]], "target"),
        ([[(0, 5), (28, 31)]], "distractor"),
        ([[(0, 5), (13, 23), (28, 31)]], "both"),
        ([[(0, 5), (13, 23)]], "none"),  # pronoun not in any cluster
        ([], "none"),  # no output: a miss
        ([[(13, 18), (28, 31)]], "target"),  # overlapping span still names the entity
    ],
)
def test_pronoun_link(clusters: list, link: str) -> None:
    assert coref_scoring.pronoun_link(ITEM.pronoun, ITEM.spans, clusters) == link


# --- resolver output files --------------------------------------------------------------------


def test_jsonlines_output_and_errors(tmp_path: Path) -> None:
    good = tmp_path / "out.jsonl"
    good.write_text(
        json.dumps({"id": "a", "clusters": [[[0, 5], [28, 31]]], "text": SENT})
        + "\n\n"
        + json.dumps({"doc_key": "b", "clusters": []})
        + "\n",
        encoding="utf-8",
    )
    out = read_resolver_output(good)
    assert out.get("a").char_clusters(SENT) == [[(0, 5), (28, 31)]]
    assert out.get("b").char_clusters(SENT) == []
    with pytest.raises(DatasetError, match="differs") as err:
        out.get("a").char_clusters(SENT + " ")
    assert (err.value.line, err.value.field) == (1, "text")

    cases = [
        ("{not json}\n", 1, "json"),
        ('{"clusters": []}\n', 1, "id"),
        ('{"id": "x", "clusters": [[[0, 5, 7]]]}\n', 1, "clusters"),
        ('{"id": "x", "clusters": [[[5, 5]]]}\n', 1, "clusters"),
        ('{"id": "x", "clusters": [[["0", 5]]]}\n', 1, "clusters"),
        ('{"id": "x"}\n{"id": "x"}\n', 2, "id"),
    ]
    for text, row, field in cases:
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(DatasetError) as err:
            read_resolver_output(bad)
        assert (err.value.file, err.value.line, err.value.field) == (str(bad), row, field), text
    far = tmp_path / "far.jsonl"
    far.write_text('{"id": "x", "clusters": [[[0, 500]]]}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match="outside the sentence") as err:
        read_resolver_output(far).get("x").char_clusters(SENT)
    assert (err.value.line, err.value.field) == (1, "clusters")


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text)


def test_conll_output_is_aligned_to_the_sentence(tmp_path: Path) -> None:
    toks = _tokens(SENT)
    assert toks[:4] == ["Лікар", "найняв", "секретарку", ","]
    doc = ConllDocument(name="row-1", sentences=[toks], clusters=[[(2, 2), (5, 5)]])
    path = tmp_path / "out.conll"
    write_conll(path, [doc])
    out = read_resolver_output(path)
    assert out.get("row-1").char_clusters(SENT) == [[(13, 23), (28, 31)]]
    # a token that is not in the sentence: file, line and field named
    with pytest.raises(DatasetError, match="does not continue") as err:
        out.get("row-1").char_clusters(SENT.replace("найняв", "взяв"))
    assert (err.value.file, err.value.line, err.value.field) == (str(path), 3, "word")


def test_token_offsets() -> None:
    assert token_offsets(["a", "bc", "."], "a  bc.") == [(0, 1), (3, 5), (5, 6)]
    with pytest.raises(ValueError):
        token_offsets(["a", "x"], "a b")


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        read_resolver_output(tmp_path / "none.jsonl")


# --- runs on the bundled WinoBias-UK sample ------------------------------------------------------


def _gold_jsonl(
    path: Path, *, drop_pronoun_of: set[str] = frozenset(), skip: set[str] = frozenset()
) -> None:
    ds = winobias_uk.load()
    with path.open("w", encoding="utf-8") as fh:
        for it in uk_items(ds.table):
            if it.doc_id in skip:
                continue
            cluster = (
                [it.spans[it.gold_role]]
                if it.doc_id in drop_pronoun_of
                else [it.spans[it.gold_role], it.pronoun]
            )
            fh.write(json.dumps({"id": it.doc_id, "clusters": [[list(m) for m in cluster]]}) + "\n")


def _value(
    metrics: pd.DataFrame, metric: str, split: str = "validation", typ: str = "type1"
) -> float:
    row = metrics[(metrics.metric == metric) & (metrics.split == split) & (metrics.type == typ)]
    assert len(row) == 1, (metric, split, typ)
    return float(row.value.iloc[0])


def test_gold_as_system_scores_100(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    _gold_jsonl(path)
    rr = runner.run("winobias-uk/coref", f"file:{path}", n_boot=50, out=tmp_path / "run")
    m = rr.metrics
    conll = m[
        m.metric.str.startswith(
            ("conll_f1_pro", "conll_f1_anti", "conll_f1_agreement", "conll_f1_cross")
        )
    ]
    assert set(conll[~conll.metric.str.endswith("minus_anti")].value) == {1.0}
    assert set(m[m.metric == "conll_f1_pro_minus_anti"].value) == {0.0}
    assert set(m[m.metric.str.startswith("link_accuracy")].value) == {1.0}
    for name in ("manifest.json", "metrics.csv", "predictions.csv", "report.md"):
        assert (tmp_path / "run" / name).is_file()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["protocol"] == "coref"
    assert manifest["model"]["spec"] == "file:gold.jsonl"


def test_dropped_pronoun_and_missing_documents(tmp_path: Path) -> None:
    ds = winobias_uk.load()
    t = ds.table
    pro = t[(t.split == "validation") & (t.type == "type1") & (t.condition == "pro")]
    anti = t[(t.split == "validation") & (t.type == "type1") & (t.condition == "anti")]
    dropped = {str(pro.row_id.iloc[0])}
    skipped = {str(anti.row_id.iloc[0])}
    path = tmp_path / "sys.jsonl"
    _gold_jsonl(path, drop_pronoun_of=dropped, skip=skipped)
    rr = runner.run("winobias-uk/coref", f"file:{path}", n_boot=20)
    n = len(pro)
    assert n == 6
    # pro: n documents, one with the pronoun dropped (response {referent} only)
    muc = (F(n - 1, n), F(1))
    b3 = (F(2 * (n - 1) + F(1, 2), 2 * n), F(2 * (n - 1) + 1, 2 * n - 1))
    ceafe = (F(n - 1) / n + F(2, 3) / n, F(n - 1) / n + F(2, 3) / n)
    f = [2 * r * p / (r + p) for r, p in (muc, b3, ceafe)]
    assert _value(rr.metrics, "muc_f1_pro") == pytest.approx(float(f[0]), abs=1e-12)
    assert _value(rr.metrics, "bcub_f1_pro") == pytest.approx(float(f[1]), abs=1e-12)
    assert _value(rr.metrics, "ceafe_f1_pro") == pytest.approx(float(f[2]), abs=1e-12)
    assert _value(rr.metrics, "conll_f1_pro") == pytest.approx(float(sum(f) / 3), abs=1e-12)
    assert _value(rr.metrics, "link_accuracy_pro") == pytest.approx((n - 1) / n)
    # anti: one document absent from the output is a miss: recall falls, precision stays 1
    muc_a = (F(n - 1, n), F(1))
    b3_a = (F(2 * (n - 1), 2 * n), F(1))
    ce_a = (F(n - 1, n), F(1))
    fa = [2 * r * p / (r + p) for r, p in (muc_a, b3_a, ce_a)]
    assert _value(rr.metrics, "conll_f1_anti") == pytest.approx(float(sum(fa) / 3), abs=1e-12)
    counts = rr.result.counts
    row = counts[(counts.split == "validation") & (counts.type == "type1")].iloc[0]
    assert row["invalid"] == 1 and row["missing"] == 0 and row["rows"] == 36


def test_stereotype_baseline_is_a_swapped_antecedent_on_anti_rows() -> None:
    rr = runner.run("winobias-uk/coref", "baseline:stereotype", n_boot=20)
    # pro rows: linked to the referent (F1 1); anti rows: linked to the other occupation, the
    # hand-worked swapped-antecedent document: MUC 0, B3 1/4, CEAF-e 1/2 -> CoNLL 1/4.
    assert _value(rr.metrics, "conll_f1_pro") == 1.0
    assert _value(rr.metrics, "conll_f1_anti") == pytest.approx(0.25)
    assert _value(rr.metrics, "conll_f1_pro_minus_anti") == pytest.approx(0.75)
    assert _value(rr.metrics, "conll_f1_pro_minus_anti", "macro", "macro") == pytest.approx(0.75)
    assert _value(rr.metrics, "link_accuracy_anti") == 0.0


def test_agreement_baseline_solves_the_agreement_controls() -> None:
    rr = runner.run("winobias-uk/coref", "baseline:agreement", n_boot=20)
    assert _value(rr.metrics, "conll_f1_agreement_control") == 1.0
    assert _value(rr.metrics, "conll_f1_cross_control") == 1.0


def test_score_command_round_trip(tmp_path: Path) -> None:
    rr = runner.run("winobias-uk/coref", "baseline:first", n_boot=30, seed=3, out=tmp_path / "r")
    again = runner.score("winobias-uk/coref", tmp_path / "r" / "predictions.csv", n_boot=30, seed=3)
    pd.testing.assert_frame_equal(
        rr.metrics.reset_index(drop=True), again.metrics.reset_index(drop=True)
    )


def test_tampered_predictions_give_a_clear_error(tmp_path: Path) -> None:
    rr = runner.run("winobias-uk/coref", "baseline:first", n_boot=0, out=tmp_path / "r")
    table = pd.read_csv(tmp_path / "r" / "predictions.csv")
    table.loc[2, "predicted_clusters"] = "[[[1, 2]"
    from winoscope.errors import ScoringError

    with pytest.raises(ScoringError, match="row 3, field 'predicted_clusters'"):
        runner.score("winobias-uk/coref", table, n_boot=0)
    assert len(rr.predictions) == 76


def test_file_backend_refuses_non_coref_tasks(tmp_path: Path) -> None:
    """The run checks the protocol against what the backend says it answers before asking;
    the backend still refuses a request of another kind if one reaches it."""
    from winoscope.backends import create_backend
    from winoscope.errors import BackendError, TaskError
    from winoscope.tasks import get_task

    path = tmp_path / "gold.jsonl"
    _gold_jsonl(path)
    with pytest.raises(
        TaskError,
        match=r"does not answer the forced_choice protocol of task "
        r"winobias-uk \(it answers coref\)",
    ):
        runner.run("winobias-uk", f"file:{path}", n_boot=0)
    t = get_task("winobias-uk")
    ds = t.data.load(None)
    choice = t.primary.build_requests(ds, t.primary.template)[:1]
    with pytest.raises(BackendError, match="only coreference"):
        list(create_backend(f"file:{path}").respond(choice))


def test_bootstrap_weights_equal_resampled_documents() -> None:
    """A replicate's value from weighted count sums equals the value on the resampled rows."""
    import numpy as np

    rr = runner.run("winobias-uk/coref", "baseline:first", n_boot=0)
    docs = coref_scoring.document_frame(rr.predictions)
    rng = np.random.default_rng(7)
    weights = rng.multinomial(len(docs), np.full(len(docs), 1 / len(docs)), size=5).astype(float)
    boot = coref_scoring.subset_values(docs, weights)
    for b in range(5):
        resampled = docs.loc[docs.index.repeat(weights[b].astype(int))]
        direct = coref_scoring.subset_values(resampled)
        for metric in ("conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "link_accuracy"):
            assert boot[metric][b] == pytest.approx(direct[metric], abs=1e-12), metric
    # and the point value is the scorer's corpus total
    total = total_score(docs)
    assert coref_scoring.subset_values(docs)["conll_f1"] == pytest.approx(total.conll_f1, abs=1e-12)


def test_demo_runs_the_reference_resolvers(tmp_path: Path) -> None:
    from winoscope.studies.demo import demo_tasks, run_demo

    assert {"winobias-uk/coref", "winopron-uk/coref"} <= set(demo_tasks())
    table = run_demo(tmp_path / "demo", quiet=True, tasks=("winobias-uk/coref",), lm=False)
    assert "conll_f1_pro_minus_anti" in table
    assert (tmp_path / "demo" / "winobias-uk_coref__baseline_stereotype" / "metrics.csv").is_file()
    line = next(ln for ln in table.splitlines() if "baseline:stereotype" in ln)
    assert "0.750 [0.750, 0.750]" in line  # F1_pro 1 - F1_anti 1/4


def test_jsonlines_with_sentences_use_inclusive_token_spans(tmp_path: Path) -> None:
    toks = _tokens(SENT)
    path = tmp_path / "tok.jsonl"
    rows = [
        {
            "doc_key": "a",
            "sentences": [toks[:5], toks[5:]],
            "predicted_clusters": [[[2, 2], [5, 5]]],
        },
        {"doc_key": "b", "sentences": [toks], "clusters": [[[0, 2]]]},
        {"doc_key": "c", "sentences": [toks], "clusters": [[[0, 99]]]},
        {"doc_key": "d", "sentences": [["Лікар", "взяв"]], "clusters": []},
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    out = read_resolver_output(path)
    assert out.get("a").char_clusters(SENT) == [[(13, 23), (28, 31)]]
    assert out.get("b").char_clusters(SENT) == [[(0, 23)]]  # "Лікар найняв секретарку"
    with pytest.raises(DatasetError, match="outside the 10 tokens") as err:
        out.get("c").char_clusters(SENT)
    assert (err.value.line, err.value.field) == (3, "clusters")
    with pytest.raises(DatasetError, match="does not continue") as err:
        out.get("d").char_clusters(SENT)
    assert (err.value.line, err.value.field) == (4, "sentences")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "sentences": ["not a list"], "clusters": []}\n', encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        read_resolver_output(bad)
    assert (err.value.line, err.value.field) == (1, "sentences")
    # an inclusive one-token span is fine with tokens, empty with character offsets
    ok = tmp_path / "ok.jsonl"
    ok.write_text('{"id": "x", "sentences": [["a"]], "clusters": [[[0, 0]]]}\n', encoding="utf-8")
    assert read_resolver_output(ok).get("x").char_clusters("a") == [[(0, 1)]]
