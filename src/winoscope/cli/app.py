"""The ``winoscope`` typer app: every command group's commands, in the order ``--help`` lists
them, and the console script's entry point."""

from __future__ import annotations

import sys

import typer

from . import (
    coref,
    datasets,
    demo,
    env,
    fairness_board,
    occupations,
    results,
    run,
    score,
    study,
    sweep,
)
from .common import err_console
from .usage_errors import OneLineErrors

app = typer.Typer(
    cls=OneLineErrors,
    add_completion=False,
    no_args_is_help=True,
    help="Measure gender bias in coreference on Winogender-style diagnostic sets.",
)
app.command("tasks")(datasets.tasks_cmd)
app.command("templates")(datasets.templates_cmd)
app.command("validate")(datasets.validate)
app.command("run")(run.run)
app.command("score")(score.score)
app.command("demo")(demo.demo)
app.command("compare")(results.compare)
app.command("leaderboard")(results.leaderboard)
app.command("show")(results.show)
app.command("correlate")(occupations.correlate)
app.command("associate")(occupations.associate)
app.command("coref-export")(coref.coref_export)
app.command("diff")(results.diff)
app.command("crosslingual")(results.crosslingual)
app.command("fairness-board")(fairness_board.fairness_board)
app.command("sweep")(sweep.sweep)
app.add_typer(study.app, name="study")
app.command("env")(env.env)


def main() -> None:
    """The ``winoscope`` console script."""
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
