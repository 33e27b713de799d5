"""What every command shares: the two consoles, the one-line error exits and the help texts of
options that several commands take."""

from __future__ import annotations

import difflib
import re
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

out_console = Console()
err_console = Console(stderr=True)

STRICT_HELP = (
    "Stop with exit status 1, before a model is asked, if any validation check fails; and "
    "exit 1 after writing a degenerate run (at least half of its scored rows invalid)."
)
SKIP_BAD_HELP = (
    "Leave out the rows validation cannot score around (lines that do not parse and their "
    "twins, duplicated ids, values outside the card's) instead of stopping with exit "
    "status 1; the manifest and the reports say how many."
)
FAILED_HELP = (
    "A request that never got an answer: 'exclude' leaves its row out of every denominator, "
    "'wrong' scores it as a wrong answer (the WinoBias-UK card's formula)."
)
SCORER_OPTION_HELP = (
    "Scorer option (repeatable), as the task's scorer declares it (`winoscope tasks` lists "
    "them): -S keep_unpaired=true (English WinoBias), -S labels=superlim -S alpha_invalid=missing "
    "(SweWinogender NLI). An option the scorer does not declare is an error."
)


# "unknown task 'x' (known: a, b)" (every registry) and the prompt templates' wording
_UNKNOWN = (
    re.compile(r"unknown (?P<kind>[\w -]+?) '(?P<name>[^']+)' \(known: (?P<known>[^)]*)\)"),
    re.compile(
        r"unknown (?P<kind>prompt template) '(?P<name>[^']+)'; registered \w+ templates: "
        r"(?P<known>[^(]*)"
    ),
)


def suggestion(message: str) -> str | None:
    """``did you mean ...?`` for an unknown name whose message lists the known ones."""
    for pattern in _UNKNOWN:
        m = pattern.search(message)
        if m is None:
            continue
        known = [k.strip() for k in m.group("known").split(",") if k.strip()]
        close = difflib.get_close_matches(m.group("name"), known, n=3, cutoff=0.6)
        if close:
            return f"did you mean {' or '.join(repr(c) for c in close)}?"
    return None


def print_error(exc: Exception) -> None:
    text = str(exc)
    hint = suggestion(text)
    if hint and hint not in text:
        text = f"{text}; {hint}"
    err_console.print(
        f"[bold red]error:[/] {escape(text)}", highlight=False, soft_wrap=True, markup=True
    )


def fail(exc: Exception) -> NoReturn:
    """A usage, configuration or data-source error: one line on stderr, exit status 2 (3 when
    the error is that requests failed)."""
    from ..errors import RequestsFailed

    print_error(exc)
    raise typer.Exit(3 if isinstance(exc, RequestsFailed) else 2) from None


def fail_validation(exc: Exception) -> NoReturn:
    """Strict validation stopped the run: the findings on stderr, exit status 1."""
    print_error(exc)
    raise typer.Exit(1) from None


def parse_scorer_args(items: list[str] | None) -> dict[str, str]:
    """Every ``-S key=value`` as one mapping; a malformed item or a key given twice is an error."""
    from ..errors import TaskError

    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise TaskError(
                f"-S/--scorer-option {item!r}: expected key=value, e.g. -S labels=superlim"
            )
        if key in out:
            raise TaskError(f"-S/--scorer-option {key} is given twice")
        out[key] = value.strip()
    return out
