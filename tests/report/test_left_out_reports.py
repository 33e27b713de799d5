"""A ``--skip-bad-rows`` run's reports say how many rows were left out and for which findings,
and the validation banner no longer says the numbers are computed on the failing rows as they
are: report.md, report.html and ``winoscope show``."""

from __future__ import annotations

import csv
from pathlib import Path

from typer.testing import CliRunner

import winoscope
from winoscope.cli.app import app

LEFT = "1 row(s) left out of the data (--skip-bad-rows) for 1 blocking finding(s) (enum: 1)"


def test_the_reports_say_which_rows_were_left_out(tmp_path: Path) -> None:
    from winoscope.families.winobias.dataset import UK

    sample = Path(UK.columns.sample_paths()["table"])
    with sample.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    rows[3][rows[0].index("condition")] = "PRO"  # outside the card's values: blocking
    bad = tmp_path / "wb_PRO.csv"
    with bad.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    out = tmp_path / "run"
    winoscope.run(
        "winobias-uk", "baseline:random", data=bad, n_boot=20, out=out, skip_bad_rows=True,
        quiet=True,
    )  # fmt: skip
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Validation failed" in md and LEFT in md
    assert "as they are" not in md.replace("the other rows as they are", "")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert LEFT in page
    assert "computed on these rows as they are" not in page
    shown = CliRunner().invoke(app, ["show", str(out)], env={"COLUMNS": "400", "TERM": "dumb"})
    assert shown.exit_code == 0, shown.output
    assert LEFT in shown.output.replace("\n", "")


def test_a_run_without_left_out_rows_keeps_the_banner(tmp_path: Path) -> None:
    from winoscope.families.winobias.dataset import UK

    sample = Path(UK.columns.sample_paths()["table"])
    with sample.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    del rows[3]  # a missing variant: a finding that does not block
    short = tmp_path / "wb_short.csv"
    with short.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    out = tmp_path / "run"
    winoscope.run("winobias-uk", "baseline:random", data=short, n_boot=20, out=out, quiet=True)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "computed on these rows as they are" in md and "--skip-bad-rows" not in md
