"""A run's result read in a terminal or a notebook: a short ``repr`` and a small HTML table.

Both name the task, the model and its tags, the data, the headline macro metrics with their
intervals (the numbers of the tidy metrics table), the failed requests and the run directory;
the dataclass equality stays as it was.
"""

from __future__ import annotations

import copy
import dataclasses
from html.parser import HTMLParser
from pathlib import Path

import pytest

import winoscope
from winoscope.results.run import REPR_LIMIT, RunResult, SensitivityResult
from winoscope.scoring.metric import headline_metrics
from winoscope.studies.sensitivity import run_templates


class _Cells(HTMLParser):
    """The (th, td) text pairs of a table, and every tag seen."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _cells(html: str) -> tuple[dict[str, str], list[str]]:
    parser = _Cells()
    parser.feed(html)
    return {r[0]: r[1] for r in parser.rows if len(r) == 2}, parser.tags


@pytest.fixture(scope="module")
def run_result(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    out = tmp_path_factory.mktemp("repr") / "run"
    return winoscope.run(
        "winobias-uk", "baseline:stereotype", out=out, n_boot=50, tags={"alpha": 4}
    )


def _expected_headlines(metrics) -> dict[str, str]:  # type: ignore[no-untyped-def]
    macro = metrics[metrics["split"] == "macro"].set_index("metric")
    out = {}
    for name in headline_metrics(list(macro.index), limit=4):
        r = macro.loc[name]
        fmt = "{:+.3f}" if name == "signed_bias_gap" else "{:.3f}"
        out[name] = (
            f"{fmt.format(r['value'])} [{fmt.format(r['ci_low'])}, {fmt.format(r['ci_high'])}]"
        )
    return out


def test_run_result_repr_is_short_and_says_what_was_run(run_result: RunResult) -> None:
    text = repr(run_result)
    assert len(text) < REPR_LIMIT
    assert text.startswith("RunResult(winobias-uk")
    assert "baseline:stereotype [alpha=4]" in text
    table = run_result.manifest["dataset"]["table_sha256"]
    assert f"winobias-uk sample, table {table[:12]}" in text and table not in text
    heads = _expected_headlines(run_result.metrics)
    assert list(heads)[:2] == ["signed_bias_gap", "overall_accuracy"]
    for name, shown in heads.items():
        assert any(line.split() == [name, *shown.split()] for line in text.splitlines()), name
    assert "0 of 152 requests failed; 0 validation issues" in text
    assert str(run_result.out_dir) in text
    assert "посперечався" not in text  # no predictions, no sentences
    # a result not written has no run dir line
    loose = dataclasses.replace(run_result, out_dir=None)
    assert "run dir" not in repr(loose) and "run dir" in repr(run_result)


def test_run_result_html_is_a_small_escaped_table(run_result: RunResult) -> None:
    cells, tags = _cells(run_result._repr_html_())
    assert set(tags) <= {"table", "caption", "tbody", "tr", "th", "td"}
    assert cells["model"] == "baseline:stereotype [alpha=4]"
    for name, shown in _expected_headlines(run_result.metrics).items():
        assert cells[name] == shown
    assert cells["run dir"] == str(run_result.out_dir)
    hostile = copy.deepcopy(run_result.manifest)
    hostile["tags"] = {"note": "<script>alert(1)</script>"}
    html = dataclasses.replace(run_result, manifest=hostile)._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    cells, tags = _cells(html)
    assert "script" not in tags
    assert cells["model"] == "baseline:stereotype [note=<script>alert(1)</script>]"


def test_dataclass_equality_and_fields_are_kept(run_result: RunResult) -> None:
    names = [f.name for f in dataclasses.fields(RunResult)]
    assert names == [
        "task",
        "dataset",
        "predictions",
        "result",
        "manifest",
        "out_dir",
        "errors",
        "validation",
    ]
    assert run_result == copy.copy(run_result)
    assert run_result != dataclasses.replace(run_result, out_dir=Path("elsewhere"))


def test_sensitivity_result_repr_and_html() -> None:
    res = run_templates(
        "winobias-uk", "baseline:random", ["uk-default-v1", "uk-plain-v1"], n_boot=20
    )
    text = repr(res)
    assert len(text) < REPR_LIMIT and text.startswith("SensitivityResult(winobias-uk")
    assert "templates" in text and "2: uk-default-v1, uk-plain-v1" in text
    heads = res.headline().head(4)
    gap = heads.set_index("metric").loc["signed_bias_gap"]
    shown = f"{gap['mean']:+.3f} [{gap['ci_low']:+.3f}, {gap['ci_high']:+.3f}]"
    assert f"signed_bias_gap   {shown}" in text
    assert "0 failed requests over 2 runs" in text
    cells, _ = _cells(res._repr_html_())
    assert cells["signed_bias_gap"].startswith(shown)
    assert list(cells)[3 : 3 + len(heads)] == list(heads["metric"])
    assert [f.name for f in dataclasses.fields(SensitivityResult)][:3] == [
        "task",
        "templates",
        "runs",
    ]
