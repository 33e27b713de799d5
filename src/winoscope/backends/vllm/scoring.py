"""From token ids to option scores with vLLM's prompt log-probabilities.

Every option is scored by handing vLLM the prompt followed by the option's tokens and reading
the log-probability vLLM gives each of those tokens (``prompt_logprobs=0``: the prompt's own
tokens). Nothing is read from a top-k list, so an option letter far outside the top 20 is
scored exactly. An option with several spellings (``A`` and `` A`` ...) sums their
probabilities, as the ``hf:`` backend does; ``letter_mass`` is then the total on the offered
letters.

Worked example: prompt ``[5, 9, 2]`` and option continuations ``[[7], [8, 3]]`` become the
prompts ``[5, 9, 2, 7]`` and ``[5, 9, 2, 8, 3]``; option 0 is ``log p(7 | 5 9 2)``, option 1
``log p(8 | 5 9 2) + log p(3 | 5 9 2 8)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ...records import Request


@dataclass
class Item:
    """One request in token ids: its prompt, and per option its alternative spellings (each a
    continuation; one per option except for letters)."""

    req: Request
    prompt: list[int]
    options: list[list[list[int]]]
    letters: bool = False
    counts: bool = False  # report each continuation's token count (cloze)

    def problem(self, max_len: int) -> str | None:
        if not self.req.options:
            return "the request has no options to score"
        if not self.prompt:
            return "the prompt is empty after tokenisation"
        if any(not alt or not c for alt in self.options for c in alt):
            return "an option is empty after tokenisation"
        longest = len(self.prompt) + max(len(c) for alt in self.options for c in alt)
        if longest > max_len:
            return (
                f"{longest} tokens exceed the engine's max_model_len of {max_len} "
                "(-M max_model_len=N raises it up to the model's context)"
            )
        return None

    def sequences(self) -> list[list[int]]:
        """The prompts vLLM scores for this item: the prompt followed by each alternative."""
        return [self.prompt + c for alt in self.options for c in alt]


def logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def option_values(
    item: Item, scored: Sequence[Sequence[float]]
) -> tuple[list[float], float | None]:
    """Per option its log-probability from the scored sequences (in :meth:`Item.sequences`
    order), and the letter mass when letters are read."""
    n = len(item.prompt)
    values: list[float] = []
    mass = 0.0
    k = 0
    for alt in item.options:
        sums = []
        for cont in alt:
            token_lps = scored[k][n - 1 : n - 1 + len(cont)]
            sums.append(sum(token_lps))
            k += 1
        values.append(sums[0] if len(sums) == 1 else logsumexp(sums))
        mass += sum(math.exp(v) for v in sums)
    return values, (mass if item.letters else None)
