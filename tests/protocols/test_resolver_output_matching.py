"""Resolver output whose ids do not match the key: counted, listed, or a clear error; a missing
document and an empty one are told apart in the per-row output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from winoscope.errors import BackendError
from winoscope.families.winobias.coref_tasks import uk_items
from winoscope.families.winobias.dataset import UK as winobias_uk
from winoscope.runs import runner


def _write(path: Path, docs: list[dict]) -> None:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), "utf-8")


def _gold_docs() -> list[dict]:
    ds = winobias_uk.load()
    return [
        {"id": it.doc_id, "clusters": [[list(it.spans[it.gold_role]), list(it.pronoun)]]}
        for it in uk_items(ds.table)
    ]


def test_no_matching_id_stops_the_run_naming_ids_of_both_sides(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    _write(path, [{"id": f"doc-{i}", "clusters": []} for i in range(5)])
    with pytest.raises(BackendError) as err:
        runner.run("winobias-uk/coref", f"file:{path}", n_boot=0)
    msg = str(err.value)
    assert "none of its 5 document id(s)" in msg
    assert "'doc-0'" in msg and "validation/type1/1/" in msg


def test_unmatched_documents_are_counted_and_listed(tmp_path: Path) -> None:
    docs = _gold_docs()
    extra = [{"id": "stray-1", "clusters": []}, {"id": "stray-2", "clusters": []}]
    path = tmp_path / "sys.jsonl"
    _write(path, docs + extra)
    rr = runner.run("winobias-uk/coref", f"file:{path}", n_boot=0, out=tmp_path / "run")
    ro = rr.manifest["resolver_output"]
    assert ro["documents"] == len(docs) + 2 and ro["matched"] == len(docs)
    assert ro["unmatched"] == 2 and ro["unmatched_ids"] == ["stray-1", "stray-2"]
    assert ro["missing"] == 0
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "2 with no key document" in report and "stray-1" in report


def test_missing_and_empty_documents_are_told_apart(tmp_path: Path) -> None:
    docs = _gold_docs()
    lacking, empty = docs[0]["id"], docs[1]["id"]
    docs = [d if d["id"] != empty else {"id": empty, "clusters": []} for d in docs[1:]]
    path = tmp_path / "sys.jsonl"
    _write(path, docs)
    rr = runner.run("winobias-uk/coref", f"file:{path}", n_boot=0)
    status = rr.predictions.set_index("row_id")["response_status"]
    assert status[lacking] == "missing"
    assert status[empty] == "empty"
    assert (status.drop([lacking, empty]) == "ok").all()
    assert rr.manifest["resolver_output"]["missing_ids"] == [lacking]
