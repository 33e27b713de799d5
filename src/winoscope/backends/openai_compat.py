"""``openai:MODEL``: any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, hosted APIs).

Three modes (the ``mode`` option, recorded in ``params``):

- ``chat`` (default): ``POST /chat/completions`` with the prompt as one user message, greedy
  (``temperature=0``) and short (``max_tokens=16``); the answer text is normalised by the
  protocol (``"B"``, ``"B. секретарка"``, ``"секретарка"`` all name option B).
- ``letters``: ``POST /completions`` with ``max_tokens=1`` and ``logprobs=top_logprobs``; each
  option's score is the log-probability of its label as the next token (``"A"`` or ``" A"``,
  whichever variants are among the top tokens, summed in probability space). A label absent
  from the top tokens scores ``-inf``; when no label is present the answer is a tie, which the
  protocol counts as invalid (never as an error). For base models served with completions.
- ``chat-letters``: the same read from ``/chat/completions`` with ``logprobs=true`` and
  ``top_logprobs`` (servers that only offer chat, e.g. hosted APIs).

Requests run concurrently on one asyncio loop (a background thread, uvloop when installed, so
``respond`` stays a plain iterator) with at most ``concurrency`` in flight, spread round-robin
over every base URL; a retry goes to the next URL. They go over keep-alive connections of
:mod:`.http1`, a small HTTP/1.1 client that costs about a third of the CPU per request of a
general one, which is what keeps 256 requests in flight at the server's pace on two cores.

HTTP 429 waits for ``Retry-After`` (seconds or an HTTP date); 5xx, 408, timeouts, dropped
connections and unreadable or empty bodies are retried with exponential backoff and full jitter
(``backoff * 2**attempt``, capped, times a uniform draw) up to ``max_retries`` times, then
become ``Response(error=...)`` for that request. 401, 403 and
404 stop the run with a :class:`BackendError` (a wrong key, model or URL fails every request
the same way), and so does a TLS certificate that cannot be verified. Other 4xx answers are
per-request errors without retry.

The API key is read from the environment variable named by ``api_key_env`` (default
``OPENAI_API_KEY``) when the backend starts; it is sent only in the ``Authorization`` header,
never kept in ``params`` and masked out of every error message.

``seed`` is sent, and recorded in ``params``, only when ``temperature > 0``: greedy answers do
not depend on it, so changing the bootstrap seed does not invalidate stored answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import gc
import json
import math
import os
import random
import ssl
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import BackendError
from ..records import Request, Response
from .base import backend
from .http1 import ConnectionPool, Endpoint, HttpProtocolError

MODES = ("chat", "letters", "chat-letters")
FATAL_STATUS = {401: "unauthorised", 403: "forbidden", 404: "not found"}
RETRY_STATUS = {408, 409, 425, 429}


class RetryableError(Exception):
    """A failure worth another attempt; ``wait`` overrides the backoff (Retry-After)."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class RequestFailed(Exception):
    """A failure another attempt would not fix (a 400 for this prompt)."""


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: ``"3"``, ``"0.5"`` or an HTTP date.

    >>> parse_retry_after("2")
    2.0
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=1445412480.0)
    5.0
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if math.isnan(seconds):
        return None
    return max(0.0, seconds)


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Full jitter: uniform in ``[0, min(cap, base * 2**attempt)]`` (attempt counts from 0)."""
    return rng.uniform(0.0, min(cap, base * (2.0**attempt)))


def label_scores(top: dict[str, float], labels: Sequence[str]) -> tuple[float, ...]:
    """Log-probability of each label among the next-token candidates ``top``.

    Tokens are compared after stripping surrounding whitespace, so ``"A"`` and ``" A"`` both
    count for label ``A`` (their probabilities add up). A label with no candidate gets
    ``-inf``.

    >>> label_scores({" A": -0.1, " B": -2.5, "A": -3.0}, ["A", "B"])  # doctest: +ELLIPSIS
    (-0.0..., -2.5)
    """
    out = []
    for label in labels:
        hits = [lp for tok, lp in top.items() if tok.strip() == label]
        if not hits:
            out.append(-math.inf)
            continue
        m = max(hits)
        out.append(m + math.log(sum(math.exp(h - m) for h in hits)))
    return tuple(out)


def _top_from_completions(body: dict[str, Any]) -> dict[str, float]:
    lp = body["choices"][0]["logprobs"]
    tops = lp["top_logprobs"]
    if not tops or not isinstance(tops[0], dict):
        raise ValueError("logprobs.top_logprobs is empty")
    return {str(k): float(v) for k, v in tops[0].items()}


def _top_from_chat(body: dict[str, Any]) -> dict[str, float]:
    content = body["choices"][0]["logprobs"]["content"]
    if not content:
        raise ValueError("logprobs.content is empty")
    first = content[0]
    top = {str(t["token"]): float(t["logprob"]) for t in first.get("top_logprobs") or []}
    top.setdefault(str(first["token"]), float(first["logprob"]))
    return top


@dataclass
class OpenAIBackend:
    """Requests to OpenAI-compatible servers; see the module docstring for the behaviour."""

    model: str
    base_urls: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)
    concurrency: int = 32
    max_retries: int = 5
    timeout: float = 60.0
    api_key_env: str = "OPENAI_API_KEY"
    backoff: float = 0.5
    backoff_cap: float = 20.0
    retry_after_cap: float = 120.0
    poll: float = 0.02
    kind: str = "openai"
    cacheable: bool = True
    stats: dict[str, int] = field(default_factory=dict)
    _body_parts: tuple[bytes, bytes] | None = field(default=None, init=False, repr=False)

    STAGGER: ClassVar[int] = 16  # workers started per event-loop iteration

    @property
    def mode(self) -> str:
        return str(self.params["mode"])

    # ----------------------------------------------------------------- payloads and parsing
    def endpoint(self) -> str:
        return "/completions" if self.mode == "letters" else "/chat/completions"

    def payload(self, req: Request) -> dict[str, Any]:
        return self._payload(req.prompt)

    def _payload(self, prompt: str) -> dict[str, Any]:
        p = self.params
        body: dict[str, Any] = {"model": self.model, "temperature": p["temperature"]}
        if "seed" in p:
            body["seed"] = p["seed"]
        if self.mode == "letters":
            body.update(prompt=prompt, max_tokens=1, logprobs=p["top_logprobs"])
            return body
        messages = []
        if p.get("system"):
            messages.append({"role": "system", "content": p["system"]})
        messages.append({"role": "user", "content": prompt})
        body["messages"] = messages
        if self.mode == "chat-letters":
            body.update(max_tokens=1, logprobs=True, top_logprobs=p["top_logprobs"])
        else:
            body["max_tokens"] = p["max_tokens"]
        return body

    def encode(self, req: Request) -> bytes:
        """``payload(req)`` as JSON bytes: the prompt is the only part that changes between
        requests, so the rest is encoded once and the prompt spliced in."""
        parts = self._body_parts
        if parts is None:
            mark = "\u0000winoscope-prompt\u0000"
            text = json.dumps(self._payload(mark), ensure_ascii=False)
            before, after = text.split(json.dumps(mark), 1)
            parts = self._body_parts = (before.encode("utf-8"), after.encode("utf-8"))
        return parts[0] + json.dumps(req.prompt, ensure_ascii=False).encode("utf-8") + parts[1]

    def parse(self, req: Request, raw: bytes, latency: float) -> Response:
        """Turn a 200 body into a response; anything unreadable raises ``RetryableError``."""
        if not raw.strip():
            raise RetryableError("empty response body")
        try:
            body = json.loads(raw)
            if self.mode == "chat":
                content = body["choices"][0]["message"].get("content")
                if content is not None and not isinstance(content, str):
                    raise TypeError("message.content is not text")
                return Response(
                    request_id=req.request_id,
                    backend=self.kind,
                    model=self.model,
                    text=content or "",
                    latency_s=latency,
                )
            top = _top_from_completions(body) if self.mode == "letters" else _top_from_chat(body)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            snippet = raw[:120].decode("utf-8", "replace")
            raise RetryableError(f"malformed response body ({exc!s}): {snippet!r}") from None
        return Response(
            request_id=req.request_id,
            backend=self.kind,
            model=self.model,
            option_logprobs=label_scores(top, [o.label for o in req.options]),
            latency_s=latency,
        )

    # ----------------------------------------------------------------------------- running
    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        """Yield responses as they complete; closing the iterator cancels what is in flight."""
        if not requests:
            return
        key = os.environ.get(self.api_key_env, "")
        # The loop thread appends to a deque; this thread drains it in batches every
        # ``poll`` seconds, so the two threads do not hand the GIL over once per response; the
        # last response sets ``ended`` so it is not held back a poll period, and the iterator
        # ends with it: closing the connections and the loop finishes in the background.
        out: deque[Response | BaseException | None] = deque()
        ended = threading.Event()
        loop = _new_loop()
        main: asyncio.Task[None] | None = None

        async def start() -> None:
            nonlocal main
            main = asyncio.current_task()
            await self._run_all(requests, key, out, ended)

        def thread_main() -> None:
            try:
                loop.run_until_complete(start())
            except asyncio.CancelledError:
                pass
            except BaseException as exc:
                out.append(exc)
            finally:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()
                out.append(None)
                ended.set()

        worker = threading.Thread(target=thread_main, name="winoscope-openai", daemon=True)
        # A full garbage collection walks every object in the process (60 ms with the
        # scientific stack loaded) and stalls every request in flight meanwhile. Objects that
        # exist before the run are set aside for its duration, so collections during it walk
        # only what the run allocates; they return to the collector when it ends.
        gc.freeze()
        worker.start()
        finished = False
        remaining = len(requests)
        try:
            while remaining:
                if not out:
                    ended.wait(self.poll)
                    continue
                item = out.popleft()
                if item is None:
                    finished = True
                    return
                if isinstance(item, BaseException):
                    raise item
                remaining -= 1
                yield item
            finished = True
        finally:
            gc.unfreeze()
            if not finished:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(lambda: main is not None and main.cancel())
                worker.join(timeout=10)

    async def _run_all(
        self,
        requests: Sequence[Request],
        key: str,
        out: deque[Any],
        ended: threading.Event | None = None,
    ) -> None:
        self.stats = {"http_calls": 0, "retries": 0, "errors": 0}
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        endpoints = [Endpoint.parse(u + self.endpoint(), headers) for u in self.base_urls]
        pool = ConnectionPool(self.timeout)
        rng = random.Random()
        pending = iter(enumerate(requests))
        answered = [0]

        # ``concurrency`` workers pull from one iterator: at most that many requests are in
        # flight, and no task or semaphore waiter exists per queued request.
        async def worker(k: int) -> None:
            # Workers start in groups a loop iteration apart, so the first requests go out
            # while later connections are still being opened, not after all of them.
            for _ in range(k // self.STAGGER):
                await asyncio.sleep(0)
            for i, req in pending:
                resp = await self._ask(pool, i, req, key, rng, endpoints)
                if resp.error is not None:
                    self.stats["errors"] += 1
                out.append(resp)
                answered[0] += 1
                if answered[0] == len(requests) and ended is not None:
                    ended.set()

        n_workers = min(self.concurrency, len(requests))
        workers = [asyncio.ensure_future(worker(k)) for k in range(n_workers)]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            pool.close()

    async def _ask(
        self,
        pool: ConnectionPool,
        index: int,
        req: Request,
        key: str,
        rng: random.Random,
        endpoints: Sequence[Endpoint],
    ) -> Response:
        body = self.encode(req)
        last = ""
        for attempt in range(self.max_retries + 1):
            endpoint = endpoints[(index + attempt) % len(endpoints)]
            url = endpoint.url
            wait: float | None = None
            started = time.perf_counter()
            try:
                self.stats["http_calls"] += 1
                status, answer_headers, raw = await pool.post(endpoint, body)
                latency = time.perf_counter() - started
                if status == 200:
                    return self.parse(req, raw, latency)
                detail = _redact(raw[:200].decode("utf-8", "replace"), key)
                if status in FATAL_STATUS:
                    raise BackendError(
                        f"{url} answered HTTP {status} ({FATAL_STATUS[status]}): {detail!r}; "
                        f"check the base URL, the model name '{self.model}' and the API key in "
                        f"${self.api_key_env}"
                    )
                if status >= 500 or status in RETRY_STATUS:
                    if status == 429:
                        wait = parse_retry_after(answer_headers.get("retry-after"))
                        if wait is not None:
                            wait = min(wait, self.retry_after_cap)
                    raise RetryableError(f"HTTP {status}: {detail!r}", wait)
                raise RequestFailed(f"HTTP {status}: {detail!r}")
            except RetryableError as exc:
                last, wait = str(exc), exc.wait
            except RequestFailed as exc:
                return self._error(req, str(exc))
            except ssl.SSLCertVerificationError as exc:
                # every request would fail the same way: stop, as for a wrong key or URL
                raise BackendError(
                    f"{url}: the server's TLS certificate is not trusted "
                    f"({exc.verify_message}); if it is signed by a private CA, point "
                    "SSL_CERT_FILE at that CA's certificate"
                ) from None
            except TimeoutError:
                last = f"timed out after {self.timeout:g} s"
            except (HttpProtocolError, ConnectionError, OSError) as exc:
                last = f"{type(exc).__name__}: {exc}"
            if attempt < self.max_retries:
                self.stats["retries"] += 1
                delay = (
                    wait
                    if wait is not None
                    else backoff_delay(attempt, self.backoff, self.backoff_cap, rng)
                )
                await asyncio.sleep(delay)
        return self._error(req, f"{last} (after {self.max_retries + 1} attempts)", key)

    def _error(self, req: Request, message: str, key: str = "") -> Response:
        return Response(
            request_id=req.request_id,
            backend=self.kind,
            model=self.model,
            error=_redact(message, key),
        )


def _redact(text: str, key: str) -> str:
    return text.replace(key, "***") if key else text


def _new_loop() -> asyncio.AbstractEventLoop:
    """uvloop when installed (several times faster at hundreds of requests in flight)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _as_float(value: Any, name: str, low: float = 0.0) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BackendError(f"option {name}={value!r}: expected a number") from None
    if not number >= low:
        raise BackendError(f"option {name}={value!r}: must be at least {low:g}")
    return number


def _as_int(value: Any, name: str, low: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise BackendError(f"option {name}={value!r}: expected a whole number") from None
    if number < low:
        raise BackendError(f"option {name}={value!r}: must be at least {low}")
    return number


def normalise_base_url(url: str) -> str:
    """``http://host:8000/v1/`` -> ``http://host:8000/v1``; the scheme is required."""
    u = url.strip().rstrip("/")
    if not u.startswith(("http://", "https://")):
        raise BackendError(f"base URL '{url}' must start with http:// or https://")
    for suffix in ("/chat/completions", "/completions"):
        if u.endswith(suffix):
            u = u[: -len(suffix)]
    return u


@backend("openai")
def make_openai(
    name: str,
    *,
    base_url: str | Sequence[str] | None = None,
    mode: str = "chat",
    temperature: float = 0.0,
    max_tokens: int = 16,
    top_logprobs: int = 20,
    system: str | None = None,
    seed: int = 0,
    concurrency: int = 32,
    max_retries: int = 5,
    timeout: float = 60.0,
    api_key_env: str = "OPENAI_API_KEY",
    backoff: float = 0.5,
    backoff_cap: float = 20.0,
    **_: Any,
) -> OpenAIBackend:
    """Build the backend; ``base_url`` defaults to ``$OPENAI_BASE_URL`` or the OpenAI API."""
    if mode not in MODES:
        raise BackendError(f"openai mode '{mode}' unknown (modes: {', '.join(MODES)})")
    if base_url is None or (not isinstance(base_url, str) and len(base_url) == 0):
        base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
    urls = [base_url] if isinstance(base_url, str) else list(base_url)
    temp = _as_float(temperature, "temperature")
    params: dict[str, Any] = {"mode": mode, "temperature": temp}
    if mode == "chat":
        params["max_tokens"] = _as_int(max_tokens, "max_tokens", 1)
    else:
        params["top_logprobs"] = _as_int(top_logprobs, "top_logprobs", 1)
    if system and mode != "letters":
        params["system"] = system
    if temp > 0:
        params["seed"] = int(seed)
    return OpenAIBackend(
        model=name,
        base_urls=tuple(normalise_base_url(u) for u in urls),
        params=params,
        concurrency=_as_int(concurrency, "concurrency", 1),
        max_retries=_as_int(max_retries, "max_retries", 0),
        timeout=_as_float(timeout, "timeout", 0.001),
        api_key_env=api_key_env,
        backoff=_as_float(backoff, "backoff"),
        backoff_cap=_as_float(backoff_cap, "backoff_cap"),
    )


def cli_backend_options(
    model: str,
    *,
    base_url: Sequence[str] | None = None,
    mode: str | None = None,
    concurrency: int = 32,
    max_retries: int = 5,
    timeout: float = 60.0,
    api_key_env: str = "OPENAI_API_KEY",
) -> dict[str, Any]:
    """The command line's backend options for ``model``: openai's for ``openai:``, else ``mode``."""
    options: dict[str, Any] = {}
    if mode is not None:
        options["mode"] = mode
    if not model.startswith("openai:"):
        return options
    if base_url:
        options["base_url"] = list(base_url)
    options.update(
        concurrency=concurrency, max_retries=max_retries, timeout=timeout, api_key_env=api_key_env
    )
    return options
