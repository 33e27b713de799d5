"""``--limit N``: the first N source items of every stratum, all variants and option orders,
marked as partial in the manifest and every report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.errors import TaskError
from winoscope.limit import limit_run
from winoscope.runs.runner import run
from winoscope.tasks import get_task


def first_items(table: pd.DataFrame, columns: list[str], n: int) -> set[str]:
    """Reference: walk the rows in order, take an item while its stratum has fewer than n."""
    taken: dict[tuple[str, ...], list[str]] = {}
    for row in table.itertuples(index=False):
        key = tuple(str(getattr(row, c)) for c in columns)
        items = taken.setdefault(key, [])
        if row.item_id not in items and len(items) < n:
            items.append(row.item_id)
    return {i for items in taken.values() for i in items}


@pytest.mark.parametrize("n", [1, 2])
def test_first_items_of_every_stratum_with_all_variants_and_both_orders(n: int) -> None:
    task = get_task("winobias-uk")
    ds = task.data.load(None)
    requests = task.primary.build_requests(ds, task.primary.template)
    assert task.strata == ("split", "type")
    sub, kept, entry = limit_run(ds, requests, n, task.strata)

    want = first_items(ds.table, ["split", "type"], n)
    assert set(sub.table["item_id"]) == want
    # every variant (row) of a kept item, and nothing else
    assert len(sub.table) == int(ds.table["item_id"].isin(want).sum())
    per_stratum = sub.table.groupby(["split", "type"], observed=True)["item_id"].nunique()
    assert set(per_stratum) == {n}  # the sample has at least 2 items in each of its 4 strata
    assert len(per_stratum) == 4
    # both option orders of every kept row
    orders = pd.DataFrame([(r.row_id, r.order) for r in kept], columns=["row", "order"])
    assert set(orders["row"]) == set(sub.table["row_id"])
    assert (orders.groupby("row")["order"].nunique() == 2).all()
    assert {r.request_id for r in kept} == {r.request_id for r in requests if r.item_id in want}
    assert entry["limit"] == n and entry["strata_columns"] == ["split", "type"]
    assert (entry["items"], entry["rows"], entry["requests"]) == (
        len(want),
        len(sub.table),
        len(kept),
    )
    assert (entry["items_total"], entry["rows_total"], entry["requests_total"]) == (
        ds.table["item_id"].nunique(),
        len(ds.table),
        len(requests),
    )


def test_winopron_strata_are_context_by_pronoun_type() -> None:
    task = get_task("winopron-uk")
    ds = task.data.load(None)
    requests = task.primary.build_requests(ds, task.primary.template)
    assert task.strata == ("context", "pronoun_type")
    _, kept, entry = limit_run(ds, requests, 1, task.strata)
    assert entry["strata_columns"] == ["context", "pronoun_type"]
    assert sum(s["items"] for s in entry["strata"]) == entry["items"]
    assert entry["requests"] == len(kept) < len(requests)


@pytest.mark.parametrize("task_name", ["winopron-uk", "swewinogender/resolution"])
def test_limit_keeps_the_rows_its_requests_ask_whatever_the_key_column(task_name: str) -> None:
    """WinoPron-UK keys its rows by ``row_key`` (its ``row_id`` column means something else)."""
    task = get_task(task_name)
    ds = task.data.load(None)
    requests = task.primary.build_requests(ds, task.primary.template)
    sub, kept, entry = limit_run(ds, requests, 1, task.strata)
    key = "row_key" if "row_key" in ds.table.columns else "row_id"
    assert set(sub.table[key].astype(str)) == {r.row_id for r in kept}
    assert entry["rows"] == len(sub.table) > 0
    result = run(task_name, "baseline:first", limit=1, n_boot=50)
    assert len(result.predictions) == entry["rows"]
    assert result.predictions["prediction_role"].notna().all()


def test_a_run_with_limit_is_marked_partial_everywhere(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        ["run", "winobias-uk", "-m", "baseline:agreement", "--limit", "1",
         "--out", str(out), "--bootstrap", "20", "-q"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    partial = manifest["partial"]
    assert partial["limit"] == 1 and partial["items"] == 4
    assert manifest["requests"] == partial["requests"] == 2 * partial["rows"]
    predictions = pd.read_parquet(out / "predictions.parquet")
    assert len(predictions) == partial["rows"]
    assert predictions.groupby(["split", "type"], observed=True)["item_id"].nunique().eq(1).all()
    assert "Partial run (--limit 1)" in (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert 'id="partial-run"' in html and "Partial run (--limit 1)" in html
    shown = CliRunner().invoke(app, ["show", str(out)])
    assert shown.exit_code == 0
    assert "Partial run (--limit 1)" in shown.output
    assert "partial run (--limit 1)" in shown.output  # the key table's caption too


def test_a_full_run_is_not_marked(tmp_path: Path) -> None:
    rr = run("winobias-uk", "baseline:agreement", out=tmp_path / "full", n_boot=20)
    assert "partial" not in rr.manifest
    assert "Partial run" not in (tmp_path / "full" / "report.md").read_text()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_limit_must_be_a_positive_whole_number(bad: object) -> None:
    with pytest.raises(TaskError, match="limit="):
        run("winobias-uk", "baseline:agreement", limit=bad)  # type: ignore[arg-type]


def test_compare_flags_a_partial_run(tmp_path: Path) -> None:
    from winoscope.report.compare import compare_runs

    run("winobias-uk", "baseline:agreement", out=tmp_path / "runs" / "full", n_boot=20)
    run("winobias-uk", "baseline:first", out=tmp_path / "runs" / "part", n_boot=20, limit=1)
    cmp = compare_runs([tmp_path / "runs" / "full", tmp_path / "runs" / "part"], tmp_path / "c")
    assert any("part is a partial run (--limit 1: 20 of 76 rows)" in f for f in cmp.flags)
    md = (tmp_path / "c" / "compare.md").read_text()
    assert "baseline:first †" in md and "partial run (--limit 1" in md
