"""Task winopron-uk: the dataset's own prompts as requests, free-text answers, full runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from winoscope import run, score
from winoscope.cli import app
from winoscope.families.winopron.dataset import UK as winopron_uk
from winoscope.families.winopron.tasks import WINOPRON_UK
from winoscope.protocols.forced_choice import PromptTemplate
from winoscope.records import Response
from winoscope.tasks import get_task

predict = WINOPRON_UK.primary.predict


def _requests():
    t = get_task("winopron-uk")
    ds = t.data.load(None)
    return t, ds, t.primary.build_requests(ds, t.primary.template)


def test_requests_are_the_dataset_prompts() -> None:
    _, ds, reqs = _requests()
    assert len(reqs) == len(ds.prompts) == 144
    by_id = ds.prompts.set_index("prompt_id")
    for r in reqs:
        p = by_id.loc[r.request_id]
        assert r.prompt == p["prompt_uk"]
        assert (r.options[0].role, r.options[1].role) == (p["option_a_role"], p["option_b_role"])
        assert r.order == p["option_order"]
        # the option texts are the ones the prompt shows
        assert f"A. {r.options[0].text}\n" in r.prompt and f"B. {r.options[1].text}\n" in r.prompt
    # baselines get the annotations, never the gold role
    item = reqs[0].item
    assert item is not None and {m.role for m in item.mentions} == {"occupation", "participant"}
    assert "gold_role" not in {f.name for f in dataclasses.fields(item)}


def test_other_entity_is_found_in_its_inflected_form() -> None:
    _, _, reqs = _requests()
    r = next(r for r in reqs if r.row_id == "double/double-001-participant-female")
    occupation, participant = r.item.mention("occupation"), r.item.mention("participant")
    sentence = r.item.sentence  # Технікиня повідомила клієнтці, що вона ...
    assert sentence[occupation.start :].startswith("Технікиня")
    assert sentence[participant.start :].startswith("клієнтці")
    single = next(r for r in reqs if r.row_id == "single/single-001-participant-male")
    assert single.item.mention("occupation").start is None


def _gold_letter_responses(reqs, ds, text: bool = False) -> dict[str, Response]:
    gold = ds.table.set_index("row_key")["gold_role"].astype(str)
    out = {}
    for r in reqs:
        opt = next(o for o in r.options if o.role == gold[r.row_id])
        if text:
            out[r.request_id] = Response(
                r.request_id, "test", "gold", text=f"Відповідь: {opt.text}"
            )
        else:
            out[r.request_id] = Response(r.request_id, "test", "gold", choice=opt.label)
    return out


@pytest.mark.parametrize("text", [False, True])
def test_gold_answers_score_one(text: bool) -> None:
    t, ds, reqs = _requests()
    pred = predict(ds, reqs, _gold_letter_responses(reqs, ds, text=text))
    assert pred["prediction_role"].eq(pred["gold_role"].astype(str)).all()
    m = t.scorer(pred, n_boot=50).metrics
    summary = m[m["split"] == "macro"].set_index("metric")["value"]
    for name in ("double_accuracy", "single_accuracy", "male_accuracy", "female_accuracy"):
        assert summary[name] == 1.0
    assert summary["gender_gap"] == 0.0 and summary["invalid_rate"] == 0.0


def test_free_text_answers_are_normalised_like_winobias_uk() -> None:
    _, _, reqs = _requests()
    r = next(r for r in reqs if r.request_id == "double-001-participant-female-occupation_first")
    answers = {
        "B": "participant",
        "Відповідь: A": "occupation",
        "клієнтці": "participant",  # an inflected form of the option
        "технікиня": "occupation",
        "A або B": "invalid",
        "не знаю": "invalid",
    }
    from winoscope.protocols.forced_choice import answer_role

    for text, role in answers.items():
        assert answer_role(r, Response(r.request_id, "t", "m", text=text)) == role, text


def test_disagreeing_orders_are_invalid_and_errors_missing() -> None:
    t, ds, reqs = _requests()
    resp = {r.request_id: Response(r.request_id, "t", "m", choice="A") for r in reqs}
    key = "double/double-001-occupation-male"
    failed = next(r for r in reqs if r.row_id == "double/double-002-occupation-male")
    resp[failed.request_id] = Response(failed.request_id, "t", "m", error="timeout")
    pred = predict(ds, reqs, resp).set_index("row_key")
    # always "A": the two orders name different roles
    assert pred.loc[key, "prediction_role"] == "invalid"
    assert not pred.loc[key, "order_consistent"]
    assert pd.isna(pred.loc["double/double-002-occupation-male", "prediction_role"])
    counts = t.scorer(pred.reset_index(), n_boot=10).counts.set_index("split")
    assert counts.loc["double", "missing"] == 1 and counts.loc["double", "invalid"] == 35


def test_custom_template_builds_prompts_from_sentences() -> None:
    t = get_task("winopron-uk")
    ds = t.data.load(None)
    tmpl = PromptTemplate("{sentence} | {pronoun}? A) {option_a} B) {option_b}", name="mine")
    reqs = t.primary.build_requests(ds, tmpl)
    assert len(reqs) == 144
    assert {r.order for r in reqs} == {"occupation_first", "participant_first"}
    assert reqs[0].prompt.startswith("Технік повідомив клієнтові, що він уже завершив ремонт. |")


def test_run_writes_outputs_and_rescoring_agrees(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rr = run("winopron-uk", "baseline:random", out=out, n_boot=200, seed=1)
    for name in ("manifest.json", "predictions.csv", "predictions.parquet", "metrics.csv"):
        assert (out / name).is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["task"] == "winopron-uk" and manifest["dataset"]["is_sample"]
    assert manifest["prompt_template"]["name"] == "dataset-prompts"
    again = score("winopron-uk", out / "predictions.csv", n_boot=200, seed=1)
    cols = ["metric", "split", "type", "value", "ci_low", "ci_high", "n"]
    assert again.metrics["metric"].eq("option_order_consistency").any()
    pd.testing.assert_frame_equal(
        again.metrics[cols].sort_values(cols[:3]).reset_index(drop=True),
        rr.metrics[cols].sort_values(cols[:3]).reset_index(drop=True),
    )


def test_cli_run_and_tasks_listing(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app,
        ["run", "winopron-uk", "--model", "baseline:first", "--out", str(tmp_path / "r"), "-q"],
    )
    assert res.exit_code == 0, res.output
    assert "double_accuracy" in res.output and "gender_gap" in res.output
    listing = CliRunner().invoke(app, ["tasks", "--json"])
    tasks = {t["task"]: t for t in json.loads(listing.output)}
    assert tasks["winopron-uk"]["source"] == winopron_uk.hub_id
    assert "pair_consistency" in tasks["winopron-uk"]["metrics"]


def test_demo_covers_winopron_uk(tmp_path: Path) -> None:
    from winoscope.studies.demo import demo_tasks, run_demo

    assert "winopron-uk" in demo_tasks()
    table = run_demo(tmp_path / "demo", quiet=True, tasks=("winopron-uk",), lm=False)
    assert "winopron-uk" in table and "double_accuracy" in table
    assert (tmp_path / "demo" / "winopron-uk__baseline_first" / "metrics.json").is_file()


def test_sentences_without_prompts_get_the_projects_prompts(tmp_path: Path) -> None:
    path = tmp_path / "single.csv"
    pd.read_csv(winopron_uk.sample_path("single"), dtype=str).to_csv(path, index=False)
    t = get_task("winopron-uk")
    ds = t.data.load(str(path))
    reqs = t.primary.build_requests(ds, t.primary.template)
    assert len(reqs) == 2 * len(ds.table) == 72
    assert reqs[0].prompt.startswith("Прочитайте речення і визначте")
    assert "(each row's own prompt" not in reqs[0].prompt
    m = run("winopron-uk", "baseline:first", data=path, n_boot=20).metrics
    summary = m[m["split"] == "macro"].set_index("metric")["value"]
    assert summary["single_accuracy"] == 1.0 and "double_accuracy" not in summary.index
