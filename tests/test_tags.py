"""Tags (--tag key=value, tags={...}): typed values, numeric order everywhere, and shown by the
manifest, the reports, show, compare and diff; they never key stored answers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope
from winoscope.cli import app
from winoscope.report.compare import compare_runs
from winoscope.tags import TagError, format_tags, normalize_tags, parse_tags, tag_sort_key


def test_values_are_typed_and_sort_numerically() -> None:
    assert parse_tags(["alpha=10", "method=steer", "lr=3e-4", "layer=-2"]) == {
        "alpha": 10,
        "method": "steer",
        "lr": 0.0003,
        "layer": -2,
    }
    assert sorted(["10", "2", "base", 1.5, None], key=tag_sort_key) == [
        1.5,
        "2",
        "10",
        "base",
        None,
    ]
    assert format_tags({"alpha": 4, "method": "steer"}) == "alpha=4 method=steer"
    assert normalize_tags({"alpha": "4"}) == {"alpha": 4}
    for bad in (["alpha"], ["=4"], ["a b=1"], ["alpha=1", "alpha=2"]):
        with pytest.raises(TagError):
            parse_tags(bad)
    with pytest.raises(TagError, match="finite"):
        normalize_tags({"alpha": float("nan")})


@pytest.fixture(scope="module")
def tagged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tagged")
    for alpha in (10, 2, 0):  # written in this order, listed in numeric order
        winoscope.run(
            "winobias-uk",
            "baseline:first",
            out=root / f"a{alpha}",
            n_boot=50,
            tags={"method": "steer", "alpha": alpha},
        )
    return root


def test_manifest_report_and_show_carry_the_tags(tagged: Path) -> None:
    manifest = json.loads((tagged / "a2" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["tags"] == {"method": "steer", "alpha": 2}
    assert "- **Tags**: method=steer alpha=2" in (tagged / "a2" / "report.md").read_text()
    assert (
        'class="tags"><code>method=steer alpha=2</code>'
        in (tagged / "a2" / "report.html").read_text()
    )
    shown = CliRunner().invoke(app, ["show", str(tagged / "a2")], terminal_width=200)
    assert shown.exit_code == 0 and "tags: method=steer alpha=2" in shown.output


def test_compare_and_diff_show_the_tags_in_numeric_order(tagged: Path, tmp_path: Path) -> None:
    cmp = compare_runs([tagged / "a10", tagged / "a2", tagged / "a0"], tmp_path / "cmp")
    assert [r.tags["alpha"] for r in cmp.runs] == [0, 2, 10]  # not 0, 10, 2
    csv = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert list(dict.fromkeys(csv["tags"])) == [
        "method=steer alpha=0",
        "method=steer alpha=2",
        "method=steer alpha=10",
    ]
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    assert md.index("alpha=2]") < md.index("alpha=10]")
    d = winoscope.diff(tagged / "a0", tagged / "a10")
    assert d.model_a == "baseline:first [method=steer alpha=0]"
    assert d.settings["tags_b"] == {"method": "steer", "alpha": 10}


def test_the_command_line_tag_option(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(
        app,
        [
            "run",
            "winobias-uk",
            "-m",
            "baseline:first",
            "--out",
            str(tmp_path / "r"),
            "-q",
            "--bootstrap",
            "20",
            "--tag",
            "checkpoint=800",
            "--tag",
            "method=lora",
        ],
    )
    assert ok.exit_code == 0, ok.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["tags"] == {"checkpoint": 800, "method": "lora"}
    bad = runner.invoke(
        app,
        [
            "run",
            "winobias-uk",
            "-m",
            "baseline:first",
            "--out",
            str(tmp_path / "s"),
            "--tag",
            "checkpoint",
        ],
    )
    assert bad.exit_code == 2 and "expected key=value" in bad.output


def test_tags_never_key_stored_answers(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from tiny_lm import build_tiny_gpt2

    model = build_tiny_gpt2(tmp_path / "tiny", seed=1)
    winoscope.run("winobias-uk", f"hf:{model}", out=tmp_path / "r", n_boot=20, tags={"alpha": 1})
    rr = winoscope.run(
        "winobias-uk", f"hf:{model}", out=tmp_path / "r", n_boot=20, tags={"alpha": 2}
    )
    assert rr.manifest["responses"]["asked"] == 0 and rr.manifest["tags"] == {"alpha": 2}
