"""Backend options from the command line: ``-M/--model-arg key=value`` (repeatable).

The value is read as JSON when it parses (``batch_size=16`` is the number 16, ``chat=false``
the boolean, ``device_map={"":0}`` a mapping, ``stop=["\\n"]`` a list) and is the plain string
otherwise (``dtype=bfloat16``, ``system=Answer briefly.``); quote a JSON string to keep a value
that would parse as something else a string (``revision="2024"``). Dashes in a key are read as
underscores (``max-new-tokens`` is ``max_new_tokens``). Every option reaches the backend's
factory, which rejects the ones it does not know, naming the backend and the options it takes.

The ``run`` command's own backend flags (``--mode``, ``--base-url``, ``--concurrency`` ...) are
the same options spelled as flags: a flag that is given becomes one option beside the ``-M``
items, and the backend parses them all once, with its own defaults. ``-M`` may set any of them
instead of the flag; giving the same option both ways is an error rather than a silent
precedence rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
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


def backend_options(model_args: Iterable[str] | None, **flags: Any) -> dict[str, Any]:
    """The backend's options from a command line: the flags that were given (not None) and every
    ``-M`` item, checked only for clashes here; the backend's factory parses and checks them all
    (an option it does not take is an error naming the backend, so ``--concurrency`` given to
    ``hf:`` is refused rather than ignored). Defaults are the backend's own.

    >>> backend_options(["batch_size=16"], mode="texts", concurrency=None)
    {'mode': 'texts', 'batch_size': 16}
    """
    given = {k: v for k, v in flags.items() if v is not None}
    extra = parse_model_args(model_args)
    both = sorted(k for k in extra if k in given)
    if both:
        raise BackendError(
            "option(s) given twice, as a flag and with -M: "
            + ", ".join(f"--{k.replace('_', '-')} and -M {k}" for k in both)
        )
    return {**given, **extra}
