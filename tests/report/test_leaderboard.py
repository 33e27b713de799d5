"""`winoscope leaderboard`: per-task tables ranked by a metric's declared direction, in CSV,
Markdown, booktabs LaTeX (compiled with pdflatex) and a sortable HTML page, over real runs."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope
from shared_paths import in_ci
from winoscope.cli import app
from winoscope.report.leaderboard import (
    Row,
    SortError,
    default_descending,
    leaderboard,
    rank_rows,
)
from winoscope.report.tables import Cell
from winoscope.results.rundir import load_run_dir
from winoscope.scoring.metric import get_metric
from winoscope.tags import tag_sort_key

# directory -> (task, model, tags)
RUNS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "wb-agree-a10": ("winobias-uk", "baseline:agreement", {"alpha": 10}),
    "wb-agree-a2": ("winobias-uk", "baseline:agreement", {"alpha": 2}),
    "wb-stereo": ("winobias-uk", "baseline:stereotype", {"alpha": 10}),
    "wb-random": ("winobias-uk", "baseline:random", {"alpha": 1}),
    "wp-stereo": ("winopron-uk", "baseline:stereotype", {}),
    "wp-random": ("winopron-uk", "baseline:random", {}),
    "sw-random": ("swewinogender", "baseline:random", {}),
    "sw-agree": ("swewinogender", "baseline:agreement", {}),
}
WINOBIAS = [d for d, (task, _, _) in RUNS.items() if task == "winobias-uk"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lb-runs")
    for name, (task, model, tags) in RUNS.items():
        winoscope.run(task, model, out=root / name, n_boot=50, tags=tags)
    return root


@pytest.fixture(scope="module")
def board(runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lb")
    leaderboard([runs], out)
    return out


def summary(run_dir: Path, metric: str) -> float:
    """The metric's value in the run's summary stratum, read from its metrics.csv."""
    m = pd.read_csv(run_dir / "metrics.csv")
    rows = m[(m["metric"] == metric) & m["split"].isin(["macro", "all"])]
    rows = rows[(rows["split"] == "macro") | (rows["type"] == "all")]
    return float(rows["value"].iloc[0])


def expected_order(runs: Path, names: list[str], metric: str, key: Any) -> list[str]:
    """Run directories sorted by ``key(value)``, ties by model then tag value (numerically)."""
    return sorted(
        names,
        key=lambda d: (
            key(summary(runs / d, metric)),
            RUNS[d][1],
            tag_sort_key(RUNS[d][2].get("alpha")),
        ),
    )


def ranked(out: Path, task: str) -> list[str]:
    csv = pd.read_csv(out / "leaderboard.csv")
    rows = csv[csv["task"] == task].drop_duplicates("run").sort_values("rank")
    assert rows["rank"].tolist() == list(range(1, len(rows) + 1))
    return rows["run"].tolist()


def test_default_sort_is_the_first_headline_closest_to_zero(runs: Path, board: Path) -> None:
    # signed_bias_gap is declared direction="zero": by absolute value, smallest first
    want = expected_order(runs, WINOBIAS, "signed_bias_gap", abs)
    assert ranked(board, "winobias-uk") == want
    raw = expected_order(runs, WINOBIAS, "signed_bias_gap", lambda v: v)
    assert want != raw  # the random run's negative gap would come first by plain value


def test_sort_by_a_higher_is_better_metric_and_override(runs: Path, tmp_path: Path) -> None:
    got = leaderboard([runs], tmp_path / "hi", sort="overall_accuracy")
    want = expected_order(runs, WINOBIAS, "overall_accuracy", lambda v: -v)
    assert ranked(tmp_path / "hi", "winobias-uk") == want
    assert got.boards[1].descending and got.boards[1].order_text == "highest first"
    leaderboard([runs], tmp_path / "lo", sort="overall_accuracy", descending=False)
    assert ranked(tmp_path / "lo", "winobias-uk") == expected_order(
        runs, WINOBIAS, "overall_accuracy", lambda v: v
    )
    # tasks without overall_accuracy are ranked by their own first headline metric
    by = {b.task: b.sort for b in got.boards}
    assert by == {"winobias-uk": "overall_accuracy", "winopron-uk": "gender_gap"} | {
        "swewinogender": "accuracy"
    }
    sw = ["sw-random", "sw-agree"]
    assert ranked(tmp_path / "hi", "swewinogender") == expected_order(
        runs, sw, "accuracy", lambda v: -v
    )


def test_every_direction_puts_the_best_first(runs: Path) -> None:
    run = load_run_dir(runs / "wb-random")
    values = [-0.3, 0.1, float("nan"), 0.9, 1.2]
    want = {  # metric: (best first means descending, the order of the values)
        "overall_accuracy": (True, [1.2, 0.9, 0.1, -0.3]),  # higher
        "absolute_bias_gap": (False, [-0.3, 0.1, 0.9, 1.2]),  # lower
        "signed_bias_gap": (False, [0.1, -0.3, 0.9, 1.2]),  # zero: by |v|
        "gender_parity": (False, [0.9, 1.2, 0.1, -0.3]),  # one: by |v - 1|
        "entailment_rate": (True, [1.2, 0.9, 0.1, -0.3]),  # none: highest first
    }
    for metric, (desc, order) in want.items():
        assert default_descending(get_metric(metric).direction) is desc, metric
        rows = [Row(0, run, {metric: Cell(v, v, v, 1)}) for v in values]
        got = rank_rows(rows, metric, desc)
        assert [r.cells[metric].value for r in got][:4] == order, metric
        assert math.isnan(got[-1].cells[metric].value)  # missing last
        assert [r.rank for r in got] == [1, 2, 3, 4, 5]
        flipped = rank_rows(rows, metric, not desc)
        assert [r.cells[metric].value for r in flipped][:4] == order[::-1], metric
        assert math.isnan(flipped[-1].cells[metric].value)  # missing last either way


def test_numeric_tags_break_ties_numerically(runs: Path, board: Path) -> None:
    # both agreement runs have identical metrics: alpha=2 must come before alpha=10
    order = ranked(board, "winobias-uk")
    assert order.index("wb-agree-a2") == order.index("wb-agree-a10") - 1
    csv = pd.read_csv(board / "leaderboard.csv", keep_default_na=False)
    tags = csv.drop_duplicates("run").set_index("run")["tags"]
    assert tags["wb-agree-a2"] == "alpha=2" and tags["wb-agree-a10"] == "alpha=10"
    assert tags["wp-stereo"] == ""
    md = (board / "leaderboard.md").read_text(encoding="utf-8")
    assert md.index("| wb-agree-a2 |") < md.index("| wb-agree-a10 |")


def test_csv_cells_match_the_runs(runs: Path, board: Path) -> None:
    csv = pd.read_csv(board / "leaderboard.csv")
    assert list(csv.columns) == [
        "task",
        "rank",
        "model",
        "tags",
        "run",
        "metric",
        "value",
        "ci_low",
        "ci_high",
        "n",
        "invalid_rate",
        "failed_rate",
        "degenerate",
    ]
    for r in csv.itertuples(index=False):
        assert r.model == RUNS[r.run][1] and r.task == RUNS[r.run][0]
        assert r.value == pytest.approx(summary(runs / r.run, r.metric))
    wb = csv[csv["task"] == "winobias-uk"]
    assert list(dict.fromkeys(wb["metric"]))[:2] == ["signed_bias_gap", "overall_accuracy"]
    assert wb["metric"].nunique() == 5


def test_every_run_appears_in_every_output(board: Path) -> None:
    csv = pd.read_csv(board / "leaderboard.csv")
    assert set(csv["run"]) == set(RUNS)
    md = (board / "leaderboard.md").read_text(encoding="utf-8")
    html = (board / "leaderboard.html").read_text(encoding="utf-8")
    tex = (board / "leaderboard.tex").read_text(encoding="utf-8")
    for name, (_, model, tags) in RUNS.items():
        assert f"| {name} |" in md
        assert f'data-run="{name}"' in html
        tag = "".join(f"{k}={v}" for k, v in tags.items())
        flat = unwrap(tex)  # labels wrapped over lines: read back without the breaks
        assert re.search(rf"^\d+ & {re.escape(model)}\S* & {re.escape(tag)}", flat, re.M) or (
            not tags and re.search(rf"^\d+ & {re.escape(model)}\S* & \$", flat, re.M)
        ), name
    assert tex.count("\\begin{table*}") == 3 and html.count('class="compare leaderboard"') == 3


def test_html_links_each_report_and_shows_notes(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "no-report"
    shutil.copytree(runs / "wp-random", copy)
    (copy / "report.html").unlink()
    winoscope.run("winobias-uk", "baseline:first", out=tmp_path / "partial", n_boot=20, limit=20)
    out = tmp_path / "deep" / "lb"
    leaderboard([runs / "wb-stereo", runs / "wp-stereo", copy, tmp_path / "partial"], out)
    html = (out / "leaderboard.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'<a href="([^"]+)">', html)
    assert len(hrefs) == 3 and all(not h.startswith("/") for h in hrefs)
    targets = {(out / h).resolve() for h in hrefs}
    assert targets == {
        (p / "report.html").resolve()
        for p in (runs / "wb-stereo", runs / "wp-stereo", tmp_path / "partial")
    }
    assert all(t.is_file() for t in targets)
    assert 'data-run="no-report"' in html  # listed, without a link
    flags = re.search(r'<div class="banner" id="flags">(.*?)</div>', html, re.S)
    assert flags and "partial is a partial run" in flags.group(1)
    samples = re.search(r'<div class="banner" id="samples">(.*?)</div>', html, re.S)
    assert samples and "no-report" in samples.group(1) and "wb-stereo" in samples.group(1)
    assert "<script" not in html.split("<script>", 1)[1]  # one inline script, nothing fetched
    assert not re.search(r'(src|href)="(https?:)?//', html)
    md = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "baseline:first † ‡" in md and "Not directly comparable" in md
    # headers carry the declared labels and the sort column is marked
    assert ">pro − anti accuracy</th>" in html
    assert 'data-metric="signed_bias_gap"' in html and 'aria-sort="ascending"' in html


def test_unknown_metric_lists_the_known_ones(runs: Path, tmp_path: Path) -> None:
    with pytest.raises(SortError) as err:
        leaderboard([runs / "wb-stereo", runs / "sw-agree"], tmp_path / "x", sort="f1_score")
    text = str(err.value)
    assert "'f1_score'" in text
    for metric in ("signed_bias_gap", "overall_accuracy", "pair_consistency", "accuracy"):
        assert metric in text
    assert "winobias-uk:" in text and "swewinogender:" in text
    assert not (tmp_path / "x").exists()


def unwrap(tex: str) -> str:
    """Row labels wrapped in nested tabulars (``\\begin{tabular}[t]{@{}l@{}}a\\\\{}b...``)
    read back as one word each: the breaks and the nesting dropped."""
    tex = re.sub(r"\\begin\{tabular\}\[t\]\{@\{\}l@\{\}\}", "", tex)
    return tex.replace("\\end{tabular}", "").replace("\\\\{}", "")


def untex(text: str) -> str:
    """LaTeX header or caption text back to plain text: stacked lines joined, the minus sign
    and the bar as written (``$-$`` or ``--``, ``\\textbar{}``), escapes dropped."""
    text = re.sub(r"\\(begin|end)\{tabular\}(\[b\]\{@\{\}r@\{\}\})?", "", text)
    text = text.replace("\\\\", " ").replace("$-$", "−").replace("--", "−")
    return text.replace("\\textbar{}", "|").replace("\\%", "%").replace("\\#", "#")


def test_latex_tables_use_booktabs_and_declared_labels(board: Path) -> None:
    tex = (board / "leaderboard.tex").read_text(encoding="utf-8")
    assert tex.count("\\toprule") == tex.count("\\midrule") == tex.count("\\bottomrule") == 3
    assert tex.count("\\begin{table*}") == tex.count("\\small") == 3
    csv = pd.read_csv(board / "leaderboard.csv", keep_default_na=False)
    lines = tex.splitlines()
    heads = [ln for ln in lines if ln.startswith("\\# & Model & ")]
    captions = [untex(ln) for ln in lines if ln.startswith("\\caption{")]
    for task, head, caption in zip(dict.fromkeys(csv["task"]), heads, captions, strict=True):
        rows = csv[csv["task"] == task]
        tags = ["Tags"] if rows["tags"].ne("").any() else []  # a column only for tagged runs
        want = [
            "#",
            "Model",
            *tags,
            *(get_metric(m).display for m in dict.fromkeys(rows["metric"])),
        ]
        assert [untex(c) for c in head.removesuffix(" \\\\").split(" & ")] == want
        label = get_metric(rows["metric"].iloc[0]).display
        assert caption.startswith(f"\\caption{{{task}: runs ranked by {label} (")
        assert f"\\label{{tab:leaderboard-{task}}}" in tex
    assert "pro − anti accuracy (closest to 0 first)" in captions[1]
    assert heads[0].count(" & ") == 1 + 5 and heads[1].count(" & ") == 2 + 5
    # a value line, then its interval on a second line in \scriptsize
    for i, ln in enumerate(lines):
        if re.match(r"^\d+ & ", ln):
            assert lines[i + 1].startswith(" & ") and "{\\scriptsize $[" in lines[i + 1]
            assert lines[i + 1].count("&") == ln.count("&")
    assert "−" not in tex  # the default LaTeX fonts have no U+2212


def test_latex_compiles(board: Path, tmp_path: Path) -> None:
    from latex_check import compile_tex

    tex = (board / "leaderboard.tex").read_text(encoding="utf-8")
    assert tex.count("\\begin{table*}") == 3  # a leaderboard spans both columns of a paper
    compile_tex(board / "leaderboard.tex", tmp_path)


def test_repr_and_frame(runs: Path, tmp_path: Path) -> None:
    got = leaderboard([str(runs / "wb-*")], tmp_path / "lb")
    assert (
        repr(got)
        == f"Leaderboard(winobias-uk (4 by signed_bias_gap); out={str(tmp_path / 'lb')!r})"
    )
    pd.testing.assert_frame_equal(
        got.to_frame(), pd.read_csv(tmp_path / "lb" / "leaderboard.csv"), check_dtype=False
    )


def test_cli_leaderboard(runs: Path, tmp_path: Path) -> None:
    cli = CliRunner()
    out = tmp_path / "cli"
    res = cli.invoke(
        app,
        ["leaderboard", str(runs), "--sort", "overall_accuracy", "--ascending", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    assert "winobias-uk: 4 runs ranked by overall_accuracy (lowest first)" in res.output
    assert "leaderboard.csv" in res.output and (out / "leaderboard.html").is_file()
    assert ranked(out, "winobias-uk") == expected_order(
        runs, WINOBIAS, "overall_accuracy", lambda v: v
    )
    res = cli.invoke(app, ["leaderboard", str(runs), "--sort", "nope", "--out", str(out)])
    assert res.exit_code == 2 and "nope" in res.output and "signed_bias_gap" in res.output
    assert "Traceback" not in res.output
    res = cli.invoke(app, ["leaderboard", str(tmp_path / "missing"), "--out", str(out)])
    assert res.exit_code == 2 and "not a directory" in res.output


def test_header_click_resorts_in_chromium(runs: Path, board: Path, tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        if in_ci():
            pytest.fail("chromium and playwright are required in CI")
        pytest.skip("chromium or playwright not installed")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((board / "leaderboard.html").as_uri())
            table = page.locator('table[data-task="winobias-uk"]')
            header = table.locator('th[data-metric="pro_accuracy"]')
            order = "els => els.map(e => e.getAttribute('data-run'))"
            header.click()
            first = table.locator("tbody tr").evaluate_all(order)
            header.click()
            second = table.locator("tbody tr").evaluate_all(order)
        finally:
            browser.close()
    assert errors == []
    values = {d: summary(runs / d, "pro_accuracy") for d in WINOBIAS}
    assert [values[d] for d in first] == sorted(values.values(), reverse=True)  # higher first
    assert [values[d] for d in second] == sorted(values.values())
