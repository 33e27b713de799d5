"""The response store: every model answer written to SQLite the moment it arrives.

One row per answer, committed on its own (WAL mode, so a ``kill -9`` loses at most the answers
still in flight, never a committed one). The key is a sha256 of

``{"backend": kind, "model": name, "params": every generation/scoring parameter,
"template": {"name", "text"} of the prompt template, "request": Request.content_hash}``

so a stored answer is only ever served to the same backend, model, parameters, template and
exact prompt with options. A changed temperature, mode or template misses the store and asks
the model again. Failed requests (``Response.error``) are not stored: a resumed run asks them
again.

>>> store = ResponseStore(":memory:")
>>> k = response_key("openai", "m", {"mode": "chat"}, None, "ab12")
>>> store.put(k, Response("r1", "openai", "m", text="B"))
>>> store.get_many([k])[k].text
'B'
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import BackendError
from ..records import Request, Response
from .base import Backend

STORE_FILE = "responses.sqlite"
SCHEMA_VERSION = 1
# Fields of Response kept in the row's JSON payload (request_id, cached and latency are per
# call, not per answer).
PAYLOAD_FIELDS = ("text", "choice", "option_logprobs", "clusters")


def _canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def response_key(
    backend: str,
    model: str,
    params: Mapping[str, Any],
    template: Mapping[str, Any] | None,
    content_hash: str,
) -> str:
    """The store key of one answer (a sha256 hex digest)."""
    blob = _canonical(
        {
            "backend": backend,
            "model": model,
            "params": dict(params),
            "template": None if template is None else dict(template),
            "request": content_hash,
        }
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _encode_float(x: float) -> Any:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    return x


def _decode_float(x: Any) -> float:
    return float(x)


def _tuples(obj: Any) -> Any:
    if isinstance(obj, list):
        return tuple(_tuples(x) for x in obj)
    return obj


def encode_payload(resp: Response) -> str:
    payload: dict[str, Any] = {}
    for name in PAYLOAD_FIELDS:
        value = getattr(resp, name, None)
        if value is None:
            continue
        if name == "option_logprobs":
            value = [_encode_float(float(x)) for x in value]
        payload[name] = value
    return _canonical(payload)


def decode_payload(text: str) -> dict[str, Any]:
    payload = json.loads(text)
    out: dict[str, Any] = {}
    for name, value in payload.items():
        if name == "option_logprobs":
            out[name] = tuple(_decode_float(x) for x in value)
        elif name == "clusters":
            out[name] = _tuples(value)
        else:
            out[name] = value
    return out


class ResponseStore:
    """SQLite file of answers; safe to use from one process with several threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: each commit is in the log before put() returns; a process kill
            # keeps it (only a power cut may drop the last few).
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY,"
                " backend TEXT NOT NULL,"
                " model TEXT NOT NULL,"
                " content_hash TEXT,"
                " payload TEXT NOT NULL,"
                " latency_s REAL,"
                " created REAL NOT NULL)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            self._db.execute(
                "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise BackendError(f"response store {self.path} cannot be opened: {exc}") from None

    def __enter__(self) -> ResponseStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def put(self, key: str, resp: Response, content_hash: str | None = None) -> None:
        """Write one answer and commit it; errors are never stored."""
        if resp.error is not None:
            return
        row = (
            key,
            resp.backend,
            resp.model,
            content_hash,
            encode_payload(resp),
            resp.latency_s,
            time.time(),
        )
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses"
                " (key, backend, model, content_hash, payload, latency_s, created)"
                " VALUES (?,?,?,?,?,?,?)",
                row,
            )
            self._db.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        """Stored answers for ``keys`` (missing keys are absent), marked ``cached=True``.

        The returned responses carry an empty ``request_id``; the caller sets its own.
        """
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Response] = {}
        with self._lock:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                marks = ",".join("?" * len(chunk))
                for key, backend, model, payload, latency in self._db.execute(
                    "SELECT key, backend, model, payload, latency_s FROM responses"
                    f" WHERE key IN ({marks})",
                    chunk,
                ):
                    found[key] = Response(
                        request_id="",
                        backend=backend,
                        model=model,
                        cached=True,
                        latency_s=latency,
                        **decode_payload(payload),
                    )
        return found

    def keys(self) -> set[str]:
        with self._lock:
            return {k for (k,) in self._db.execute("SELECT key FROM responses")}


@dataclass
class StoredRun:
    """What the store already holds for one run's requests, and what is left to ask.

    Requests with the same key (the same prompt asked twice) are asked once; every one of them
    gets the answer. ``record`` writes an answer and returns it once per request sharing its
    key, with that request's id.
    """

    store: ResponseStore | None
    keys: dict[str, str]
    cached: dict[str, Response]
    to_ask: list[Request]
    followers: dict[str, list[Request]] = field(default_factory=dict)
    content_hashes: dict[str, str] = field(default_factory=dict)
    asked: int = 0

    def record(self, resp: Response) -> list[Response]:
        key = self.keys[resp.request_id]
        self.asked += 1
        if self.store is not None:
            self.store.put(key, resp, content_hash=self.content_hashes.get(key))
        return [resp] + [
            replace(resp, request_id=r.request_id) for r in self.followers.get(key, [])
        ]


def plan_run(
    backend: Backend,
    requests: Sequence[Request],
    store: ResponseStore | None,
    *,
    template: Mapping[str, Any] | None,
    resume: bool = True,
) -> StoredRun:
    """Split ``requests`` into answers already stored and requests still to ask.

    With ``resume=False`` nothing is read from the store (every request is asked and its row
    overwritten). Backends with ``cacheable = False`` bypass the store entirely.
    """
    use = store if store is not None and getattr(backend, "cacheable", True) else None
    hashes = {r.request_id: r.content_hash for r in requests}
    keys = {
        rid: response_key(backend.kind, backend.model, backend.params, template, h)
        for rid, h in hashes.items()
    }
    hits = use.get_many(keys.values()) if (use is not None and resume) else {}
    cached: dict[str, Response] = {}
    to_ask: list[Request] = []
    first: dict[str, Request] = {}
    followers: dict[str, list[Request]] = {}
    for req in requests:
        key = keys[req.request_id]
        if key in hits:
            cached[req.request_id] = replace(hits[key], request_id=req.request_id)
        elif use is not None and key in first:
            followers.setdefault(key, []).append(req)
        else:
            first[key] = req
            to_ask.append(req)
    content = {keys[rid]: h for rid, h in hashes.items()}
    return StoredRun(use, keys, cached, to_ask, followers, content)
