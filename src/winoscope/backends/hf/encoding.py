"""Turning requests into token ids: cloze pairs as lm-evaluation-harness does, option letters.

**Cloze** (``Request.kind == "cloze"`` or ``mode=cloze``): the prompt is the context
(``… ‘His’ refers to the``) and each option's text is its continuation (`` nurse``). The
pair is tokenised exactly as lm-evaluation-harness's ``HFLM`` does (``TemplateLM._encode_pair``
and ``HFLM.tok_encode`` in lm-eval 0.4.10 and later):

1. trailing whitespace of the context moves to the front of the continuation;
2. ``whole = encode(context + continuation)``, ``context_enc = encode(context)``,
   ``continuation_enc = whole[len(context_enc):]`` (so a token that merges across the
   boundary is scored as part of the continuation);
3. ``encode`` uses the tokenizer's own default for special tokens (Gemma's and Llama's
   tokenizers add BOS, GPT-2's adds nothing), except that a string which already starts with
   the BOS text gets none added; ``add_bos_token=true/false`` overrides, as in lm-eval;
4. an empty context is replaced by the BOS token (EOS when there is none), unless the
   continuation itself starts with that token.

The model then reads ``context_enc + continuation_enc`` and the score is the summed
log-probability of ``continuation_enc``. (lm-eval up to 0.4.9 encoded without special tokens
and forced BOS only for Gemma models; for Gemma and GPT-2 tokenizers both give the same ids.)

**Letters**: an option labelled ``A`` is read from the next-token distribution as the summed
probability of every single-token spelling of it: ``A``, `` A``, and for a prompt with
Cyrillic letters also the Cyrillic look-alike ``А`` / `` А`` (``B``: ``В``). Only visual
look-alikes count: a Ukrainian answer ``Б`` (the second letter of the Ukrainian alphabet) is
not read as ``B``; it lowers the letter mass instead, which the report shows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

# Latin capitals and the Cyrillic letters that look the same
LOOKALIKES = {
    "A": "А",
    "B": "В",
    "C": "С",
    "E": "Е",
    "H": "Н",
    "I": "І",
    "K": "К",
    "M": "М",
    "O": "О",
    "P": "Р",
    "T": "Т",
    "X": "Х",
}
_CYRILLIC = re.compile("[\u0400-\u04ff]")


def has_cyrillic(text: str) -> bool:
    return _CYRILLIC.search(text) is not None


def letter_spellings(label: str, cyrillic: bool) -> list[str]:
    """The spellings of an option letter that count as choosing it (see module doc)."""
    forms = [label, " " + label]
    twin = LOOKALIKES.get(label)
    if cyrillic and twin is not None:
        forms += [twin, " " + twin]
    return forms


def letter_token_ids(
    tokenizer: Any, labels: Sequence[str], cyrillic: bool
) -> list[list[int]] | None:
    """Per label, the distinct single-token ids of its spellings; None when a label has none.

    A token that spells two labels is dropped from both (it cannot tell them apart).
    """
    per_label: list[list[int]] = []
    for label in labels:
        ids: list[int] = []
        for form in letter_spellings(label, cyrillic):
            enc = tokenizer(form, add_special_tokens=False)["input_ids"]
            if len(enc) == 1 and enc[0] not in ids:
                ids.append(int(enc[0]))
        per_label.append(ids)
    counts: dict[int, int] = {}
    for ids in per_label:
        for t in ids:
            counts[t] = counts.get(t, 0) + 1
    per_label = [[t for t in ids if counts[t] == 1] for ids in per_label]
    return per_label if all(per_label) else None


class ClozeEncoder:
    """lm-evaluation-harness's context/continuation tokenisation for one tokenizer."""

    def __init__(self, tokenizer: Any, add_bos_token: bool | None = None) -> None:
        self.tok = tokenizer
        self.add_bos_token = add_bos_token
        bos, eos = tokenizer.bos_token_id, tokenizer.eos_token_id
        prefix = bos if bos is not None else eos
        if isinstance(prefix, list):
            prefix = prefix[0]
        self.prefix_id: int | None = None if prefix is None else int(prefix)
        self.prefix_text = "" if prefix is None else tokenizer.decode(self.prefix_id)

    def encode(self, text: str, add_special_tokens: bool | None = None) -> list[int]:
        kwargs: dict[str, Any] = {}
        if add_special_tokens is not None:
            kwargs["add_special_tokens"] = add_special_tokens
        elif self.add_bos_token is not None:
            kwargs["add_special_tokens"] = self.add_bos_token
        if (
            add_special_tokens is None
            and self.prefix_id is not None
            and text.startswith(self.prefix_text)
        ):
            kwargs["add_special_tokens"] = False
        return [int(t) for t in self.tok.encode(text, **kwargs)]

    def pair(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        """``(context_enc, continuation_enc)`` as lm-eval's ``loglikelihood`` builds them."""
        if context == "":
            cont = self.encode(continuation, add_special_tokens=False)
            if self.prefix_id is None:
                return [], cont
            if cont and cont[0] == self.prefix_id:
                return cont[:1], cont[1:]
            return [self.prefix_id], cont
        n_spaces = len(context) - len(context.rstrip())
        if n_spaces:
            continuation = context[-n_spaces:] + continuation
            context = context[:-n_spaces]
        whole = self.encode(context + continuation)
        context_enc = self.encode(context)
        return context_enc, whole[len(context_enc) :]


def render_chat(tokenizer: Any, prompt: str, system: str | None = None) -> str:
    """The prompt as the user turn of the tokenizer's chat template, ready for the answer."""
    messages = [{"role": "user", "content": prompt}]
    if system:
        messages.insert(0, {"role": "system", "content": system})
    return str(tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False))


def prompt_token_ids(
    tokenizer: Any, prompt: str, *, chat: bool = False, system: str | None = None
) -> list[int]:
    """Token ids of a prompt as the model reads it: the tokenizer's default special tokens
    (Gemma's BOS), or the chat template's text, which carries its own special tokens."""
    if chat:
        text = render_chat(tokenizer, prompt, system)
        return [int(t) for t in tokenizer(text, add_special_tokens=False)["input_ids"]]
    return [int(t) for t in tokenizer(prompt)["input_ids"]]
