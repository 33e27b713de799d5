"""Tags: what was done to the model, as the experimenter names it (``method=steer alpha=4``).

A tag is ``key=value``. Keys are identifiers (letters, digits, ``_``, ``-``, ``.``); a value
that reads as a number is kept as one (``alpha=10`` is the integer 10, ``lr=3e-4`` a float),
so runs sort by it numerically everywhere (``alpha=2`` before ``alpha=10``); any other value
is a string. Tags are recorded in the manifest and shown by every report, ``show``,
``compare``, ``diff`` and ``sweep``; they describe a run and never key stored answers (what the
model *is* does that: its identity).

>>> parse_tags(["alpha=10", "method=steer", "lr=3e-4"])
{'alpha': 10, 'method': 'steer', 'lr': 0.0003}
>>> sorted([10, 2, "base"], key=tag_sort_key)
[2, 10, 'base']
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import WinoscopeError

TagValue = str | int | float | bool
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


class TagError(WinoscopeError):
    """A tag that is not ``key=value`` with an identifier key and a plain value."""


def tag_value(raw: Any) -> TagValue:
    """A number when the text reads as one, else the text; numbers and booleans stay."""
    if isinstance(raw, bool | int):
        return raw
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise TagError(f"tag value {raw!r}: not a finite number")
        return raw
    if not isinstance(raw, str):
        raise TagError(f"tag value {raw!r}: expected a string or a number")
    text = raw.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise TagError(
            f"tag key {key!r}: expected a name of letters, digits, _, - and . (e.g. alpha)"
        )
    return key


def normalize_tags(tags: Mapping[str, Any] | None) -> dict[str, TagValue]:
    """Tags from Python (``tags={"alpha": 4}``): keys checked, values typed."""
    return {check_key(k): tag_value(v) for k, v in (tags or {}).items()}


def parse_tag(item: str) -> tuple[str, TagValue]:
    key, sep, raw = item.partition("=")
    if not sep:
        raise TagError(f"--tag {item!r}: expected key=value, e.g. --tag alpha=4")
    return check_key(key.strip()), tag_value(raw)


def parse_tags(items: Iterable[str] | None) -> dict[str, TagValue]:
    """``--tag`` values of the command line; a key given twice is an error."""
    out: dict[str, TagValue] = {}
    for item in items or ():
        key, value = parse_tag(item)
        if key in out:
            raise TagError(f"--tag {key} given twice ({out[key]!r} and {value!r})")
        out[key] = value
    return out


def tag_sort_key(value: Any) -> tuple[int, float, str]:
    """Numbers first in numeric order, then text in alphabetical order, missing values last."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (2, 0.0, "")
    if isinstance(value, bool):
        return (1, 0.0, str(value))
    if isinstance(value, int | float):
        return (0, float(value), "")
    parsed = tag_value(str(value))
    if isinstance(parsed, int | float) and not isinstance(parsed, bool):
        return (0, float(parsed), "")
    return (1, 0.0, str(value))


def format_tags(tags: Mapping[str, Any] | None) -> str:
    """``alpha=4 method=steer`` in the order given; empty when there are none."""
    return " ".join(f"{k}={v}" for k, v in (tags or {}).items())


def numeric_values(values: Iterable[Any]) -> list[float] | None:
    """The values as numbers when every one is numeric (an x axis), else None (categories)."""
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float):
            return None
        out.append(float(v))
    return out
