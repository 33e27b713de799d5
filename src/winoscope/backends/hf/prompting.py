"""A request's prompt and options in token ids, as every tokenizer-driven backend reads them.

The ``hf:`` backend and the in-process ``vllm:`` backend share these functions, so both feed
their model exactly the same ids: the prompt (in the chat template for ``letters`` and
``generate`` when ``chat`` is on), each option's continuation (``prefix`` + text, or + label),
and each option letter's single-token spellings (:func:`.encoding.letter_token_ids`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import BackendError
from ...records import Request


def chat_text(tok: Any, prompt: str, params: Mapping[str, Any], label: str) -> str:
    """The prompt as the user turn of the chat template, ready for the assistant's answer."""
    from .encoding import render_chat

    system = str(params["system"]) if params.get("system") else None
    try:
        return render_chat(tok, prompt, system)
    except Exception as exc:
        raise BackendError(f"{label}: chat template failed: {exc}") from exc


def prompt_ids(tok: Any, prompt: str, params: Mapping[str, Any], label: str) -> list[int]:
    """Token ids of the prompt as the model reads it (in the chat template when on)."""
    from .encoding import prompt_token_ids

    if params["mode"] in ("generate", "letters") and params.get("chat"):
        system = str(params["system"]) if params.get("system") else None
        try:
            return prompt_token_ids(tok, prompt, chat=True, system=system)
        except Exception as exc:
            raise BackendError(f"{label}: chat template failed: {exc}") from exc
    return prompt_token_ids(tok, prompt)


def continuation_ids(tok: Any, req: Request, params: Mapping[str, Any]) -> list[list[int]]:
    """Per option, the ids of ``prefix`` + its text (its label in ``letters`` mode)."""
    prefix = str(params.get("prefix", " "))
    texts = [o.label if params["mode"] == "letters" else o.text for o in req.options]
    return [[int(t) for t in tok(prefix + t, add_special_tokens=False)["input_ids"]] for t in texts]


class LetterIds:
    """Per request's option labels (and script), the letter spellings' token ids, cached."""

    def __init__(self) -> None:
        self._cache: dict[tuple[tuple[str, ...], bool], list[list[int]] | None] = {}

    def __call__(self, tok: Any, req: Request, params: Mapping[str, Any]) -> list[list[int]] | None:
        """Per option, the token ids of its letter's spellings (None: read as continuations)."""
        from .encoding import has_cyrillic, letter_token_ids

        if params.get("prefix", " ") != " ":
            return None
        key = (tuple(o.label for o in req.options), has_cyrillic(req.prompt))
        if key not in self._cache:
            self._cache[key] = letter_token_ids(tok, *key)
        return self._cache[key]


def cloze_ids(enc: Any, req: Request) -> tuple[list[int], list[list[int]]] | str:
    """The context's ids and each option's continuation ids as lm-evaluation-harness splits
    them (``enc`` is a :class:`.encoding.ClozeEncoder`), or why the request cannot be scored."""
    pairs = [enc.pair(req.prompt, o.text) for o in req.options]
    if len({tuple(c) for c, _ in pairs}) > 1:  # trailing spaces never depend on the option
        return "the options' contexts tokenise differently"
    return (pairs[0][0] if pairs else []), [c for _, c in pairs]
