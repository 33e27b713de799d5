"""What every command shares: the two consoles, the one-line error exits and the help texts of
options that several commands take."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

out_console = Console()
err_console = Console(stderr=True)

STRICT_HELP = "Stop with exit status 1, before a model is asked, if any validation check fails."
UNPAIRED_HELP = (
    "Keep items whose variants differ beyond the pronoun (English WinoBias: 22) in pair "
    "consistency and McNemar; by default they are left out and counted."
)
FAILED_HELP = (
    "A request that never got an answer: 'exclude' leaves its row out of every denominator, "
    "'wrong' scores it as a wrong answer (the WinoBias-UK card's formula)."
)
LABELS_HELP = (
    "SweWinogender NLI labels: 'binary' reads contradiction as neutral (the set's labels are "
    "binary); 'superlim' compares labels exactly, as SuperLim's evaluation script does, and "
    "adds its published parity formula."
)
ALPHA_INVALID_HELP = (
    "SweWinogender: how an 'invalid' answer enters Krippendorff's alpha: 'value' (a category "
    "of its own, the default) or 'missing' (the item is left out of alpha)."
)


def print_error(exc: Exception) -> None:
    err_console.print(
        f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True, markup=True
    )


def fail(exc: Exception) -> NoReturn:
    """A usage, configuration or data-source error: one line on stderr, exit status 2."""
    print_error(exc)
    raise typer.Exit(2) from None


def fail_validation(exc: Exception) -> NoReturn:
    """Strict validation stopped the run: the findings on stderr, exit status 1."""
    print_error(exc)
    raise typer.Exit(1) from None
