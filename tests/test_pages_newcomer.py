"""The pages a newcomer opens first: the bundled-sample banner on the demo's index and the
comparison pages, the PEFT adapter in the model label, reused and asked answers, and ``run``
and ``show`` listing metrics in one order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.results.rundir import SAMPLE_BANNER


def cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(
        app, list(args), catch_exceptions=False, env={"COLUMNS": "200", "TERM": "dumb"}
    )
    return res.exit_code, res.output


def metric_order(text: str) -> list[str]:
    return re.findall(r"^│ ([a-z_]+)\s+│", text, flags=re.M)


def test_run_and_show_list_metrics_in_one_order_and_the_sample_banner(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    code, run_out = cli("run", "winobias-uk", "-m", "baseline:agreement", "-q",
                        "--bootstrap", "50", "--out", str(a))  # fmt: skip
    assert code == 0
    code, show_out = cli("show", str(a))
    assert code == 0
    assert metric_order(run_out) == metric_order(show_out)
    assert metric_order(run_out)[0] == "signed_bias_gap"  # the headline first, in both
    assert "answers: 0 reused, 152 asked" in show_out
    assert cli("run", "winobias-uk", "-m", "baseline:stereotype", "-q", "--bootstrap", "50",
               "--out", str(b))[0] == 0  # fmt: skip
    assert cli("compare", str(a), str(b), "--out", str(tmp_path / "cmp"))[0] == 0
    for page in ("index.html", "compare.html"):
        html = (tmp_path / "cmp" / page).read_text()
        assert f'id="sample-banner">{SAMPLE_BANNER} (every run)' in html, page
    assert cli("diff", str(a), str(b), "--out", str(tmp_path / "diff"))[0] == 0
    assert SAMPLE_BANNER in (tmp_path / "diff" / "diff.html").read_text()
    assert SAMPLE_BANNER in (tmp_path / "diff" / "diff.md").read_text()


def test_a_peft_adapter_is_in_the_model_label(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    peft = pytest.importorskip("peft")
    import torch
    from transformers import AutoModelForCausalLM

    from tiny_lm import build_tiny_gpt2

    torch.set_num_threads(1)
    base = build_tiny_gpt2(tmp_path / "base", seed=1)
    torch.manual_seed(0)
    lora = peft.get_peft_model(
        AutoModelForCausalLM.from_pretrained(base),
        peft.LoraConfig(r=4, lora_alpha=32, target_modules=["c_attn"], init_lora_weights=False),
    )
    lora.save_pretrained(tmp_path / "adapter")
    out = tmp_path / "runs" / "lora"
    code, text = cli("run", "winobias-uk", "-m", f"hf:{base}", "-M", f"peft={tmp_path / 'adapter'}",
                     "--limit", "1", "-q", "--bootstrap", "20", "--out", str(out))  # fmt: skip
    assert code == 0, text
    label = f"hf:{base} + peft:"
    assert label.replace(" ", "") in re.sub(r"\s+", "", text)  # the title wraps
    assert (out / "report.md").read_text().splitlines()[0].startswith(f"# winobias-uk · {label}")
    assert f"<h1>winobias-uk · <code>{label}" in (out / "report.html").read_text()
    assert cli("compare", str(out), "--out", str(tmp_path / "cmp"))[0] == 0
    assert f"| {label}" in (tmp_path / "cmp" / "compare.md").read_text()
    assert cli("leaderboard", str(out), "--out", str(tmp_path / "lb"))[0] == 0
    assert label in (tmp_path / "lb" / "leaderboard.md").read_text()
    import winoscope

    rr = winoscope.run("winobias-uk", f"hf:{base}", backend_options={"peft": str(tmp_path / "adapter")},
                       limit=1, n_boot=20)  # fmt: skip
    assert label in repr(rr)


def test_the_swedish_nli_report_explains_its_columns_and_names_its_gap(tmp_path: Path) -> None:
    out = tmp_path / "sv"
    assert cli("run", "swewinogender", "-m", "baseline:agreement", "-q", "--bootstrap", "20",
               "--out", str(out))[0] == 0  # fmt: skip
    md = (out / "report.md").read_text()
    assert "«Teknikern sa till kunden att han kunde betala kontant.»" in md
    assert "pronoun/hon-han" in md and "read_as_neutral" in md
    assert "«Teknikern sa till" in (out / "report.html").read_text()
    import json

    counts = json.loads((out / "metrics.json").read_text())["counts"]
    assert "read_as_neutral" in counts[0] and "contradiction_as_neutral" not in counts[0]
    # the signed-gap figure: its axis names the quantity and lies inside the figure
    import pandas as pd

    from winoscope.report.plots import gap_figure

    fig = gap_figure(pd.read_csv(out / "metrics.csv"), ["accuracy_gap"])
    ax = fig.axes[0]
    label = ax.get_xlabel()
    assert "accuracy with hon or hen − accuracy with han" in label.replace("\n", " ")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.canvas.draw()
    box = ax.xaxis.label.get_window_extent(fig.canvas.get_renderer())
    assert box.y0 >= 0 and box.x0 >= 0 and box.x1 <= fig.bbox.width  # not clipped
