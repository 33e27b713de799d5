"""Options of the ``hf:`` and ``gemma:`` backends: parsing, and which of them key the store.

``params`` holds what changes answers and so keys the response store: the mode, the dtype the
model computes in, the checkpoint's identity and the mode's own settings (chat template and
system text, letter spellings, continuation prefix, cloze tokenisation, decoding). How the
work is spread - the device, a device map, the batch size, the attention kernel, thread count -
does not key the store: float32 answers agree across devices and batch sizes to rounding, and
a resumed run on another GPU should reuse them. It is recorded in the manifest's
``model.runtime`` instead (with the batch size finally used and the out-of-memory retries).
The dtype does key the store, since bfloat16 answers differ from float32 ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from ...errors import BackendError
from ...records import CHOICE_PROTOCOLS, SEQUENCE_PROTOCOL

MODES = ("letters", "texts", "generate", "cloze")
#: each mode and the protocols it answers: in ``mode=cloze`` every request is scored as a
#: continuation, so only the cloze protocol; the other modes answer lettered choices, NLI
#: questions and cloze requests (a cloze request is scored as one in every mode)
#: ``sequence`` requests (the leaderboard's scoring methods) are scored alike in every mode
MODE_PROTOCOLS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        m: frozenset({"cloze", SEQUENCE_PROTOCOL})
        if m == "cloze"
        else CHOICE_PROTOCOLS | {"cloze", SEQUENCE_PROTOCOL}
        for m in MODES
    }
)
LETTER_SCORING = "next-token probability summed over A, ' A' (+ Cyrillic look-alikes)"
CLOZE_SCORING = "lm-eval HFLM loglikelihood tokenisation (context/continuation split)"
VERIFY = ("fingerprint", "full")


def as_bool_or_auto(value: Any, name: str) -> bool | str:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text == "auto":
        return "auto"
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    raise BackendError(f"option {name}={value!r}: expected auto, true or false")


def as_optional_bool(value: Any, name: str) -> bool | None:
    if value is None:
        return None
    parsed = as_bool_or_auto(value, name)
    if parsed == "auto":
        return None
    return bool(parsed)


def as_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise BackendError(f"option {name}={value!r}: expected a whole number")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise BackendError(f"option {name}={value!r}: expected a whole number") from None
    if number < 1:
        raise BackendError(f"option {name}={value!r}: must be at least 1")
    return number


def as_batch_size(value: Any) -> int | str:
    """A whole number, or ``auto`` (halve on out-of-memory)."""
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto"
    try:
        return as_positive_int(value, "batch_size")
    except BackendError:
        raise BackendError(
            f"option batch_size={value!r}: expected a whole number of at least 1 or auto"
        ) from None


def as_verify(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in VERIFY:
        raise BackendError(f"option verify={value!r}: expected one of {', '.join(VERIFY)}")
    return text


def build_params(
    *,
    mode: str,
    prefix: str,
    dtype: str,
    chat: bool | str,
    max_new_tokens: int,
    has_chat_template: Callable[[], bool],
    identity: dict[str, Any],
    system: str | None = None,
    add_bos_token: bool | None = None,
) -> dict[str, Any]:
    """The parameters that change answers (the manifest's record and the store's key)."""
    if mode not in MODES:
        raise BackendError(f"option mode={mode!r}: expected one of {', '.join(MODES)}")
    params: dict[str, Any] = {"mode": mode, "dtype": dtype, **identity}
    if system is not None and chat is False:
        raise BackendError("option system= needs the chat template (chat=auto or true)")
    use_chat = has_chat_template() if chat == "auto" else bool(chat)
    if chat is True and not has_chat_template():
        raise BackendError("option chat=true: the tokenizer has no chat template")
    if mode in ("generate", "letters"):
        params["chat"] = use_chat
        if use_chat and system:
            params["system"] = system
    if mode == "generate":
        params["decoding"] = "greedy"
        params["max_new_tokens"] = max_new_tokens
    elif mode == "letters":
        params["prefix"] = prefix
        params["letters"] = LETTER_SCORING if prefix == " " else "prefix + label"
    elif mode == "texts":
        params["prefix"] = prefix
    # cloze requests can arrive in any mode; their tokenisation keys the store too
    params["cloze"] = CLOZE_SCORING
    if add_bos_token is not None:
        params["add_bos_token"] = add_bos_token
    if system is not None and not params.get("chat"):
        raise BackendError("option system=: the tokenizer has no chat template to put it in")
    return params
