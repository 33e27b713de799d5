"""Backend options from the command line: ``-M/--model-arg key=value`` (repeatable).

The value is read as JSON when it parses (``batch_size=16`` is the number 16, ``chat=false``
the boolean, ``device_map={"":0}`` a mapping, ``stop=["\\n"]`` a list) and is the plain string
otherwise (``dtype=bfloat16``, ``system=Answer briefly.``); quote a JSON string to keep a value
that would parse as something else a string (``revision="2024"``). Dashes in a key are read as
underscores (``max-new-tokens`` is ``max_new_tokens``). Every option reaches the backend's
factory, which rejects the ones it does not know, naming the backend and the options it takes.

The ``run`` command's own backend flags (``--mode``, ``--base-url``, ``--concurrency`` ...) are
options too. ``-M`` may set any of them instead of the flag; giving the same option both as a
flag on the command line and with ``-M`` is an error rather than a silent precedence rule. A
flag left at its default gives way to ``-M``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import BackendError

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# set by the run command itself, not a backend option
RESERVED = {"seed": "--seed"}


def parse_model_arg(item: str) -> tuple[str, Any]:
    """``key=value`` -> (key, value), the value parsed as JSON when it parses."""
    key, sep, raw = item.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not _KEY.fullmatch(key):
        raise BackendError(
            f"-M/--model-arg {item!r}: expected key=value, e.g. -M dtype=bfloat16 or "
            "-M batch_size=16"
        )
    if key in RESERVED:
        raise BackendError(f"-M/--model-arg {key}: set it with {RESERVED[key]}")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    return key, value


def parse_model_args(items: Iterable[str] | None) -> dict[str, Any]:
    """Every ``-M`` item as one mapping; a key given twice is an error."""
    out: dict[str, Any] = {}
    for item in items or ():
        key, value = parse_model_arg(item)
        if key in out:
            raise BackendError(f"-M/--model-arg {key} is given twice")
        out[key] = value
    return out


def merge_backend_options(
    flags: Mapping[str, Any], model_args: Mapping[str, Any], explicit: Iterable[str] = ()
) -> dict[str, Any]:
    """The backend's options: the command's flags, then ``-M`` on top.

    ``explicit`` names the flags given on the command line (not left at their default); an
    option set both by such a flag and by ``-M`` is an error naming both.
    """
    given = set(explicit)
    both = sorted(k for k in model_args if k in given)
    if both:
        raise BackendError(
            "option(s) given twice, as a flag and with -M: "
            + ", ".join(f"--{k.replace('_', '-')} and -M {k}" for k in both)
        )
    return {**flags, **model_args}


def given_on_command_line(ctx: Any) -> set[str]:
    """The parameters of a click/typer command that the user set (not left at the default).

    Compared by the source's name: typer may carry its own copy of click's ParameterSource.
    """
    chosen = {"COMMANDLINE", "ENVIRONMENT"}
    names = [p.name for p in ctx.command.params if p.name]
    return {n for n in names if getattr(ctx.get_parameter_source(n), "name", None) in chosen}
