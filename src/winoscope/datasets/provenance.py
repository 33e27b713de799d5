"""What identifies the data a run scored: a hash of the loaded table and the hub commit.

``table_sha256`` hashes the *typed* table, not the file: the same rows read from CSV, JSON lines
or Parquet give the same hash, and a changed cell, row or column gives another. Each table is
dumped as canonical JSON lines (columns sorted by name; one object per row, in the loaded
order; every value as text: integers without a decimal point, integral floats as integers,
booleans as ``true``/``false``, missing values as ``null``, lists as compact JSON), preceded by
its name, and the dump is hashed with SHA-256.

``resolve_hub_commit`` finds the commit a hub load used even when no ``--revision`` was given.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

COMMIT = re.compile(r"^[0-9a-f]{40}$")


def _canonical(value: Any) -> str | None:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "true" if bool(value) else "false"
    if hasattr(value, "tolist") and not isinstance(value, str):
        value = value.tolist()  # numpy scalars and arrays (Parquet list columns)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return str(value)


def table_sha256(tables: Mapping[str, pd.DataFrame | None]) -> str:
    """SHA-256 of the canonical JSON-lines dump of each named table (see module docstring)."""
    h = hashlib.sha256()
    for name in sorted(tables):
        frame = tables[name]
        if frame is None:
            continue
        columns = sorted(str(c) for c in frame.columns)
        head = json.dumps({"columns": columns, "table": name}, separators=(",", ":"))
        h.update(head.encode("utf-8") + b"\n")
        data = {str(c): frame[c].astype(object).tolist() for c in frame.columns}
        for i in range(len(frame)):
            row = {c: _canonical(data[c][i]) for c in columns}
            line = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            h.update(line.encode("utf-8") + b"\n")
    return h.hexdigest()


def _hub_cache() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    try:
        from huggingface_hub import constants

        return Path(constants.HF_HUB_CACHE)
    except ImportError:  # pragma: no cover - huggingface_hub comes with datasets
        home = os.environ.get("HF_HOME", str(Path.home() / ".cache" / "huggingface"))
        return Path(os.environ.get("HF_HUB_CACHE", str(Path(home) / "hub")))


def _snapshot_commit(path: Path) -> str | None:
    """The commit of a hub cache snapshot folder (``datasets--o--n/snapshots/<commit>``)."""
    p = path.resolve()
    for part in (p, *p.parents):
        in_snapshots = part.parent.name == "snapshots"
        if (
            COMMIT.match(part.name)
            and in_snapshots
            and part.parent.parent.name.startswith("datasets--")
        ):
            return part.name
    return None


def resolve_hub_commit(
    repo_id: str,
    revision: str | None = None,
    *,
    cache_files: Iterable[str] = (),
    ask_hub: bool = True,
) -> tuple[str | None, str]:
    """The 40-hex commit a hub load used, and how it was found.

    In order: ``revision`` itself when it is a commit; a local directory that is a hub cache
    snapshot (``…/datasets--owner--name/snapshots/<commit>``); a commit in the path of the
    loaded files (the datasets cache keeps hub data under the commit); the hub cache's ref for
    ``revision`` (default ``main``); the hub's dataset info (skipped offline). A local directory
    laid out like the hub but outside its cache has no commit: ``(None, "local directory")``.
    """
    if revision and COMMIT.match(revision):
        return revision, "revision"
    local = Path(repo_id)
    if local.is_dir():
        commit = _snapshot_commit(local)
        return (commit, "hub cache snapshot") if commit else (None, "local directory")
    for f in cache_files:
        for part in Path(f).parts:
            if COMMIT.match(part):
                return part, "datasets cache"
    ref = _hub_cache() / f"datasets--{repo_id.replace('/', '--')}" / "refs" / (revision or "main")
    if ref.is_file():
        text = ref.read_text(encoding="utf-8").strip()
        if COMMIT.match(text):
            return text, "hub cache ref"
    if ask_hub and os.environ.get("HF_HUB_OFFLINE", "").lower() not in {"1", "true", "yes"}:
        try:
            from huggingface_hub import HfApi

            sha = HfApi().dataset_info(repo_id, revision=revision).sha
            if sha and COMMIT.match(sha):
                return sha, "hub"
        except Exception:  # offline, unknown repo, no permission: left unresolved
            pass
    return None, "unresolved"
