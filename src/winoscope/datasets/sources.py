"""Reading tables from local files and from the Hugging Face hub.

Everything is read as strings first (so that coercion, not the reader, decides types and can
name the bad row); Parquet and hub data keep their native types and are coerced the same way.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DatasetError, not_utf8
from .provenance import resolve_hub_commit

TABLE_SUFFIXES = {".csv", ".tsv", ".jsonl", ".json", ".parquet", ".pq"}


@dataclass(frozen=True)
class SourceInfo:
    """Where a dataset came from; written to the run manifest."""

    kind: str  # "hub" | "file" | "url" | "sample"
    location: str
    revision: str | None = None
    sha256: str | None = None
    config: str | None = None
    split: str | None = None
    # hub loads: the commit actually loaded (also without ``revision``) and how it was found
    commit: str | None = None
    commit_from: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _jsonl_rows(lines: Iterable[str], where: str) -> pd.DataFrame:
    """One row per JSON object line; a finding names the record (``row``) and the file's line
    (``line``, blank lines counted)."""
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(
                f"not valid JSON: {exc.msg.removesuffix(' at')} (column {exc.colno})",
                file=where,
                row=len(rows) + 1,
                line=number,
            ) from None
        if not isinstance(obj, dict):
            raise DatasetError(
                f"each line must be a JSON object, got {type(obj).__name__}",
                file=where,
                row=len(rows) + 1,
                line=number,
            )
        rows.append(obj)
    return pd.DataFrame(rows)


def _json_array_rows(text: str, where: str) -> pd.DataFrame:
    """A ``.json`` file holding one array of objects (rather than one object a line)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(
            f"not valid JSON: {exc.msg.removesuffix(' at')} (column {exc.colno})",
            file=where,
            line=exc.lineno,
        ) from None
    for i, obj in enumerate(data, start=1):
        if not isinstance(obj, dict):
            raise DatasetError(
                f"each element of the array must be a JSON object, got {type(obj).__name__}",
                file=where,
                row=i,
            )
    return pd.DataFrame(data)


def _read_jsonl(path: Path) -> pd.DataFrame:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json" and text.lstrip().startswith("["):
        return _json_array_rows(text, str(path))
    return _jsonl_rows(text.splitlines(), str(path))


def read_table(path: str | Path) -> pd.DataFrame:
    """Read CSV, TSV, JSONL/JSON-lines or Parquet into a DataFrame of raw values."""
    p = Path(path)
    if not p.exists():
        raise DatasetError("no such file", file=str(p))
    if p.is_dir():
        raise DatasetError("expected a file, got a directory", file=str(p))
    suffix = p.suffix.lower()
    try:
        if suffix == ".csv":
            df = pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[])
        elif suffix == ".tsv":
            df = pd.read_csv(p, sep="\t", dtype=str, keep_default_na=False, na_values=[])
        elif suffix in {".jsonl", ".json"}:
            df = _read_jsonl(p)
        elif suffix in {".parquet", ".pq"}:
            df = pd.read_parquet(p)
        else:
            raise DatasetError(
                f"unsupported file type '{suffix}' (use one of {', '.join(sorted(TABLE_SUFFIXES))})",
                file=str(p),
            )
    except pd.errors.EmptyDataError:
        raise DatasetError("the file is empty", file=str(p)) from None
    except UnicodeDecodeError:
        raise not_utf8(str(p)) from None
    except pd.errors.ParserError as exc:
        raise _parse_error(exc, str(p)) from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, DatasetError):
            raise
        raise DatasetError(f"cannot parse: {str(exc).strip()}", file=str(p)) from None
    if suffix in {".csv", ".tsv"}:
        _unique_header(p, "\t" if suffix == ".tsv" else ",")
    return df


def _parse_error(exc: pd.errors.ParserError, where: str) -> DatasetError:
    """A CSV/TSV line pandas cannot split, named by file and line as a bad JSON line is
    (``expected 17 fields, saw 18``), not by the tokenizer's message and its blank line."""
    import re

    text = str(exc).strip()
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", text)
    if m is None:
        return DatasetError(f"cannot parse: {text}", file=where)
    expected, line, saw = (int(g) for g in m.groups())
    return DatasetError(f"expected {expected} fields, saw {saw}", file=where, line=line)


def _unique_header(p: Path, sep: str) -> None:
    """A column named twice in a CSV/TSV header is an error (pandas would rename the second
    ``name.1`` and one of them would be read silently)."""
    import csv

    with p.open(encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    seen: set[str] = set()
    twice = [c for c in header if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
    if twice:
        raise DatasetError(
            f"column(s) {', '.join(sorted(set(twice)))} appear more than once in the header",
            file=str(p),
            field=twice[0],
        )


def load_hub_table(
    repo_id: str,
    *,
    config: str | None = None,
    split: str | None = None,
    revision: str | None = None,
    cache_dir: str | None = None,
) -> tuple[pd.DataFrame, SourceInfo]:
    """Load one split (or all splits, concatenated with a ``split`` column) from the hub.

    ``repo_id`` may also be a local directory laid out like the hub repository, which is how the
    tests exercise this path. ``revision`` pins a commit, tag or branch on the hub. The
    returned source records the commit that was loaded (``commit``, see
    :func:`~winoscope.datasets.provenance.resolve_hub_commit`).
    """
    from ..extras import require

    # imported here: it is slow to import, and only this reader needs it (the hub extra)
    datasets = require("datasets", "reading a dataset from the Hugging Face hub")

    kwargs: dict[str, Any] = {}
    if revision:
        kwargs["revision"] = revision
    if cache_dir:
        kwargs["cache_dir"] = cache_dir
    try:
        loaded = datasets.load_dataset(repo_id, config, split=split, **kwargs)
    except Exception as exc:  # datasets raises many unrelated types; name the source
        raise DatasetError(
            f"cannot load from the hub: {type(exc).__name__}: {exc}", file=repo_id
        ) from None
    if isinstance(loaded, datasets.DatasetDict):
        frames = []
        for name, ds in loaded.items():
            frame = ds.to_pandas()
            if "split" not in frame.columns:
                frame["split"] = name
            frames.append(frame)
        df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    else:
        df = loaded.to_pandas()
        if split and "split" not in df.columns:
            df["split"] = split
    parts = loaded.values() if isinstance(loaded, datasets.DatasetDict) else [loaded]
    cache_files = [f.get("filename", "") for part in parts for f in part.cache_files]
    commit, found = resolve_hub_commit(repo_id, revision, cache_files=cache_files)
    info = SourceInfo(
        kind="hub",
        location=repo_id,
        revision=revision,
        config=config,
        split=split,
        commit=commit,
        commit_from=found,
    )
    return df, info


def read_table_url(url: str, *, timeout: float = 60.0) -> tuple[pd.DataFrame, SourceInfo]:
    """Read one table file over HTTP(S), e.g. SuperLim 2's raw JSON lines file.

    The file type comes from the URL's suffix (CSV, TSV, Parquet); anything else is read as
    JSON lines, the format the released NLI sets use.
    """
    import httpx

    try:
        resp = httpx.get(url, timeout=timeout, follow_redirects=True)
        resp.raise_for_status()
    except httpx.HTTPError as exc:
        raise DatasetError(f"cannot download: {exc}", file=url) from None
    suffix = Path(url.split("?", 1)[0]).suffix.lower()
    try:
        if suffix in {".csv", ".tsv"}:
            sep = "\t" if suffix == ".tsv" else ","
            blob = io.BytesIO(resp.content)
            df = pd.read_csv(blob, sep=sep, dtype=str, keep_default_na=False, na_values=[])
        elif suffix in {".parquet", ".pq"}:
            df = pd.read_parquet(io.BytesIO(resp.content))
        else:
            df = _jsonl_rows(resp.text.splitlines(), url)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, DatasetError):
            raise
        raise DatasetError(f"cannot parse: {exc}", file=url) from None
    info = SourceInfo(kind="url", location=url, sha256=hashlib.sha256(resp.content).hexdigest())
    return df, info
