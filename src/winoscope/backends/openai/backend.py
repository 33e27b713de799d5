"""``openai:MODEL``: any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, hosted APIs).

Four modes (the ``mode`` option, recorded in ``params``):

- ``chat`` (default): ``POST /chat/completions`` with the prompt as one user message, greedy
  (``temperature=0``) and short (``max_tokens=16``, sent as ``max_completion_tokens`` with
  ``token_param=max_completion_tokens`` for servers that want it); the answer is the message's
  ``content`` (never ``reasoning_content``), normalised by the protocol. Empty or null content is
  a failed answer naming its ``finish_reason``, never a stored one.
- ``letters``: ``POST /completions`` with ``max_tokens=1`` and ``logprobs=top_logprobs``; each
  option's score is the log-probability of its label as the next token (``"A"`` or ``" A"``,
  summed in probability space). A label absent from the top tokens scores ``-inf``; when no
  label is present the answer is a tie, which the protocol counts as invalid. ``letter_mass``
  is the probability on the letters among the top candidates.
- ``chat-letters``: the same read from ``/chat/completions`` with ``logprobs=true`` and
  ``top_logprobs`` (servers that only offer chat, e.g. hosted APIs).
- ``cloze``: cloze requests (context, continuations) scored from ``/completions`` with
  ``echo=true, logprobs=1, max_tokens=0`` and one prompt per option (``context + continuation``,
  sent as a list in one call): each option's score is the sum of the log-probabilities of the
  tokens whose ``text_offset`` lies in its continuation, where that split is exact
  (:func:`.parse.cloze_scores`; else the run stops naming ``tokenizer``). A server that refuses
  ``max_tokens=0`` is asked with 1 (the generated token lies after the prompt and is not
  counted).

With ``tokenizer`` (the served model's tokenizer), ``cloze``, ``letters`` and ``chat-letters``
send token-id prompts to ``/completions`` with ``echo`` and read exactly the scored positions,
as ``hf:`` splits them (:mod:`.token_ids`): no top-k list, no text offsets.

Requests run concurrently on one asyncio loop in a background thread (:mod:`.loop_thread`,
so ``respond`` stays a plain iterator), at most ``concurrency`` in flight, spread round-robin over every base URL; a
retry goes to the next URL. HTTP is :mod:`.http` (aiohttp): proxies from the environment
or ``proxy``, same-origin 307/308 redirects, TLS with the system store or ``SSL_CERT_FILE``.

HTTP 429 and 503 wait for ``Retry-After`` (seconds or an HTTP date) when given; 5xx, 408,
timeouts, dropped or reset connections and unreadable bodies (malformed, nested too deeply,
non-finite log-probabilities) are retried with exponential backoff and full jitter up to
``max_retries`` times, then become ``Response(error=...)`` for that request. 401, 403, 404 and
407 stop the run with a :class:`BackendError`, as do an untrusted TLS certificate and a redirect
that cannot be followed. Other 4xx answers, empty answers and missing log-probabilities are
per-request errors without retry; when the first :data:`EARLY_STOP` answers all fail that same
way the run stops with that error instead of paying for the rest.

The API key is read from the environment variable named by ``api_key_env`` when the backend
starts; it is sent only in the ``Authorization`` header, never kept in ``params`` and masked out
of every error message before any message is cut short.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ...errors import BackendError
from ...records import SEQUENCE_PROTOCOL, Request, Response
from ..base import CHOICE_PROTOCOLS, Description, backend
from .bodies import RequestBodies
from .http import Transport, proxy_summary
from .options import DEFAULTS, build_backend_settings, normalise_base_url
from .parse import (
    RequestFailed,
    RetryableError,
    backoff_delay,
    label_scores,
    no_template,
    parse_retry_after,
    redact,
    refused,
    snippet,
)
from .statuses import FATAL_STATUS, raise_for_status
from .token_ids import TokenPrompts

__all__ = [
    "EARLY_STOP",
    "OpenAIBackend",
    "backoff_delay",
    "label_scores",
    "make_openai",
    "normalise_base_url",
    "parse_retry_after",
]

#: each mode and the protocols it answers: ``cloze`` scores continuations (completions with
#: echoed log-probabilities), the others answer lettered choices and NLI questions
MODE_PROTOCOLS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "chat": CHOICE_PROTOCOLS,
        "letters": CHOICE_PROTOCOLS,
        "chat-letters": CHOICE_PROTOCOLS,
        "cloze": frozenset({"cloze"}),
    }
)
MODES = tuple(MODE_PROTOCOLS)
EARLY_STOP = 20  # the first this many answers failing the same deterministic way stop the run


@dataclass
class OpenAIBackend(RequestBodies):
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
    proxy: str | None = None
    poll: float = 0.02
    kind: str = "openai"
    cacheable: bool = True
    stats: dict[str, int] = field(default_factory=dict)
    _body_parts: tuple[bytes, bytes] | None = field(default=None, init=False, repr=False)
    _cloze_tokens: int = field(default=0, init=False, repr=False)
    _tokens: TokenPrompts | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        spec = self.params.get("tokenizer")
        if spec:
            chat = self.mode == "chat-letters"
            self._tokens = TokenPrompts(spec, chat=chat, system=self.params.get("system"))

    @property
    def modes(self) -> Mapping[str, frozenset[str]]:
        return MODE_PROTOCOLS

    @property
    def protocols(self) -> frozenset[str]:
        """The mode's protocols; with a tokenizer (token-id prompts) also ``sequence``
        requests, in every mode."""
        extra = frozenset({SEQUENCE_PROTOCOL}) if self._tokens is not None else frozenset()
        return MODE_PROTOCOLS[self.mode] | extra

    def describe(self) -> Description:
        return Description(transport=self.transport_info())

    def transport_info(self) -> dict[str, Any]:
        """For the manifest: whether requests went through a proxy (never its address)."""
        return proxy_summary(list(self.base_urls), self.proxy)

    # ----------------------------------------------------------------------------- running
    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        """Yield responses as they complete; closing the iterator cancels what is in flight."""
        if not requests:
            return
        if self._tokens is None and any(r.kind == "sequence" for r in requests):
            raise BackendError(
                "openai: sequence requests (the leaderboard's scoring methods) are scored from "
                "token ids: give the served model's tokenizer with -M tokenizer=DIR_OR_ID"
            )
        wrong = sorted(
            {
                r.kind
                for r in requests
                if r.kind != "sequence" and (r.kind == "cloze") != (self.mode == "cloze")
            }
        )
        if wrong:
            raise BackendError(
                f"openai mode '{self.mode}' cannot answer {', '.join(wrong)} requests"
                + (" (use --mode cloze)" if "cloze" in wrong else "")
            )
        key = os.environ.get(self.api_key_env, "")
        from .loop_thread import iterate_in_thread  # asyncio loads when a model is asked

        async def produce(out: deque[Any], ended: threading.Event) -> None:
            await self._run_all(requests, key, out, ended)

        yield from iterate_in_thread(produce, len(requests), self.poll, "winoscope-openai")

    async def _run_all(
        self, requests: Sequence[Request], key: str, out: deque[Any], ended: threading.Event
    ) -> None:
        import asyncio

        self.stats = {"http_calls": 0, "retries": 0, "errors": 0}
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        transport = Transport(self.concurrency, self.timeout, headers, self.proxy)
        urls = [u + self.endpoint() for u in self.base_urls]
        rng = random.Random()
        pending = iter(enumerate(requests))
        answered = [0]
        first: list[str | None] = []  # failure signature (None: answered) of the first answers

        async def worker() -> None:
            # ``concurrency`` workers pull from one iterator: at most that many in flight, and
            # no task or semaphore waiter exists per queued request.
            for i, req in pending:
                resp, signature = await self._ask(transport, i, req, key, rng, urls)
                if resp.error is not None:
                    self.stats["errors"] += 1
                if len(first) < EARLY_STOP:
                    first.append(signature)
                    if len(first) == EARLY_STOP and len(set(first)) == 1 and signature:
                        raise BackendError(
                            f"the first {EARLY_STOP} answers all failed the same way, so the "
                            f"run stops: {resp.error}"
                        )
                out.append(resp)
                answered[0] += 1
                if answered[0] == len(requests):
                    ended.set()

        n_workers = min(self.concurrency, len(requests))
        workers = [asyncio.ensure_future(worker()) for _ in range(n_workers)]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            await transport.close()

    async def _ask(
        self,
        transport: Transport,
        index: int,
        req: Request,
        key: str,
        rng: random.Random,
        urls: Sequence[str],
    ) -> tuple[Response, str | None]:
        """The response to one request and, when it failed deterministically, why."""
        import asyncio

        aiohttp = transport.aiohttp
        last = ""
        attempt = 0
        try:
            plan = self.plan(req)
        except RequestFailed as exc:
            return self._error(req, str(exc), key, exc.finish_reason), exc.signature
        while True:
            url = urls[(index + attempt) % len(urls)]
            wait: float | None = None
            started = time.perf_counter()
            sent_tokens = self._cloze_tokens
            body = self.encode(req, plan)
            try:
                self.stats["http_calls"] += 1
                answer = await transport.post(url, body)
                latency = time.perf_counter() - started
                status = answer.status
                if status == 200:
                    return self.parse(req, answer.body, latency, key, plan), None
                detail = snippet(answer.body, key)
                if (
                    status == 400
                    and sent_tokens == 0
                    and (plan or self.mode == "cloze")
                    and "max_tokens" in detail  # not a prompt over the context, say
                ):
                    self._cloze_tokens = 1  # the server refuses max_tokens=0: ask with 1
                    continue
                why = self._why_not(answer.url, url, status, detail)
                if why is not None:
                    raise BackendError(why)
                raise_for_status(status, detail, answer.headers, self.retry_after_cap)
            except BackendError as exc:  # a stop names a Location or a body: mask the key
                raise BackendError(redact(str(exc), key)) from None
            except RetryableError as exc:
                last, wait = str(exc), exc.wait
            except RequestFailed as exc:
                return self._error(req, str(exc), key, exc.finish_reason), exc.signature
            except aiohttp.ClientConnectorCertificateError as exc:
                # every request would fail the same way: stop, as for a wrong key or URL
                cert = getattr(exc, "certificate_error", exc)
                why = getattr(cert, "verify_message", None) or str(cert)
                raise BackendError(
                    f"{url}: the server's TLS certificate is not trusted ({why}); if it is "
                    "signed by a private CA, point SSL_CERT_FILE at that CA's certificate"
                ) from None
            except TimeoutError:
                last = f"timed out after {self.timeout:g} s"
            except aiohttp.ClientHttpProxyError as exc:
                why = redact(f"HTTP {exc.status} {exc.message}", key)
                raise BackendError(f"the proxy refused the connection to {url}: {why}") from None
            except (aiohttp.ClientError, OSError) as exc:
                if refused(exc) and len(urls) == 1:
                    # nothing listens there: waiting would not change that
                    raise BackendError(
                        f"{url}: connection refused (no server is listening there); start the "
                        "server or check --base-url"
                    ) from None
                last = f"{type(exc).__name__}: {exc}"
            if attempt >= self.max_retries:
                break
            self.stats["retries"] += 1
            delay = (
                wait
                if wait is not None
                else backoff_delay(attempt, self.backoff, self.backoff_cap, rng)
            )
            attempt += 1
            await asyncio.sleep(delay)
        return self._error(req, f"{last} (after {self.max_retries + 1} attempts)", key), None

    def _why_not(self, answer_url: str, url: str, status: int, detail: str) -> str | None:
        """Why the run stops at this answer (a wrong key, URL or model; no chat template)."""
        if status in FATAL_STATUS:
            return (
                f"{answer_url} answered HTTP {status} ({FATAL_STATUS[status]}): {detail}; check "
                f"the base URL, the model name '{self.model}'"
                + (", the proxy" if status == 407 else "")
                + f" and the API key in ${self.api_key_env}"
            )
        if status == 400 and url.endswith("/chat/completions") and no_template(detail):
            return (
                f"{url}: the server has no chat template for model '{self.model}' ({detail}): "
                "start it with a template (vLLM: --chat-template FILE), or score without chat "
                "(-M mode=letters or cloze)"
            )
        return None

    def _error(
        self, req: Request, message: str, key: str = "", finish_reason: str | None = None
    ) -> Response:
        return Response(
            request_id=req.request_id,
            backend=self.kind,
            model=self.model,
            error=redact(message, key),
            finish_reason=finish_reason,
        )


@backend("openai", sorted(DEFAULTS))
def make_openai(name: str, **options: Any) -> OpenAIBackend:
    """Build the backend; options as in :func:`.options.build_backend_settings`
    (``base_url`` defaults to ``$OPENAI_BASE_URL`` or the OpenAI API). An unknown option is an
    error naming the backend and every option it knows."""
    settings = build_backend_settings(name, options, MODES)
    return OpenAIBackend(model=name, **settings)
