"""What ``crosslingual`` refuses and what its pages say: runs of different models, linked rows
whose occupations are not translations of each other, and runs on the bundled sample.

Real runs: the bundled WinoBias-UK sample and English WinoBias (the release, whose item numbers
link the sample's keys to other items, and the items the sample adapts renumbered to its keys,
:func:`helpers_crosslingual.matched_english`).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from markupsafe import escape

import winoscope
from helpers_crosslingual import matched_english
from winoscope.compare.across_languages import crosslingual, model_differences
from winoscope.errors import TaskError
from winoscope.families.winobias.dataset import UK
from winoscope.results.record import RunRecord


@pytest.fixture(scope="module")
def runs(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("checks")
    winoscope.run("winobias-uk", "baseline:stereotype", out=root / "uk", n_boot=20)
    for model in ("stereotype", "random"):
        winoscope.run(
            "winobias-en",
            f"baseline:{model}",
            data=shared_data / "winobias-en",
            out=root / f"en-{model}",
            n_boot=20,
        )
        matched_english(root / "uk", root / f"en-{model}", root / f"en-{model}-matched")
    return {
        "uk": root / "uk",
        "en": root / "en-stereotype-matched",
        "en_release": root / "en-stereotype",
        "en_random": root / "en-random-matched",
    }


def _copy(run: Path, to: Path, edit: dict[str, dict]) -> Path:
    """``run`` copied to ``to`` with manifest sections updated (``{"model": {...}}``)."""
    shutil.copytree(run, to)
    path = to / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    for section, values in edit.items():
        manifest[section].update(values)
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return to


def _pages(out: Path) -> tuple[str, str]:
    return (
        (out / "crosslingual.md").read_text(encoding="utf-8"),
        (out / "crosslingual.html").read_text(encoding="utf-8"),
    )


def test_runs_of_different_models_are_refused_unless_allowed(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    with pytest.raises(TaskError, match="the runs are of different models") as err:
        crosslingual(runs["uk"], runs["en_random"], n_boot=50)
    text = str(err.value)
    assert "baseline:stereotype" in text and "baseline:random" in text
    assert "allow_different_models=True" in text
    res = crosslingual(
        runs["uk"], runs["en_random"], n_boot=50, out=tmp_path / "xl", allow_different_models=True
    )
    assert res.settings["allow_different_models"] is True
    assert len(res.notes) == 1 and res.notes[0].startswith("Different models (allowed")
    assert "baseline:stereotype" in res.notes[0] and "baseline:random" in res.notes[0]
    md, html = _pages(tmp_path / "xl")
    assert f"> {res.notes[0]}" in md
    note = re.search(r'<div class="banner note" id="note-1">(.*?)</div>', html, flags=re.S)
    assert note is not None and "Different models (allowed by allow_different_models)" in note[1]
    # one model on both sides: no note
    same = crosslingual(runs["uk"], runs["en"], n_boot=50)
    assert same.notes == [] and same.settings["allow_different_models"] is False


def test_one_spec_with_other_weights_is_another_model(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """Two local models under one spec differ by their weights fingerprint; hooks on one of
    them make it another model too."""
    model = {"spec": "hf:tiny", "kind": "hf", "name": "tiny"}
    params = {"mode": "letters", "fingerprint": "a" * 64}
    uk = _copy(runs["uk"], tmp_path / "uk", {"model": {**model, "params": params}})
    other = {**params, "fingerprint": "b" * 64}
    en = _copy(runs["en"], tmp_path / "en", {"model": {**model, "params": other}})
    with pytest.raises(TaskError, match=r"different models: .*fingerprint aaaa"):
        crosslingual(uk, en, n_boot=50)
    en_same = _copy(runs["en"], tmp_path / "en-same", {"model": {**model, "params": params}})
    assert crosslingual(uk, en_same, n_boot=50).notes == []
    hooked = {"params": {**params, "hooks": [{"module": "h.0", "state_sha256": "1"}]}}
    rec = RunRecord.from_json
    assert model_differences(
        rec({"model": {**model, **hooked}}), rec({"model": {**model, "params": params}})
    )
    assert not model_differences(
        rec({"model": {**model, "params": params}}),
        rec({"model": {**model, "params": dict(params)}}),
    )


def test_mismatched_occupations_are_refused_unless_allowed(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """The release's items under the sample's keys are other items: 26 of the 28 (item, role)
    links name occupations the WinoBias-UK table does not translate into each other."""
    with pytest.raises(TaskError, match="26 of 28 occupation links") as err:
        crosslingual(runs["uk"], runs["en_release"], n_boot=50)
    text = str(err.value)
    assert "validation/type1/2 target: секретар vs designer (expected secretary)" in text
    assert "23 more" in text and "allow_mismatched=True" in text
    out = tmp_path / "xl"
    res = crosslingual(runs["uk"], runs["en_release"], n_boot=50, out=out, allow_mismatched=True)
    assert len(res.mismatches) == 26 == res.settings["mismatched_links"]
    assert res.settings["allow_mismatched"] is True
    assert any(n.startswith("Mismatched occupations (allowed") for n in res.notes)
    first = res.mismatches.iloc[0]
    assert (first["item"], first["role"], first["occupation_uk"], first["occupation_en"]) == (
        "validation/type1/2",
        "target",
        "секретар",
        "designer",
    )
    assert pd.read_csv(out / "crosslingual_mismatches.csv").shape[0] == 26
    md, html = _pages(out)
    assert "| validation/type1/2 | target | секретар | designer | secretary | 2 |" in md
    table = html.split('<table id="mismatches">', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 1 + 26  # header and one row per mismatched link
    # one planted mismatch among translations: caught and named
    planted = tmp_path / "en-planted"
    shutil.copytree(runs["en"], planted)
    pred = pd.read_parquet(planted / "predictions.parquet")
    sel = (pred["split"] == "test") & (pred["type"] == "type2") & (pred["item_number"] == 1)
    pred.loc[sel, "other_occupation_en"] = "cook"
    pred.to_parquet(planted / "predictions.parquet", index=False)
    with pytest.raises(TaskError, match=r"1 of 28 occupation links .*test/type2/1 other"):
        crosslingual(runs["uk"], planted, n_boot=50)
    assert crosslingual(runs["uk"], runs["en"], n_boot=50).mismatches.empty


def test_a_run_on_the_bundled_sample_gets_a_banner(
    runs: dict[str, Path], tmp_path: Path, shared_data: Path
) -> None:
    res = crosslingual(runs["uk"], runs["en"], n_boot=50, out=tmp_path / "sample")
    assert res.sample_runs == ["uk"]
    md, html = _pages(tmp_path / "sample")
    banner = "Bundled sample: the UK run's data is “winobias-uk sample”"
    assert f"> **{banner}" in md
    assert f'<div class="banner" id="sample-1"><strong>{escape(banner)}' in html
    assert "the EN run" not in html
    # the same rows read from a file: the manifest names a file, not the sample
    plain = tmp_path / "uk-file"
    sample_csv = UK.columns.sample_paths()["table"]
    winoscope.run("winobias-uk", "baseline:stereotype", data=sample_csv, out=plain, n_boot=20)
    res = crosslingual(plain, runs["en"], n_boot=50, out=tmp_path / "file")
    assert res.sample_runs == []
    md, html = _pages(tmp_path / "file")
    assert "Bundled sample" not in md and "Bundled sample" not in html
    # a manifest that says is_sample (the English side here)
    en = _copy(runs["en"], tmp_path / "en-sample", {"dataset": {"is_sample": True}})
    res = crosslingual(plain, en, n_boot=50, out=tmp_path / "en")
    assert res.sample_runs == ["en"]
    assert escape("Bundled sample: the EN run's data is") in _pages(tmp_path / "en")[1]


def test_result_repr_and_html_summarise_the_join(runs: dict[str, Path], tmp_path: Path) -> None:
    from winoscope.results.run import REPR_LIMIT

    res = crosslingual(runs["uk"], runs["en_random"], n_boot=50, allow_different_models=True)
    text = repr(res)
    assert len(text) < REPR_LIMIT and text.startswith(
        "CrosslingualResult(winobias-uk / winobias-en"
    )
    table = json.loads((runs["uk"] / "manifest.json").read_text())["dataset"]["table_sha256"]
    assert f"baseline:stereotype · winobias-uk sample, {table[:12]} (bundled sample)" in text
    assert "baseline:random · winobias-en" in text
    gap = res.table.set_index(["metric", "split"]).loc[("signed_bias_gap", "macro")]
    shown = (
        f"UK {gap['uk']:+.3f} · EN {gap['en']:+.3f} · UK − EN {gap['diff']:+.3f} "
        f"[{gap['ci_low']:+.3f}, {gap['ci_high']:+.3f}]"
    )
    assert f"signed_bias_gap   {shown}" in text
    assert "Different models allowed" in text and "out dir" not in text
    html = res._repr_html_()
    assert f'<td style="text-align:left;font-variant-numeric:tabular-nums">{shown}</td>' in html
    written = crosslingual(runs["uk"], runs["en"], n_boot=50, out=tmp_path / "xl")
    assert f"out dir           {tmp_path / 'xl'}" in repr(written)


def test_the_command_line_refuses_different_models_unless_told(runs, tmp_path) -> None:
    from typer.testing import CliRunner

    from winoscope.cli import app

    runner = CliRunner()
    refused = runner.invoke(app, ["crosslingual", str(runs["uk"]), str(runs["en_random"])])
    assert refused.exit_code == 2
    assert "baseline:stereotype" in refused.output and "baseline:random" in refused.output
    allowed = runner.invoke(
        app,
        [
            "crosslingual",
            str(runs["uk"]),
            str(runs["en_random"]),
            "--allow-different-models",
            "--out",
            str(tmp_path / "x"),
            "--bootstrap",
            "50",
        ],
    )
    assert allowed.exit_code == 0, allowed.output
    assert "Different models (allowed" in (tmp_path / "x" / "crosslingual.md").read_text(
        encoding="utf-8"
    )
