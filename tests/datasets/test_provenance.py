"""Data provenance: a format-independent sha256 of the loaded table in every manifest, the hub
commit even without --revision, and `compare` flagging runs whose tables differ."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import winoscope
from helpers_winobias_uk import sample_frame
from winoscope.datasets.provenance import resolve_hub_commit, table_sha256
from winoscope.families.winobias.dataset import UK as winobias_uk
from winoscope.families.winopron.dataset import CONFIGS
from winoscope.families.winopron.dataset import UK as winopron_uk
from winoscope.report.compare import compare_runs

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _typed_frame() -> pd.DataFrame:
    return sample_frame().assign(item_number=lambda d: d["item_number"].astype(int))


def test_the_same_rows_hash_the_same_in_every_format(tmp_path: Path) -> None:
    csv, jsonl, pq = tmp_path / "a.csv", tmp_path / "a.jsonl", tmp_path / "a.parquet"
    sample_frame().to_csv(csv, index=False)
    _typed_frame().to_json(jsonl, orient="records", lines=True, force_ascii=False)
    _typed_frame().to_parquet(pq, index=False)
    hashes = {p.suffix: winobias_uk.load(p).describe()["table_sha256"] for p in (csv, jsonl, pq)}
    assert len(set(hashes.values())) == 1, hashes
    # the file hashes differ, the table hash does not
    assert len({winobias_uk.load(p).source.sha256 for p in (csv, jsonl, pq)}) == 3
    assert winobias_uk.load().describe()["table_sha256"] == hashes[".csv"]


def test_one_changed_cell_changes_the_hash(tmp_path: Path) -> None:
    raw = sample_frame()
    raw.loc[3, "sentence_uk"] += " "
    path = tmp_path / "b.csv"
    raw.to_csv(path, index=False)
    assert (
        winobias_uk.load(path).describe()["table_sha256"]
        != (winobias_uk.load().describe()["table_sha256"])
    )


def test_canonical_values_worked_out_by_hand() -> None:
    import hashlib

    a = pd.DataFrame({"b": [1, 2], "a": ["x", None]})
    b = pd.DataFrame({"a": ["x", float("nan")], "b": [1.0, 2.0]})  # column order, float ints
    expected = hashlib.sha256(
        b'{"columns":["a","b"],"table":"t"}\n{"a":"x","b":"1"}\n{"a":null,"b":"2"}\n'
    ).hexdigest()
    assert table_sha256({"t": a}) == table_sha256({"t": b}) == expected


def test_winopron_hash_covers_prompts_and_ignores_format(tmp_path: Path) -> None:
    for suffix in (".csv", ".parquet"):
        d = tmp_path / suffix[1:]
        d.mkdir()
        for c in CONFIGS:
            frame = pd.read_csv(winopron_uk.sample_path(c), dtype=str, keep_default_na=False)
            if suffix == ".csv":
                frame.to_csv(d / f"{c}.csv", index=False)
            else:
                frame.to_parquet(d / f"{c}.parquet", index=False)
    h = {k: winopron_uk.load(tmp_path / k).describe()["table_sha256"] for k in ("csv", "parquet")}
    assert h["csv"] == h["parquet"] == winopron_uk.load().describe()["table_sha256"]
    fc = pd.read_csv(winopron_uk.sample_path("forced_choice"), dtype=str, keep_default_na=False)
    fc.loc[0, "prompt_uk"] += "!"
    fc.to_csv(tmp_path / "csv" / "forced_choice.csv", index=False)
    assert winopron_uk.load(tmp_path / "csv").describe()["table_sha256"] != h["csv"]


@pytest.mark.parametrize("task", ["winobias-uk", "winopron-uk", "swewinogender"])
def test_every_manifest_records_the_table_hash(task: str) -> None:
    rr = winoscope.run(task, "baseline:first", n_boot=10)
    digest = rr.manifest["dataset"]["table_sha256"]
    assert len(digest) == 64 and digest == rr.dataset.table_sha256()


def test_english_sets_record_the_table_hash(shared_data: Path) -> None:
    from winoscope.tasks import get_task

    ds = get_task("winobias-en").data.load(shared_data / "winobias-en")
    assert len(ds.describe()["table_sha256"]) == 64


# --- the hub commit -------------------------------------------------------------------------


def _hub_standin(root: Path) -> Path:
    (root / "data").mkdir(parents=True)
    raw = _typed_frame()
    for split in ("validation", "test"):
        part = raw[raw["split"] == split].drop(columns=["split"])
        part.to_parquet(root / "data" / f"{split}-00000-of-00001.parquet", index=False)
    return root


def test_a_local_hub_layout_has_no_commit(tmp_path: Path) -> None:
    ds = winobias_uk.load(_hub_standin(tmp_path / "repo"), cache_dir=str(tmp_path / "c"))
    assert ds.source.commit is None and ds.source.commit_from == "local directory"


def test_a_hub_cache_snapshot_records_its_commit_without_revision(tmp_path: Path) -> None:
    repo = tmp_path / "hub" / "datasets--FairForget--WinoBias-UK-Natural"
    snap = _hub_standin(repo / "snapshots" / COMMIT)
    ds = winobias_uk.load(snap, cache_dir=str(tmp_path / "c"))
    assert ds.source.commit == COMMIT and ds.source.commit_from == "hub cache snapshot"
    rr = winoscope.run("winobias-uk", "baseline:first", data=snap, n_boot=10)
    src = rr.manifest["dataset"]["source"]
    assert src["commit"] == COMMIT and "revision" not in src


def test_commit_from_the_hub_cache_ref(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refs = tmp_path / "hub" / "datasets--FairForget--WinoPron-Uk" / "refs"
    refs.mkdir(parents=True)
    (refs / "main").write_text(COMMIT)
    (refs / "v1").write_text("f" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert resolve_hub_commit("FairForget/WinoPron-Uk") == (COMMIT, "hub cache ref")
    assert resolve_hub_commit("FairForget/WinoPron-Uk", "v1") == ("f" * 40, "hub cache ref")
    assert resolve_hub_commit("FairForget/Other", ask_hub=False) == (None, "unresolved")
    assert resolve_hub_commit("x/y", COMMIT) == (COMMIT, "revision")


def test_commit_from_the_datasets_cache_path() -> None:
    files = [f"/c/FairForget___wino_bias-uk-natural/default/0.0.0/{COMMIT}/x-test.arrow"]
    assert resolve_hub_commit("FairForget/X", cache_files=files, ask_hub=False) == (
        COMMIT,
        "datasets cache",
    )


# --- compare --------------------------------------------------------------------------------


def test_compare_flags_runs_whose_tables_differ(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    winoscope.run("winobias-uk", "baseline:first", out=a, n_boot=10)
    shutil.copytree(a, b)
    assert compare_runs([a, b], tmp_path / "same").flags == []
    man = json.loads((b / "manifest.json").read_text())
    man["dataset"]["table_sha256"] = "f" * 64  # same file name and sha256, other rows loaded
    (b / "manifest.json").write_text(json.dumps(man))
    flags = compare_runs([a, b], tmp_path / "cmp").flags
    assert len(flags) == 1 and "different loaded tables" in flags[0]
    assert "table:ffff" in flags[0]
    tidy = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert tidy["flagged"].all()
