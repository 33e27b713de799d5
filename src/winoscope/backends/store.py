"""The response store: every model answer written to SQLite the moment it arrives.

One row per answer, committed within :data:`COMMIT_WITHIN_S` of its arrival (WAL mode): the
answers that arrive together (a backend's batch, a burst of server replies) share one commit, so
a ``kill -9`` loses at most the answers still in flight and those of the last 50 ms, never a
committed one. Committing each answer alone cost about 100 µs per answer, as much as everything
else a 175,000-request run does outside the model (``benchmarks/bench_bbq_full.py``). A row's
key is the pair

- ``scope``: sha256 of ``{"backend": kind, "model": name, "params": every generation/scoring
  parameter, "template": {"name", "text"} of the prompt template}`` (the ``scopes`` table keeps
  that description beside the hash, so a store can be read by people), and
- ``content_hash``: :attr:`Request.content_hash`, the hash of what the model sees,

so a stored answer is only ever served to the same backend, model, parameters, template and
exact prompt with options. A changed temperature, mode or template is another scope: it misses
the store and asks the model again. Failed requests (``Response.error``) are not stored: a
resumed run asks them again.

>>> store = ResponseStore(":memory:")
>>> scope = store.scope("openai", "m", {"mode": "chat"}, None)
>>> store.put(scope, "ab12", Response("r1", "openai", "m", text="B"))
>>> store.get_scope(scope)["ab12"].text
'B'
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import BackendError
from ..records import Request, Response
from .base import Backend

STORE_FILE = "responses.sqlite"
SCHEMA_VERSION = 3
#: the longest an answer waits for its commit (a timer commits a quiet store's last answers)
COMMIT_WITHIN_S = 0.05
#: answers committed together at most
COMMIT_EVERY = 1024
# Fields of Response kept in the row's JSON payload beside the ``text`` and ``choice`` columns
# (request_id, cached and latency are per call, not per answer).
PAYLOAD_FIELDS = (
    "option_logprobs",
    "option_token_counts",
    "letter_mass",
    "finish_reason",
    "clusters",
)


def _canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def scope_description(
    backend: str, model: str, params: Mapping[str, Any], template: Mapping[str, Any] | None
) -> str:
    """The canonical JSON text whose sha256 is the scope."""
    return _canonical(
        {
            "backend": backend,
            "model": model,
            "params": dict(params),
            "template": None if template is None else dict(template),
        }
    )


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


def encode_payload(resp: Response) -> str | None:
    """JSON of the answer fields other than text and choice; None when there are none."""
    payload: dict[str, Any] = {}
    for name in PAYLOAD_FIELDS:
        value = getattr(resp, name, None)
        if value is None:
            continue
        if name == "option_logprobs":
            value = [_encode_float(float(x)) for x in value]
        elif name == "letter_mass":
            value = _encode_float(float(value))
        payload[name] = value
    return _canonical(payload) if payload else None


def decode_payload(text: str) -> dict[str, Any]:
    payload = json.loads(text)
    out: dict[str, Any] = {}
    for name, value in payload.items():
        if name == "option_logprobs":
            out[name] = tuple(_decode_float(x) for x in value)
        elif name in ("clusters", "option_token_counts"):
            out[name] = _tuples(value)
        elif name == "letter_mass":
            out[name] = _decode_float(value)
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
        self._pending = 0
        self._since = 0.0
        self._timer: threading.Timer | None = None
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: each commit is in the log before put() returns; a process kill
            # keeps it (only a power cut may drop the last few).
            self._db.execute("PRAGMA synchronous=NORMAL")
            # answers arrive in content-hash order, i.e. at random places of the key's B-tree:
            # a page cache of up to 64 MB (SQLite's default is 2 MB) keeps a release-sized run's
            # inserts in memory (175,000 answers: 8.0 s of CPU instead of 10.5 s)
            self._db.execute("PRAGMA cache_size=-65536")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " scope TEXT NOT NULL,"
                " content_hash TEXT NOT NULL,"
                " backend TEXT NOT NULL,"
                " model TEXT NOT NULL,"
                " text TEXT,"
                " choice TEXT,"
                " payload TEXT,"
                " latency_s REAL,"
                " created REAL NOT NULL,"
                " PRIMARY KEY (scope, content_hash)) WITHOUT ROWID"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS scopes (scope TEXT PRIMARY KEY, description TEXT)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            self._db.execute(
                "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            self._db.commit()
            (version,) = self._db.execute(
                "SELECT value FROM meta WHERE name = 'schema_version'"
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise BackendError(f"response store {self.path} cannot be opened: {exc}") from None
        if version != str(SCHEMA_VERSION):
            raise BackendError(
                f"response store {self.path} has schema version {version}, this winoscope "
                f"reads {SCHEMA_VERSION}; move the file away to start a fresh store"
            )

    def __enter__(self) -> ResponseStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._commit_locked()
            self._db.close()

    def flush(self) -> None:
        """Commit the answers written since the last commit."""
        with self._lock:
            self._commit_locked()

    def _commit_locked(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending:
            self._db.commit()
            self._pending = 0

    def __len__(self) -> int:
        with self._lock:
            self._commit_locked()
            return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def scope(
        self,
        backend: str,
        model: str,
        params: Mapping[str, Any],
        template: Mapping[str, Any] | None,
    ) -> str:
        """The scope hash for these settings, recorded with its description."""
        text = scope_description(backend, model, params, template)
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO scopes VALUES (?, ?)", (key, text))
            self._db.commit()
        return key

    def put(self, scope: str, content_hash: str, resp: Response) -> None:
        """Write one answer, committed within :data:`COMMIT_WITHIN_S` (with the answers that
        arrive beside it); errors are never stored."""
        if resp.error is not None:
            return
        row = (
            scope,
            content_hash,
            resp.backend,
            resp.model,
            resp.text,
            resp.choice,
            encode_payload(resp),
            resp.latency_s,
            time.time(),
        )
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?,?,?,?,?,?,?,?,?)", row)
            now = time.monotonic()
            if not self._pending:
                self._since = now
                self._timer = threading.Timer(COMMIT_WITHIN_S, self.flush)
                self._timer.daemon = True
                self._timer.start()
            self._pending += 1
            if self._pending >= COMMIT_EVERY or now - self._since >= COMMIT_WITHIN_S:
                self._commit_locked()

    def get_scope(self, scope: str) -> dict[str, Response]:
        """Every stored answer of ``scope`` by content hash, marked ``cached=True``.

        The responses carry an empty ``request_id``; the caller sets its own.
        """
        return {h: Response(request_id="", **kw) for h, kw in self.scope_fields(scope).items()}

    def scope_fields(self, scope: str) -> dict[str, dict[str, Any]]:
        """Like :meth:`get_scope`, as ``Response`` keyword arguments without ``request_id``."""
        with self._lock:
            self._commit_locked()
            rows = self._db.execute(
                "SELECT content_hash, backend, model, text, choice, payload, latency_s"
                " FROM responses"
                " WHERE scope = ?",
                (scope,),
            ).fetchall()
        return {
            h: {
                "backend": backend,
                "model": model,
                "cached": True,
                "latency_s": latency,
                "text": text,
                "choice": choice,
                **(decode_payload(payload) if payload else {}),
            }
            for h, backend, model, text, choice, payload, latency in rows
        }


@dataclass
class StoredRun:
    """What the store already holds for one run's requests, and what is left to ask.

    Requests with the same content hash (the same prompt asked twice) are asked once; every one
    of them gets the answer. ``record`` writes an answer and returns it once per request
    sharing its content, with that request's id.
    """

    store: ResponseStore | None
    scope: str
    hashes: dict[str, str]
    cached: dict[str, Response]
    to_ask: list[Request]
    followers: dict[str, list[Request]] = field(default_factory=dict)
    asked: int = 0

    def record(self, resp: Response) -> list[Response]:
        h = self.hashes[resp.request_id]
        self.asked += 1
        if self.store is not None:
            self.store.put(self.scope, h, resp)
        return [resp] + [_with_id(resp, r.request_id) for r in self.followers.get(h, [])]


def _with_id(resp: Response, request_id: str) -> Response:
    return replace(resp, request_id=request_id)


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
    use = store if store is not None and backend.cacheable else None
    hashes = {r.request_id: r.content_hash for r in requests}
    if use is None:
        return StoredRun(None, "", hashes, {}, list(requests))
    scope = use.scope(backend.kind, backend.model, backend.params, template)
    hits = use.scope_fields(scope) if resume else {}
    cached: dict[str, Response] = {}
    to_ask: list[Request] = []
    first: set[str] = set()
    followers: dict[str, list[Request]] = {}
    for req in requests:
        h = hashes[req.request_id]
        hit = hits.get(h)
        if hit is not None:
            cached[req.request_id] = Response(request_id=req.request_id, **hit)
        elif h in first:
            followers.setdefault(h, []).append(req)
        else:
            first.add(h)
            to_ask.append(req)
    return StoredRun(use, scope, hashes, cached, to_ask, followers)
