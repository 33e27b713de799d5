"""Command-line usage errors (an unknown option, a value out of range, a missing argument) as
the one ``error:`` line every other refusal of the command line prints, with exit status 2,
instead of Click's usage box."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer 0.22 and newer carry their own copy of Click
    from typer import _click as click  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # older typer uses Click itself
    import click  # type: ignore[no-redef,unused-ignore]

from .common import print_error


class UsageError(Exception):
    """Click's message with the command to ask for help, shown by :func:`print_error`."""


class OneLineErrors(TyperGroup):
    """The top-level group: parses in Click's non-standalone mode so that a usage error reaches
    here, prints it in one line and exits 2. Calling for no command still prints the help."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # a bare command: its help
                return super().main(args, prog_name, complete_var, True, **extra)
            where = exc.ctx.command_path if exc.ctx is not None else "winoscope"
            print_error(UsageError(f"{exc.format_message().rstrip('.')} (see '{where} --help')"))
            sys.exit(exc.exit_code)
        except click.exceptions.ClickException as exc:
            print_error(UsageError(exc.format_message()))
            sys.exit(exc.exit_code)
        except typer.Abort:
            print_error(UsageError("aborted"))
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)
