"""Options of the openai backend: checking them, the ``params`` they make, the command line's.

``params`` (recorded in the manifest, part of the response-store key) holds what changes
answers: the mode, temperature, token limit, ``top_logprobs``, a system prompt, the seed when
sampling, ``token_param`` when it is not ``max_tokens``, and ``server``, the server's identity
when it was chosen (``server_id`` if given, else the sorted base URLs unless they are the
default OpenAI API): the same model name on two servers may be two models, while several base
URLs given together serve one model and share answers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import BackendError
from ..base import reject_unknown

DEFAULT_BASE_URL = "https://api.openai.com/v1"
TOKEN_PARAMS = ("max_tokens", "max_completion_tokens")
DEFAULTS: dict[str, Any] = {
    "base_url": None,
    "mode": "chat",
    "temperature": 0.0,
    "max_tokens": 16,
    "token_param": "max_tokens",
    "top_logprobs": 20,
    "system": None,
    "seed": 0,
    "concurrency": 32,
    "max_retries": 5,
    "timeout": 60.0,
    "api_key_env": "OPENAI_API_KEY",
    "backoff": 0.5,
    "backoff_cap": 20.0,
    "proxy": None,
    "server_id": None,
    "tokenizer": None,
}


def as_float(value: Any, name: str, low: float = 0.0) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BackendError(f"option {name}={value!r}: expected a number") from None
    if not number >= low or number == float("inf"):
        raise BackendError(f"option {name}={value!r}: must be a finite number >= {low:g}")
    return number


def as_int(value: Any, name: str, low: int) -> int:
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


def _base_urls(value: Any) -> tuple[str, ...]:
    if value is None or (not isinstance(value, str) and len(value) == 0):
        value = os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    urls = [value] if isinstance(value, str) else list(value)
    out = tuple(normalise_base_url(str(u)) for u in urls)
    if len(set(out)) != len(out):
        raise BackendError(f"base URL given twice: {', '.join(out)}")
    return out


def build_backend_settings(
    name: str, options: Mapping[str, Any], modes: Sequence[str]
) -> dict[str, Any]:
    """Check ``options`` and return the backend's keyword arguments (``params`` included)."""
    unknown = {k: v for k, v in options.items() if k not in DEFAULTS}
    reject_unknown("openai", unknown, sorted(DEFAULTS))
    o = {**DEFAULTS, **{k: v for k, v in options.items() if v is not None}}
    mode = str(o["mode"])
    if mode not in modes:
        raise BackendError(f"openai mode '{mode}' unknown (modes: {', '.join(modes)})")
    if o["token_param"] not in TOKEN_PARAMS:
        raise BackendError(
            f"option token_param={o['token_param']!r}: expected one of {', '.join(TOKEN_PARAMS)}"
        )
    urls = _base_urls(o["base_url"])
    temp = as_float(o["temperature"], "temperature")
    params: dict[str, Any] = {"mode": mode}
    if mode != "cloze":
        params["temperature"] = temp
    if mode == "chat":
        params["max_tokens"] = as_int(o["max_tokens"], "max_tokens", 1)
    elif mode in ("letters", "chat-letters"):
        params["top_logprobs"] = as_int(o["top_logprobs"], "top_logprobs", 1)
    if o["token_param"] != "max_tokens" and mode in ("chat", "chat-letters"):
        params["token_param"] = o["token_param"]
    if o["system"] and mode in ("chat", "chat-letters"):
        params["system"] = str(o["system"])
    if temp > 0 and mode != "cloze":
        params["seed"] = int(o["seed"])
    if o["tokenizer"]:
        if mode == "chat":
            raise BackendError(
                "option tokenizer= is for the scoring modes (cloze, letters, chat-letters), "
                "not mode chat"
            )
        params["tokenizer"] = str(o["tokenizer"])
        params["scoring"] = "token ids, echoed log-probabilities"
        params.pop("top_logprobs", None)
    if o["server_id"]:
        params["server"] = str(o["server_id"])
    elif urls != (DEFAULT_BASE_URL,):
        params["server"] = sorted(urls)
    proxy = o["proxy"]
    if proxy and not str(proxy).startswith(("http://", "https://")):
        raise BackendError(f"proxy '{proxy}' must start with http:// or https://")
    return {
        "base_urls": urls,
        "params": params,
        "concurrency": as_int(o["concurrency"], "concurrency", 1),
        "max_retries": as_int(o["max_retries"], "max_retries", 0),
        "timeout": as_float(o["timeout"], "timeout", 0.001),
        "api_key_env": str(o["api_key_env"]),
        "backoff": as_float(o["backoff"], "backoff"),
        "backoff_cap": as_float(o["backoff_cap"], "backoff_cap"),
        "proxy": str(proxy) if proxy else None,
    }
