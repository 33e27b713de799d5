"""Reading OpenAI-compatible answers: bodies, log-probabilities, retry hints, redaction.

Every function here is pure (no I/O), so each rule is tested on its own. An answer that cannot
be read raises :class:`RetryableError` ("malformed", asked again); an answer that is readable
but unusable for a reason another attempt would not change (empty content, no
log-probabilities) raises :class:`RequestFailed` with a ``signature`` naming the reason, which
the backend uses to stop a run whose first answers all fail the same way.
"""

from __future__ import annotations

import email.utils
import errno
import json
import math
import random
import time
from collections.abc import Sequence
from typing import Any

from ...records import Request

LOGPROB_SLACK = 1e-3  # a log-probability above this is not a probability (rounding allowed)
MASS_MIN_CANDIDATES = 5  # fewer top candidates than this: the letters' mass is not reported


class RetryableError(Exception):
    """A failure worth another attempt; ``wait`` overrides the backoff (Retry-After)."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class RequestFailed(Exception):
    """A failure another attempt would not fix; ``signature`` groups identical causes."""

    def __init__(
        self, message: str, signature: str | None = None, finish_reason: str | None = None
    ) -> None:
        super().__init__(message)
        self.signature = signature or message
        self.finish_reason = finish_reason


FRAGMENT = 8  # a run of this many characters of the key, or more, is masked wherever it is


def redact(text: str, key: str) -> str:
    """``text`` with the key masked as ``***``: the whole key, and every run of
    :data:`FRAGMENT` or more consecutive characters of it (a server that echoes the first ten
    characters of the key must not put them in a message, file or report); always before any
    truncation. A key shorter than :data:`FRAGMENT` is masked where it occurs whole."""
    if not key or not text:
        return text
    if len(key) < FRAGMENT:
        return text.replace(key, "***")
    grams = {key[i : i + FRAGMENT] for i in range(len(key) - FRAGMENT + 1)}
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        if text[i : i + FRAGMENT] in grams:
            j = i + FRAGMENT
            while j < n and text[i : j + 1] in key:  # the longest run of the key from here
                j += 1
            out.append("***")
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def snippet(raw: bytes | str, key: str, limit: int = 200) -> str:
    """The start of a body for an error message: decoded, redacted, then cut to ``limit``."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return repr(redact(text, key)[:limit])


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
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Full jitter: uniform in ``[0, min(cap, base * 2**attempt)]`` (attempt counts from 0)."""
    return rng.uniform(0.0, min(cap, base * (2.0 ** min(attempt, 60))))


def logprob(value: Any, what: str) -> float:
    """A log-probability from a server: a finite number at most 0 (else ``ValueError``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} is not a number: {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{what} is not finite: {value!r}")
    if x > LOGPROB_SLACK:
        raise ValueError(f"{what} is above 0: {value!r}")
    return min(x, 0.0)


def _logsumexp(values: Sequence[float]) -> float:
    m = max(values)
    return m + math.log(sum(math.exp(v - m) for v in values))


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
        out.append(_logsumexp(hits) if hits else -math.inf)
    return tuple(out)


def letter_mass(top: dict[str, float], labels: Sequence[str]) -> float | None:
    """Probability on the option letters (every tokenisation) among the top candidates; None
    when the server gave fewer than :data:`MASS_MIN_CANDIDATES` (too few to say)."""
    if len(top) < MASS_MIN_CANDIDATES:
        return None
    wanted = set(labels)
    return min(1.0, sum(math.exp(lp) for tok, lp in top.items() if tok.strip() in wanted))


def load_json(raw: bytes, key: str = "") -> Any:
    """The JSON value of a body; any unreadable body (also nested too deeply) is retryable."""
    if not raw.strip():
        raise RetryableError("empty response body")
    try:
        return json.loads(raw)
    except RecursionError:
        raise RetryableError("malformed response body (JSON nested too deeply)") from None
    except ValueError as exc:
        raise RetryableError(f"malformed response body ({exc}): {snippet(raw, key, 80)}") from None


def first_choice(body: Any) -> dict[str, Any]:
    choices = body["choices"]
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("choices is empty")
    return choices[0]


def chat_text(body: Any) -> tuple[str, str | None]:
    """The final answer of a chat completion and its finish reason (never the reasoning).

    Empty or null content is :class:`RequestFailed` naming the finish reason and the length of
    any ``reasoning_content`` (a reasoning model cut off by the token limit, a refusal, a
    content filter).
    """
    choice = first_choice(body)
    message = choice["message"]
    finish = choice.get("finish_reason")
    finish = None if finish is None else str(finish)
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise TypeError("message.content is not text")
    if content is None or not content.strip():
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        extra = f", {len(reasoning)} characters of reasoning" if reasoning else ""
        what = "null" if content is None else "empty"
        hint = "; raise --max-tokens" if finish == "length" else ""
        raise RequestFailed(
            f"{what} answer (finish_reason={finish}{extra}){hint}",
            signature=f"{what} answer (finish_reason={finish})",
            finish_reason=finish,
        )
    return content, finish


def top_from_completions(body: Any) -> dict[str, float]:
    lp = first_choice(body).get("logprobs")
    if not lp or not lp.get("top_logprobs"):
        raise RequestFailed(
            "the server returned no log-probabilities (logprobs); use --mode chat",
            signature="no logprobs",
        )
    first = lp["top_logprobs"][0]
    if not isinstance(first, dict) or not first:
        raise ValueError("logprobs.top_logprobs is empty")
    return {str(k): logprob(v, f"log-probability of {k!r}") for k, v in first.items()}


def top_from_chat(body: Any) -> dict[str, float]:
    lp = first_choice(body).get("logprobs")
    content = lp.get("content") if isinstance(lp, dict) else None
    if not content:
        raise RequestFailed(
            "the server returned no log-probabilities (logprobs.content); use --mode chat",
            signature="no logprobs",
        )
    first = content[0]
    top = {
        str(t["token"]): logprob(t["logprob"], f"log-probability of {t['token']!r}")
        for t in first.get("top_logprobs") or []
    }
    top.setdefault(str(first["token"]), logprob(first["logprob"], "log-probability"))
    return top


OFFSETS_HINT = (
    "pass -M tokenizer=MODEL_DIR_OR_ID (the served model's tokenizer) to send token ids and "
    "score exactly"
)


def cloze_scores(body: Any, req: Request) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """Summed log-probability and token count of each option's continuation, found from text
    offsets (without a tokenizer; see :mod:`.token_ids` for the exact token-id path).

    The body answers one prompt per option (``context + continuation``, echoed); a token
    counts for the continuation when its ``text_offset`` is at or after the context's length
    (trailing whitespace excluded, as lm-evaluation-harness moves it to the continuation) and
    before the prompt's end (a generated token, when the server had to generate one, is after
    the end). This is exact only when the echoed tokens spell the prompt and one of them starts
    at the boundary; anything else (a BOS token's text shifting every offset, characters split
    across byte tokens, a token across the boundary) stops the run with
    :class:`~winoscope.errors.BackendError` naming the ``tokenizer`` option, never a guess.
    """
    from ...errors import BackendError

    choices = body["choices"]
    if not isinstance(choices, list) or len(choices) != len(req.options):
        raise ValueError(f"expected {len(req.options)} choices")
    by_index = {int(c.get("index", i)): c for i, c in enumerate(choices)}
    start = len(req.prompt.rstrip())
    sums, counts = [], []
    for i, opt in enumerate(req.options):
        lp = by_index[i].get("logprobs")
        if not lp or "text_offset" not in lp:
            raise RequestFailed(
                "the server returned no echoed log-probabilities with text_offset for cloze "
                "scoring (completions with echo and logprobs)",
                signature="no logprobs",
            )
        text = req.prompt + opt.text
        end = len(text)
        tokens = [str(t) for t in lp.get("tokens") or []]
        offsets = [int(o) for o in lp["text_offset"]]
        spelled = "".join(t for t, o in zip(tokens, offsets, strict=False) if o < end)
        if spelled != text or start not in offsets:
            why = (
                "the echoed tokens do not spell the prompt"
                if spelled != text
                else "no token starts where the continuation does"
            )
            raise BackendError(
                f"cloze scoring from text offsets is not exact here ({why}: "
                f"{spelled[:60]!r}...); {OFFSETS_HINT}"
            )
        total, n = 0.0, 0
        for off, value in zip(offsets, lp["token_logprobs"], strict=True):
            if start <= off < end:
                total += logprob(value, f"log-probability at offset {off}")
                n += 1
        if n == 0:
            raise ValueError(f"no token of option {opt.label}'s continuation")
        sums.append(total)
        counts.append(n)
    return tuple(sums), tuple(counts)


def no_template(detail: str) -> bool:
    """Whether an HTTP 400 says the model has no chat template (vLLM: "default chat template
    is no longer allowed"; others: "chat template")."""
    return "chat template" in detail.lower() or "chat_template" in detail.lower()


def refused(exc: BaseException) -> bool:
    """Whether a connection failed because nothing listens at the address (every address
    the host name gave refused)."""
    err = getattr(exc, "os_error", exc)
    return (
        isinstance(err, ConnectionRefusedError) or getattr(err, "errno", None) == errno.ECONNREFUSED
    )
