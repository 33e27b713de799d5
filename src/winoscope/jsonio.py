"""JSON files as winoscope writes them: NaN as null, numpy scalars as Python numbers; and every
file written whole or not at all (:func:`atomic_path`: a temporary file beside the target,
renamed into place, so an interrupted write leaves the earlier file, never half of a new one).

A low module (no winoscope imports) so that validation, the reports, the comparisons and the
CLI all write JSON the same way without importing each other.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Iterator
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
    write_atomic(path, json.dumps(json_safe(obj), ensure_ascii=False, indent=2) + "\n")


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block ends
    without an error, removed when it raises."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would hide the file from the group
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask, read without changing it (setting it to read it back is not
    thread-safe); 0o022 where the kernel does not say."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file renamed into place."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_csv(path: str | Path, frame: Any, **options: Any) -> None:
    """Write a pandas frame as CSV (no index) through a temporary file renamed into place."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, **options)
