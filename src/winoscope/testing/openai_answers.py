"""The stand-in server's answers: the letter it picks, its made-up log-probabilities, and the
answers that the content faults change (see :mod:`.openai_server`)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

FAULTS = {
    "429": "429 with Retry-After: retry_after",
    "429-bare": "429 without Retry-After",
    "500": "500 whose body echoes the Authorization header",
    "503": "503 without Retry-After",
    "503-retry-after": "503 with Retry-After: retry_after",
    "400": "400 whose body echoes the Authorization header",
    "401": "401 whose body echoes the Authorization header",
    "404": "404 (model not found)",
    "timeout": "sleeps hang seconds, then answers",
    "drop": "closes the connection without a response",
    "reset": "sends the head and half the body, then resets the connection",
    "truncated": "sends the head and half the body, then closes the connection",
    "garbage": "200 with a body that is not JSON",
    "empty": "200 with no body",
    "nochoices": "200 with JSON that lacks choices",
    "nested": "200 with JSON nested 100,000 levels deep",
    "nan": "200 whose log-probabilities are NaN",
    "overflow": "200 whose log-probabilities are 1e400",
    "null": "200 whose message content is null (finish_reason content_filter)",
    "blank": "200 with empty content, finish_reason length and reasoning_content",
    "length": "200 with the answer and finish_reason length",
    "nologprobs": "200 without logprobs",
    "gzip": "the answer gzip-compressed",
    "chunked": "the answer in chunked transfer encoding, in pieces",
    "close": "the answer with Connection: close",
    "redirect307": "307 to the same path under /v2 (same origin)",
    "redirect308": "308 to the same path under /v2 (same origin)",
    "redirect301": "301 to the same path under /v2",
    "redirect-cross": "307 to another origin (localhost instead of 127.0.0.1)",
}


def pick_letter(prompt: str) -> str:
    """The stand-in's answer: ``A`` when the prompt's sha256 starts with an even byte."""
    return "A" if hashlib.sha256(prompt.encode("utf-8")).digest()[0] % 2 == 0 else "B"


WIN_LP, LOSE_LP = -0.3, -1.6  # the letter picked, the other one
FILLERS = [("The", -4.0), ("\n", -4.5)] + [(f"x{i}", -7.0 - i) for i in range(30)]
GENERATED = (" A", -0.25)  # the token "generated" when a completions call asks for one


def token_logprob(token: str) -> float:
    """Echoed log-probability of a prompt token: -0.1 per non-space character."""
    return -0.1 * len(token.strip())


def logprobs_object(
    tokens: list[str], lps: list[float | None], offsets: list[int]
) -> dict[str, Any]:
    """A completion's ``logprobs`` object: each token with its log-probability as its own top
    entry (none where the log-probability is None, as for a prompt's first token)."""
    return {
        "tokens": tokens,
        "token_logprobs": lps,
        "text_offset": offsets,
        "top_logprobs": [
            None if lp is None else {t: lp} for t, lp in zip(tokens, lps, strict=True)
        ],
    }


def echo_logprobs(text: str, generated: int) -> dict[str, Any]:
    """The ``logprobs`` object of an echoed completion: tokens are runs of spaces plus a word
    (``re.findall(r"\\s*\\S+")``); the first has no log-probability, as with real servers."""
    tokens = re.findall(r"\s*\S+", text) or [text]
    offsets, lps, pos = [], [], 0
    for i, tok in enumerate(tokens):
        offsets.append(pos)
        lps.append(None if i == 0 else token_logprob(tok))
        pos += len(tok)
    for _ in range(generated):
        tokens.append(GENERATED[0])
        offsets.append(pos)
        lps.append(GENERATED[1])
    return logprobs_object(tokens, lps, offsets)


def id_logprob(token_id: int) -> float:
    """Echoed log-probability of a prompt token sent as an id: ``-0.01 * (id % 100) - 0.01``."""
    return -0.01 * (token_id % 100) - 0.01


def echo_id_logprobs(ids: list[int], generated: int) -> dict[str, Any]:
    """The ``logprobs`` object of an echoed completion of a token-id prompt: one token per id
    (its text ``<id>``), the first without a log-probability (see :func:`id_logprob`)."""
    tokens = [f"<{t}>" for t in ids] + [GENERATED[0]] * generated
    lps: list[float | None] = [None if i == 0 else id_logprob(t) for i, t in enumerate(ids)]
    lps += [GENERATED[1]] * generated
    offsets, pos = [], 0
    for tok in tokens:
        offsets.append(pos)
        pos += len(tok)
    return logprobs_object(tokens, lps, offsets)


def is_ids(prompt: Any) -> bool:
    return isinstance(prompt, list) and all(isinstance(t, int) for t in prompt)


def prompt_of(body: dict[str, Any]) -> str:
    if "messages" in body:
        return str(body["messages"][-1]["content"])
    prompt = body.get("prompt", "")
    return str(prompt[0] if isinstance(prompt, list) and prompt else prompt)


def _top(letter: str, n: int, prefix: str) -> list[tuple[str, float]]:
    other = "B" if letter == "A" else "A"
    return [(prefix + letter, WIN_LP), (prefix + other, LOSE_LP), *FILLERS][: max(n, 1)]


def answer_body(path: str, body: dict[str, Any], letter: str) -> dict[str, Any]:
    """The JSON answer naming ``letter`` (log-probabilities -0.3 for it, -1.6 for the other)."""
    model = str(body.get("model", ""))
    base = {"id": "cmpl-stub", "created": 0, "model": model}
    if path.endswith("/chat/completions"):
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": letter},
            "finish_reason": "stop",
        }
        if body.get("logprobs"):
            top = _top(letter, int(body.get("top_logprobs") or 1), "")
            choice["logprobs"] = {
                "content": [
                    {
                        "token": letter,
                        "logprob": WIN_LP,
                        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top],
                    }
                ]
            }
        return {**base, "object": "chat.completion", "choices": [choice]}
    prompts = body.get("prompt", "")
    # one prompt (text or ids) or a list of them
    prompts = prompts if isinstance(prompts, list) and not is_ids(prompts) else [prompts]
    choices = []
    for i, prompt in enumerate(prompts):
        if body.get("echo"):
            generated = int(body.get("max_tokens") or 0)
            if is_ids(prompt):
                lp = echo_id_logprobs(prompt, generated)
                text = "".join(lp["tokens"])
            else:
                lp = echo_logprobs(str(prompt), generated)
                text = str(prompt) + " A" * generated
            choice = {"index": i, "text": text, "finish_reason": "length", "logprobs": lp}
        else:
            choice = {"index": i, "text": " " + letter, "finish_reason": "length"}
            if body.get("logprobs"):
                top = _top(letter, int(body["logprobs"]), " ")
                choice["logprobs"] = {
                    "tokens": [" " + letter],
                    "token_logprobs": [WIN_LP],
                    "top_logprobs": [dict(top)],
                }
        choices.append(choice)
    return {**base, "object": "text_completion", "choices": choices}


def faulty_answer(fault: str, good: dict[str, Any], mode_chat: bool) -> dict[str, Any] | None:
    """The 200 body for faults that change the answer's content; None for other faults."""
    choice = good["choices"][0]
    if fault == "nochoices":
        return {"object": "chat.completion"}
    if fault in {"nan", "overflow"}:
        text = json.dumps(good)
        return {"__raw__": text.replace(str(WIN_LP), "NaN" if fault == "nan" else "1e400")}
    if fault == "null" and mode_chat:
        choice["message"]["content"] = None
        choice["finish_reason"] = "content_filter"
    elif fault == "blank" and mode_chat:
        choice["message"]["content"] = ""
        choice["message"]["reasoning_content"] = "Let me think. " * 20
        choice["finish_reason"] = "length"
    elif fault == "length":
        choice["finish_reason"] = "length"
    elif fault == "nologprobs":
        choice.pop("logprobs", None)
    else:
        return None
    return good
