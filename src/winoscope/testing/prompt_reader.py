"""A scripted model that reads its prompt: for tests that must see what the prompt says.

The reference baselines answer from the item's data and the stand-in server from a hash of
the prompt, so neither notices a prompt that lists its options in one order while the
request's letters map to the other. :class:`PromptReader` answers like a model: it parses the
lettered options out of the prompt text (``A. лікар`` / ``B) nurse``), asks ``choose(prompt,
options)`` which option text it prefers (the test decides: the gold referent of the sentence
it finds in the prompt, say), and answers that letter. A prompt whose letters and texts
disagree with the request then shows as a wrong or order-inconsistent answer.

- :class:`ScriptedBackend` (kind ``scripted``) answers forced-choice requests with the letter
  as text, and cloze requests (no letters: the options are continuations the model reads
  after the context) with log-probabilities that prefer the chosen continuation.
- the stand-in OpenAI server takes ``StubBehaviour(pick=reader.letter)`` to answer the same
  way over HTTP (:mod:`.openai_server`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..records import CHOICE_PROTOCOLS, NO_MODES, Description, Request, Response

OPTION_LINE = re.compile(r"^[ \t]*([A-ZА-Я])[.)][ \t]+(.+?)[ \t]*$", re.M)
Choose = Callable[[str, Mapping[str, str]], str | None]
WIN, LOSE = -0.2, -4.0


def lettered_options(prompt: str) -> dict[str, str]:
    """``{"A": "лікар", "B": "секретарка"}`` from the prompt's option lines, in order."""
    return {m.group(1): m.group(2) for m in OPTION_LINE.finditer(prompt)}


def prefer_in_sentences(wanted: Iterable[tuple[str, str]]) -> Choose:
    """A ``choose``: find which of the ``(sentence, wanted text)`` pairs' sentence the prompt
    holds (the longest that matches) and prefer that text; None when no sentence matches."""
    pairs = sorted({(s, w) for s, w in wanted if s}, key=lambda p: -len(p[0]))

    def choose(prompt: str, options: Mapping[str, str]) -> str | None:
        for sentence, text in pairs:
            if sentence in prompt:
                return text
        return None

    return choose


@dataclass
class PromptReader:
    """Answers from the prompt text alone (see the module docstring)."""

    choose: Choose
    #: prompts it could not answer (no option lines, or no preferred text among them)
    unanswered: list[str] = field(default_factory=list)

    def letter(self, prompt: str) -> str:
        """The letter of the preferred option text in the prompt; ``?`` when there is none."""
        options = lettered_options(prompt)
        wanted = self.choose(prompt, options)
        for letter, text in options.items():
            if wanted is not None and text.strip().casefold() == wanted.strip().casefold():
                return letter
        self.unanswered.append(prompt)
        return "?"

    def continuation_scores(self, prompt: str, texts: Sequence[str]) -> tuple[float, ...]:
        """Log-probabilities preferring the chosen continuation (a cloze: context + text)."""
        wanted = self.choose(prompt, {str(i): t for i, t in enumerate(texts)})
        if wanted is None:
            self.unanswered.append(prompt)
        key = (wanted or "").strip().casefold()
        return tuple(WIN if t.strip().casefold() == key else LOSE for t in texts)


@dataclass
class ScriptedBackend:
    """A backend around a :class:`PromptReader`; it never looks at the request's option
    labels for a lettered prompt, only at the prompt text."""

    reader: PromptReader
    model: str = "prompt-reader"
    kind: str = "scripted"
    cacheable: bool = False
    params: dict[str, Any] = field(default_factory=lambda: {"answers": "by reading the prompt"})
    protocols: frozenset[str] = CHOICE_PROTOCOLS | {"cloze"}
    mode: ClassVar[str | None] = None  # no mode option
    modes: ClassVar[Mapping[str, frozenset[str]]] = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        for req in requests:
            if req.kind == "cloze":
                scores = self.reader.continuation_scores(req.prompt, [o.text for o in req.options])
                yield Response(req.request_id, self.kind, self.model, option_logprobs=scores)
            else:
                yield Response(
                    req.request_id, self.kind, self.model, text=self.reader.letter(req.prompt)
                )
