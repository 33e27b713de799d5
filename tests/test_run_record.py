"""The run's typed record (:class:`winoscope.results.record.RunRecord`): old manifests read,
every manifest round-trips unchanged (unknown keys and key order kept), and a new run's
manifest is today's bytes with ``schema_version`` first."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import winoscope
from winoscope.results.record import SCHEMA_VERSION, ModelInfo, Outcome, RunRecord
from winoscope.results.rundir import load_run_dir

#: a manifest as the package wrote it before ``schema_version`` (environment shortened)
OLD_MANIFEST: dict[str, Any] = {
    "winoscope_version": "0.1.0",
    "created": "2026-01-07T14:03:13+00:00",
    "duration_s": 3.822,
    "task": "winopron-uk",
    "protocol": "forced_choice",
    "dataset": {
        "family": "winopron-uk",
        "name": "winopron-uk sample",
        "rows": 72,
        "source": {"kind": "sample", "location": "winoscope:winopron_uk_sample", "sha256": "ab12"},
        "table_sha256": "09b37547df8de22f",
        "version": None,
        "review_status": "ongoing",
        "is_sample": True,
        "release": {"status": "sample", "expected": "winopron-uk@5b93ec21"},
    },
    "review_status": "ongoing",
    "model": {
        "spec": "baseline:first",
        "kind": "baseline",
        "name": "first",
        "params": {},
        "runtime": {},
    },
    "prompt_template": {"name": "dataset-prompts", "text": "Речення: {sentence}"},
    "seed": 0,
    "bootstrap": {"replicates": 20, "level": 0.95, "resampling_unit": "pair"},
    "requests": 144,
    "request_errors": 0,
    "python": "3.11.7",
    "environment": {"winoscope": "0.1.0", "python": {"version": "3.11.7"}},
    "tags": {},
    "responses": {"cached": 0, "asked": 144, "errors": 0, "store": None},
    "outcome": {
        "requests": 144,
        "answered": 144,
        "failed": 0,
        "failed_share": 0.0,
        "max_failed_share": 0.0,
        "status": "ok",
        "success": True,
        "finish_reasons": {},
    },
    "answer_quality": {"scored": 72, "invalid": 0, "invalid_rate": 0.0, "degenerate": False},
    "validation": {"passed": True, "failed_checks": {}, "n_issues": 0},
    "failed_requests": {"policy": "exclude", "requests": 0, "rows": 0},
}

METRICS = (
    "metric,split,type,value,ci_low,ci_high,n,n_strata\naccuracy,double,all,0.5,0.5,0.5,36,1\n"
)

#: the keys of a new run's manifest, in the order written (``letter_mass``, ``transport``,
#: ``protocol_notes``, ``partial``, ``left_out``, ``conventions``, ``resolver_output`` only
#: when there is something to say)
RUN_KEYS = [
    "schema_version",
    *("winoscope_version", "created", "duration_s", "task", "protocol", "dataset"),
    *("review_status", "model", "prompt_template", "seed", "bootstrap", "requests"),
    *("request_errors", "python", "environment", "tags", "responses", "outcome"),
    *("answer_quality", "validation", "failed_requests"),
]


def write_run(path: Path, manifest: dict[str, Any]) -> Path:
    path.mkdir()
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    (path / "metrics.csv").write_text(METRICS, encoding="utf-8")
    return path


def test_a_manifest_without_schema_version_reads_as_version_1(tmp_path: Path) -> None:
    rd = load_run_dir(write_run(tmp_path / "old", OLD_MANIFEST))
    rec = rd.record
    assert rec.schema_version == 1 and "schema_version" not in rec.keys
    assert rec.task == rd.task == "winopron-uk"
    assert rec.protocol == "forced_choice" and rec.seed == 0 and rec.requests == 144
    assert rec.model == ModelInfo(
        spec="baseline:first", kind="baseline", name="first", params={}, runtime={}
    )
    assert rec.model.display == rd.model == "baseline:first"
    assert rec.outcome.success is True and rec.outcome.answered == 144 and rec.succeeded
    assert rec.is_sample and rd.is_sample and rec.dataset_name == "winopron-uk sample"
    assert rd.dataset_key == "sha256:ab12" and rd.table_key == "table:09b37547df8de22f"
    assert rd.prompt_key.startswith("dataset-prompts@")
    assert rec.tag_map == {} and rec.partial is None and rec.extra == {}
    assert rd.quality["degenerate"] is False
    assert rec.to_json() == rd.manifest == OLD_MANIFEST
    assert list(rec.to_json()) == list(OLD_MANIFEST)  # "schema_version" not added


def test_older_manifests_without_outcome_or_tags_read_and_round_trip() -> None:
    """Runs written before outcomes, tags and answer quality were recorded."""
    old = {k: v for k, v in OLD_MANIFEST.items() if k not in ("outcome", "tags", "answer_quality")}
    rec = RunRecord.from_json(old)
    assert rec.outcome == Outcome() and rec.succeeded and rec.tags is None
    assert rec.to_json() == old and list(rec.to_json()) == list(old)
    broken = {**old, "outcome": None, "prompt_template": None}  # null blocks stay null
    assert RunRecord.from_json(broken).to_json() == broken


def test_unknown_keys_round_trip_in_place() -> None:
    """A plugin's or a later version's keys, at the top and inside the typed blocks, survive
    reading and writing, in their places."""
    items = list(OLD_MANIFEST.items())
    manifest = dict([*items[:5], ("plugin_probe", {"layer": 12}), *items[5:]])
    manifest["model"] = {**OLD_MANIFEST["model"], "quantization": "int8"}
    manifest["outcome"] = {**OLD_MANIFEST["outcome"], "retries": 3}
    manifest["schema_version"] = 7
    rec = RunRecord.from_json(manifest)
    assert rec.extra == {"plugin_probe": {"layer": 12}} and rec.schema_version == 7
    assert rec.model.extra == {"quantization": "int8"} and rec.outcome.extra == {"retries": 3}
    out = rec.to_json()
    assert out == manifest
    assert list(out) == list(manifest) and list(out["model"]) == list(manifest["model"])
    assert RunRecord.from_json(out) == rec


def test_a_field_set_after_reading_is_written_and_a_new_record_writes_a_runs_keys() -> None:
    rec = replace(RunRecord.from_json(OLD_MANIFEST), partial={"limit": 2})
    assert list(rec.to_json())[-1] == "partial" and rec.to_json()["partial"] == {"limit": 2}
    fresh = RunRecord(schema_version=SCHEMA_VERSION, task="t", model=ModelInfo(spec="m"))
    out = fresh.to_json()
    assert list(out) == RUN_KEYS  # a run's keys, null where not given; "kind" left out
    assert out["task"] == "t" and out["prompt_template"] is None
    assert out["model"] == {
        "spec": "m",
        "kind": None,
        "name": None,
        "params": None,
        "runtime": None,
    }
    assert "partial" not in out and "kind" not in out and out["outcome"] == {}


def test_a_new_run_writes_schema_version_first_and_its_record_round_trips(
    tmp_path: Path,
) -> None:
    """The manifest's bytes are the record's JSON written back: keys in today's order with
    ``schema_version`` first, so reading and writing a new manifest changes nothing."""
    rr = winoscope.run("winopron-uk", "baseline:first", out=tmp_path / "run", n_boot=20)
    text = (tmp_path / "run" / "manifest.json").read_text(encoding="utf-8")
    manifest = json.loads(text)
    assert list(manifest) == RUN_KEYS
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert list(manifest["model"]) == ["spec", "kind", "name", "params", "runtime"]
    rec = load_run_dir(tmp_path / "run").record
    assert rec == rr.record and rec.schema_version == SCHEMA_VERSION
    again = json.dumps(rec.to_json(), ensure_ascii=False, indent=2) + "\n"
    assert again == text
