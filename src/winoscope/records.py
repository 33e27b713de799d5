"""Records that flow between the stages: Request -> Response -> (normalised) prediction.

Dataset items themselves are kept as typed pandas tables (one row per card row, the card's
column names, enums as categoricals); see ``winoscope.datasets.schema``. Requests and responses
are small frozen dataclasses so they can be hashed, stored and compared.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

# one encoder for every hash (json.dumps with options builds a new one per call)
_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True)

RequestKind = Literal["choice", "cloze", "nli", "coref"]


@dataclass(frozen=True)
class Option:
    """One answer option of a forced-choice request.

    ``label`` is what the model sees (``"A"``); ``text`` is the option's wording; ``role`` is the
    hidden meaning used for scoring (``"target"``/``"distractor"``, ``"occupation"``/
    ``"participant"``, an NLI label ...). ``forms`` lists other spellings (inflected forms, the
    other grammatical gender) that count as naming this option in a free-text answer.
    """

    label: str
    text: str
    role: str
    forms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Request:
    """What one model call asks.

    ``prompt`` and ``options`` are everything a model sees; ``meta`` carries the item's
    annotations for transparent reference baselines (never shown to a real model and not part of
    the content hash). ``row_id`` names the scored dataset row and ``order`` the option order, so
    the two orders of one row can be combined after the model answers.
    """

    request_id: str
    kind: RequestKind
    prompt: str
    options: tuple[Option, ...]
    row_id: str
    item_id: str
    order: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def content_hash(self) -> str:
        """Stable hash of what the model sees (kind, prompt, option labels and texts)."""
        payload = {
            "kind": self.kind,
            "prompt": self.prompt,
            "options": [[o.label, o.text] for o in self.options],
        }
        blob = _CANONICAL.encode(payload).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()

    def option(self, label: str) -> Option | None:
        for opt in self.options:
            if opt.label == label:
                return opt
        return None


@dataclass(frozen=True)
class Response:
    """What came back for one request.

    ``text`` is free text (generation); ``choice`` is an option label chosen directly (baselines,
    log-likelihood scoring); ``option_logprobs`` holds one log-probability per option in the
    request's option order when the backend scores options; ``option_token_counts`` the number
    of tokens each option's scored continuation had (cloze). ``letter_mass`` is the probability
    mass the model put on the offered option letters (all their tokenisations) when letters
    are scored: a low mass means the model does not answer in the offered format.
    ``finish_reason`` is the server's reason for ending a generation (``stop``, ``length`` ...).
    ``clusters`` holds a coreference resolver's entities as character spans ``(start, end)`` of
    the request's prompt. ``error`` is set, and the others are empty, when the request failed
    after retries: an error is reported, never scored as a wrong answer.
    """

    request_id: str
    backend: str
    model: str
    text: str | None = None
    choice: str | None = None
    option_logprobs: tuple[float, ...] | None = None
    option_token_counts: tuple[int, ...] | None = None
    letter_mass: float | None = None
    finish_reason: str | None = None
    clusters: tuple[tuple[tuple[int, int], ...], ...] | None = None
    error: str | None = None
    cached: bool = False
    latency_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None
