"""Which checkpoint answered: a cheap fingerprint, the hub commit, and an optional full hash.

Hashing every weight byte of a 12B model (24 GB) costs minutes on every run, so the store key
and the manifest use a **fingerprint** instead, built from what is cheap to read and changes
with the checkpoint:

- the names and bytes of the small files: ``config.json``, ``generation_config.json``, the
  tokenizer files, the chat template, the safetensors index;
- for each ``.safetensors`` file its JSON header (the first 8 bytes give its length; it lists
  every tensor's name, dtype, shape and byte range) and its size;
- for each weight file, 16 blocks of 4 KiB read at evenly spaced offsets of its data, so two
  fine-tunes of one architecture (identical headers) still differ.

It is not a proof that every byte is the same: ``verify=full`` adds :func:`weights_sha256`, a
sha256 over every file, to the manifest. The hub cache keeps each revision under
``snapshots/<commit>``; :func:`resolved_commit` reads it from the path.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from pathlib import Path
from typing import Any

from ...errors import BackendError

MODEL_FILE_SUFFIXES = (".json", ".safetensors", ".bin", ".model", ".txt", ".jinja")
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
SAMPLE_BLOCKS = 16
SAMPLE_BYTES = 4096
FINGERPRINT_FORMAT = 1
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def weights_sha256(model_dir: Path) -> str:
    """sha256 over the names and contents of the model's config, tokenizer and weight files."""
    digest = hashlib.sha256()
    for p in _model_files(model_dir):
        digest.update(p.relative_to(model_dir).as_posix().encode())
        with p.open("rb") as fh:
            digest.update(hashlib.file_digest(fh, "sha256").digest())
    return digest.hexdigest()


def _model_files(model_dir: Path) -> list[Path]:
    suffixes = set(MODEL_FILE_SUFFIXES) | set(WEIGHT_SUFFIXES)
    return sorted(p for p in model_dir.rglob("*") if p.is_file() and p.suffix in suffixes)


def safetensors_header(path: Path) -> bytes:
    """The JSON header of a safetensors file (its first 8 bytes give the header's length)."""
    with path.open("rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise BackendError(f"{path}: not a safetensors file (too short)")
        (n,) = struct.unpack("<Q", head)
        if n > 100_000_000 or n > path.stat().st_size - 8:
            raise BackendError(
                f"{path}: not a safetensors file (its header length {n} does not fit the file)"
            )
        return fh.read(n)


def _sampled_bytes(path: Path, start: int) -> bytes:
    """``SAMPLE_BLOCKS`` blocks at evenly spaced offsets of the file after ``start``."""
    size = path.stat().st_size
    span = max(size - start - SAMPLE_BYTES, 0)
    out = bytearray()
    with path.open("rb") as fh:
        for k in range(SAMPLE_BLOCKS):
            fh.seek(start + (span * k) // max(SAMPLE_BLOCKS - 1, 1))
            out += fh.read(SAMPLE_BYTES)
    return bytes(out)


def model_fingerprint(model_dir: Path) -> str:
    """sha256 over small files, safetensors headers, file sizes and sampled weight blocks."""
    digest = hashlib.sha256(f"winoscope-fingerprint-{FINGERPRINT_FORMAT}".encode())
    for p in _model_files(model_dir):
        digest.update(b"\0" + p.relative_to(model_dir).as_posix().encode() + b"\0")
        size = p.stat().st_size
        digest.update(str(size).encode())
        if p.suffix == ".safetensors":
            header = safetensors_header(p)
            digest.update(header)
            digest.update(_sampled_bytes(p, 8 + len(header)))
        elif p.suffix in WEIGHT_SUFFIXES:
            digest.update(_sampled_bytes(p, 0))
        else:
            digest.update(p.read_bytes())
    return digest.hexdigest()


def resolved_commit(model_dir: Path) -> str | None:
    """The hub commit of a cached snapshot (``.../snapshots/<commit>``), else None."""
    for part in (model_dir.name, model_dir.resolve().name):
        if _COMMIT.match(part) and model_dir.parent.name == "snapshots":
            return part
    return None


def identity(model_dir: Path) -> dict[str, Any]:
    """What names the checkpoint in ``params`` (and so in the response store's key)."""
    return {"commit": resolved_commit(model_dir), "fingerprint": model_fingerprint(model_dir)}


def config_commit(config: Any) -> str | None:
    """``config._commit_hash`` when transformers recorded one while loading."""
    value = getattr(config, "_commit_hash", None)
    return value if isinstance(value, str) and _COMMIT.match(value) else None


def read_config(model_dir: Path) -> dict[str, Any]:
    """config.json as a dict (empty when it is missing or unreadable)."""
    try:
        data = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
