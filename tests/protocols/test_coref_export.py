"""Exporting a coreference task's resolver input and gold key, and reading them back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.cli.coref import task_items
from winoscope.datasets.conll import read_conll
from winoscope.protocols.coref_export import export_documents, tokenize
from winoscope.protocols.resolver_output import read_resolver_output
from winoscope.runs import runner


def test_tokenize_keeps_words_and_cuts_at_mentions() -> None:
    text = "Лікарка пʼять well-known, бо вона"
    assert [text[s:e] for s, e in tokenize(text)] == [
        "Лікарка",
        "пʼять",
        "well-known",
        ",",
        "бо",
        "вона",
    ]
    # a gold span ending inside a word splits it there
    assert [text[s:e] for s, e in tokenize(text, cuts=[4])][:2] == [
        "Лікa"[:0] + text[:4],
        text[4:7],
    ]


@pytest.mark.parametrize("task", ["winobias-uk/coref", "winopron-uk/coref"])
def test_export_round_trip(task: str, tmp_path: Path) -> None:
    items = task_items(task, None, None)
    paths = export_documents(items, tmp_path / "x")
    lines = [json.loads(x) for x in paths["input_jsonl"].read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in lines] == [it.doc_id for it in items]
    assert all(x["text"] == it.text for x, it in zip(lines, items, strict=True))
    # the CoNLL key read back as resolver output gives the gold character spans
    out = read_resolver_output(paths["key_conll"])
    for it in items:
        got = out.get(it.doc_id).char_clusters(it.text)
        assert got == [list(c) for c in it.gold_clusters], it.doc_id
    assert all(d.clusters == [] for d in read_conll(paths["input_conll"]))
    # gold key as the system: CoNLL F1 1 everywhere; the empty input: every document a miss
    for key in ("key_conll", "key_jsonl"):
        m = runner.run(task, f"file:{paths[key]}", n_boot=0).metrics
        f1 = m[m.metric.str.contains("conll_f1") & ~m.metric.str.contains("minus")]
        assert set(f1.value) == {1.0}, key
    empty = runner.run(task, f"file:{paths['input_conll']}", n_boot=0)
    em = empty.metrics
    assert set(em[em.metric.str.contains("conll_f1")].value) == {0.0}
    assert int(empty.result.counts["invalid"].sum()) == len(items)


def test_cli_export_and_errors(tmp_path: Path) -> None:
    cli = CliRunner()
    res = cli.invoke(app, ["coref-export", "winobias-uk/coref", "--out", str(tmp_path / "e")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "e" / "key.conll").is_file()
    bad = cli.invoke(app, ["coref-export", "winobias-uk", "--out", str(tmp_path / "f")])
    assert bad.exit_code == 2
    assert "not a coreference task" in bad.output
