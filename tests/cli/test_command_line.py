"""The command line people expect: ``python -m winoscope``, ``templates``, a readable
``run --help``, whole task names, suggestions for unknown names, a partial run said so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.tasks import TASKS


def cli(*args: str, columns: int = 80) -> tuple[int, str]:
    res = CliRunner().invoke(
        app, list(args), catch_exceptions=False, env={"COLUMNS": str(columns), "TERM": "dumb"}
    )
    return res.exit_code, res.output


def test_python_dash_m_winoscope() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "winoscope", "tasks", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"winobias-uk"' in proc.stdout


def test_templates_lists_names_and_text() -> None:
    code, out = cli("templates")
    assert code == 0
    assert "uk-plain-v1 (uk, choice)" in out and "{sentence}" in out
    assert "cloze" in out  # the cloze templates too
    code, out = cli("templates", "winobias-en")
    assert code == 0 and out.splitlines()[0].startswith("en-default-v1 (en, choice)")
    assert "uk-default-v1" not in out  # only the task's own
    code, out = cli("templates", "winobias-uks")
    assert code == 2 and "did you mean 'winobias-uk'" in out


def test_run_help_reads_well_at_80_columns() -> None:
    code, out = cli("run", "--help")
    assert code == 0
    lines = out.splitlines()
    assert max(len(x) for x in lines) <= 80
    for panel in ("Data", "Model", "Protocol", "Statistics", "Output", "OpenAI server"):
        assert any(x.startswith(f"╭─ {panel}") for x in lines), panel
    assert "…" not in out  # no name or word cut off
    flags = [x for x in lines if "<bool>" in x]
    assert all("--help" in x for x in flags), flags  # a flag shows no value type
    assert "--skip-bad-rows" in out and "--base-url" in out


def test_tasks_never_truncates_a_task_name() -> None:
    code, out = cli("tasks", columns=60)
    assert code == 0
    rows = [x.split("│")[1].strip() for x in out.splitlines() if x.startswith("│")]
    for name in TASKS.names():
        assert name in rows, (name, rows)


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (("run", "winobias-ukk", "-m", "baseline:agreement"), "did you mean 'winobias-uk'"),
        (("run", "winobias-uk", "-m", "baselin:agreement"), "did you mean 'baseline'"),
        (("run", "winobias-uk", "-m", "baseline:agreemen"), "did you mean 'agreement'"),
        (("run", "winobias-uk", "-m", "baseline:first", "--template", "uk-plain-v2"), "'uk-plain-v1'"),
        (("validate", "winopron-k"), "did you mean 'winopron-uk'"),
    ],
)  # fmt: skip
def test_unknown_names_suggest_the_closest(
    tmp_path: Path, args: tuple[str, ...], hint: str
) -> None:
    code, out = cli(*args, "--out", str(tmp_path / "r")) if args[0] == "run" else cli(*args)
    assert code == 2 and hint in out.replace("\n", " "), out


def test_a_limit_run_says_it_is_partial_in_the_terminal(tmp_path: Path) -> None:
    code, out = cli("run", "winobias-uk", "-m", "baseline:first", "--limit", "1", "-q",
                    "--bootstrap", "10", "--out", str(tmp_path / "r"), columns=200)  # fmt: skip
    assert code == 0, out
    assert "Partial run (--limit 1)" in out and "a smoke test, not a result" in out
