"""JSON files as winoscope writes them: NaN as null, numpy scalars as Python numbers.

A low module (no winoscope imports) so that validation, the reports, the comparisons and the
CLI all write JSON the same way without importing each other.
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path
from typing import Any


def json_safe(obj: Any) -> Any:
    """JSON-safe: NaN and ``pd.NA`` -> None, numpy scalars -> Python, keys -> str.

    >>> json_safe({1: [float("nan"), 2.5]})
    {'1': [None, 2.5]}
    """
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, str):
        with contextlib.suppress(ValueError, AttributeError):
            obj = obj.item()
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if type(obj).__name__ == "NAType":  # pandas.NA, without importing pandas here
        return None
    return obj


def write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as indented UTF-8 JSON (non-ASCII kept) with a final newline."""
    path.write_text(
        json.dumps(json_safe(obj), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
