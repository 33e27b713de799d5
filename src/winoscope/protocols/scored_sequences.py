"""Scored sequences: requests answered by each option's mean token log-probability.

The Ukrainian fairness leaderboard's scoring methods (``counterbalanced_ab_mean_token_logprob_v1``
and the others its evaluators name) do not read a next-token distribution: for each option they
build one token sequence and score the tokens after a split point by their mean
log-probability. A ``sequence`` request carries what is needed to build those sequences with
the model's own tokenizer, which only the backend has; its ``recipe`` says how:

``append_label:raw`` / ``append_label:chat`` / ``append_label:auto``
    The prompt is rendered as it is (``raw``), as the user turn of the tokenizer's chat template
    (``chat``; ``add_generation_prompt=True``, ``enable_thinking=False``), or in the chat
    template when the tokenizer has one (``auto``). The option's *label* is appended as text.
    ``encode(rendered)`` and ``encode(rendered + label)`` are taken with the tokenizer's special
    tokens, and the scored tokens are those of the second after the two's common prefix.
``start_token``
    The prompt is empty. The option's *text* is encoded without special tokens after the
    tokenizer's start token (BOS, else PAD, else EOS); every token after it is scored.

A backend that scores such requests answers the :data:`SEQUENCE_PROTOCOL` protocol: its
response's ``option_logprobs`` are the options' mean token log-probabilities (in the request's
option order) and ``option_token_counts`` the number of tokens each mean is over.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import TaskError
from ..records import SEQUENCE_PROTOCOL, Item, Option, Request

__all__ = [
    "APPEND_LABEL",
    "RECIPES",
    "SEQUENCE_PROTOCOL",
    "START_TOKEN",
    "check_recipe",
    "sequence_request",
]

APPEND_LABEL = ("append_label:raw", "append_label:chat", "append_label:auto")
START_TOKEN = "start_token"
RECIPES = (*APPEND_LABEL, START_TOKEN)


def check_recipe(recipe: str) -> str:
    if recipe not in RECIPES:
        raise TaskError(f"unknown sequence recipe {recipe!r} (known: {', '.join(RECIPES)})")
    return recipe


def sequence_request(
    *,
    request_id: str,
    row_id: str,
    item_id: str,
    prompt: str,
    options: Sequence[Option],
    recipe: str,
    order: str = "",
    item: Item | None = None,
) -> Request:
    """A ``sequence`` request scoring ``options`` by ``recipe`` (see the module doc)."""
    check_recipe(recipe)
    if recipe == START_TOKEN and prompt:
        raise TaskError(f"request {request_id}: a start_token request scores its options alone")
    if not options:
        raise TaskError(f"request {request_id} has no options to score")
    return Request(
        request_id=request_id,
        kind="sequence",
        prompt=prompt,
        options=tuple(options),
        row_id=row_id,
        item_id=item_id,
        order=order,
        item=item,
        recipe=recipe,
    )
