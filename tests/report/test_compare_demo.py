"""``compare`` over the demo's runs (every task, every reference baseline): every run is in
every table, plot and export, and baselines (which read no prompt) are never flagged for it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from winoscope.report.compare import compare_runs, run_labels
from winoscope.studies.demo import demo_tasks, run_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "demo"
    run_demo(out, quiet=True, lm=False)
    return out


def unwrap(tex: str) -> str:
    tex = re.sub(r"\\begin\{tabular\}\[t\]\{@\{\}l@\{\}\}", "", tex)
    return tex.replace("\\end{tabular}", "").replace("\\\\{}", "").replace("\\_", "_")


def test_every_demo_run_is_in_every_table_plot_and_export(demo: Path, tmp_path: Path) -> None:
    cmp = compare_runs([demo], tmp_path / "cmp")
    assert {r.task for r in cmp.runs} == set(demo_tasks())
    assert len(cmp.runs) >= 24
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    tex = unwrap((tmp_path / "cmp" / "compare.tex").read_text(encoding="utf-8"))
    html = (tmp_path / "cmp" / "compare.html").read_text(encoding="utf-8")
    for task in demo_tasks():
        assert f"## {task}" in md and f"{task.replace('_', chr(92) + '_')}:" in tex
        section = md.split(f"## {task}\n")[1].split("\n## ")[0]
        rows = [
            r for r, label in zip(cmp.runs, run_labels(cmp.runs), strict=True) if r.task == task
        ]
        for r in rows:
            label = run_labels(cmp.runs)[cmp.runs.index(r)]
            assert f"| {label} |" in section, (task, label)
            assert re.search(rf"^{re.escape(label)}(\$\^\\dagger\$)? & ", tex, re.M), (task, label)
            assert label in html, (task, label)
    svg = (tmp_path / "cmp" / "plots" / "forest_gaps.svg").read_text(encoding="utf-8")
    for task in demo_tasks():  # every task with a signed gap has its panel (text kept as text)
        assert task in svg, task
    assert cmp.flags == []  # baselines read no prompt: no "prompt differs" noise
