"""Records that flow between the stages: Request -> Response -> (normalised) prediction.

Dataset items themselves are kept as typed pandas tables (one row per card row, the card's
column names, enums as categoricals); see ``winoscope.datasets.schema``. A task turns each row
into an :class:`Item`: the annotations of the row (the sentence, its pronoun and candidate
mentions with their character spans, genders and stereotypes) that a transparent reference
baseline may read, and never the gold answer. The item travels with its requests
(``Request.item``) but is no part of what a model sees or of the content hash. Requests and
responses are small frozen dataclasses so they can be hashed, stored and compared.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

# one encoder for every hash (json.dumps with options builds a new one per call)
_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True)

RequestKind = Literal["choice", "cloze", "nli", "coref", "sequence"]


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
class Mention:
    """One mention of a sentence: its surface ``text`` and character span ``[start, end)``.

    ``role`` names what the mention is (an option role such as ``target``/``distractor`` or
    ``occupation``/``participant``; ``pronoun`` for the pronoun). ``start``/``end`` are None
    where the text does not locate the mention (a single-context sentence names only one
    entity). ``gender`` is the grammatical gender the data gives (None where it gives none),
    ``case`` the grammatical case where known. ``name`` is the mention's dictionary form (how
    an option names it), ``occupation`` the occupation it stands for (the lexicon key),
    ``stereotype`` the occupation's stereotyped gender from an occupation table and
    ``stereotype_labels`` the one implied by the data's pro/anti labels.
    """

    text: str
    start: int | None
    end: int | None
    role: str
    gender: str | None = None
    case: str | None = None
    name: str | None = None
    occupation: str | None = None
    stereotype: str | None = None
    stereotype_labels: str | None = None


@dataclass(frozen=True)
class Item:
    """The annotations of one dataset row that a transparent baseline may read.

    ``mentions`` are the candidates (one per option role), ``pronoun`` the pronoun mention.
    ``condition`` is the row's pro/anti/control label and
    ``context`` its double/single context where the family has one. NLI items also carry the
    ``premise``, the ``hypothesis`` and the ``candidate`` role the hypothesis names.
    """

    item_id: str
    row_id: str
    language: str
    sentence: str
    mentions: tuple[Mention, ...]
    pronoun: Mention | None
    condition: str | None = None
    context: str | None = None
    premise: str | None = None
    hypothesis: str | None = None
    candidate: str | None = None

    def mention(self, role: str) -> Mention | None:
        """The candidate mention with this role, or None."""
        return next((m for m in self.mentions if m.role == role), None)

    @property
    def pronoun_gender(self) -> str | None:
        return self.pronoun.gender if self.pronoun is not None else None

    @property
    def stereotype_role(self) -> str | None:
        """The candidate a stereotype-following resolver picks: the one whose occupation's
        stereotyped gender (from the table, else the labels) is the pronoun's gender; None
        where no single candidate qualifies."""
        return stereotyped_role(self.pronoun_gender, self.mentions)


def stereotyped_role(
    pronoun_gender: str | None, mentions: Iterable[Mention], *, labels_only: bool = False
) -> str | None:
    """The one candidate role whose stereotyped gender is the pronoun's gender, else None.

    A candidate's stereotype is its table stereotype, falling back to the label-implied one;
    ``labels_only`` uses the label-implied one alone.
    """
    if pronoun_gender is None:
        return None
    hits = [
        m.role
        for m in mentions
        if (m.stereotype_labels if labels_only else (m.stereotype or m.stereotype_labels))
        == pronoun_gender
    ]
    return hits[0] if len(hits) == 1 else None


@dataclass(frozen=True)
class Request:
    """What one model call asks.

    ``prompt`` and ``options`` are everything a model sees; ``item`` carries the row's typed
    annotations for transparent reference baselines (never shown to a real model, not compared
    and not part of the content hash). ``row_id`` names the scored dataset row and ``order`` the option order, so
    the two orders of one row can be combined after the model answers.
    """

    request_id: str
    kind: RequestKind
    prompt: str
    options: tuple[Option, ...]
    row_id: str
    item_id: str
    order: str = ""
    item: Item | None = field(default=None, compare=False, hash=False)
    # how a ``sequence`` request's scored token sequences are built from the prompt and each
    # option (:mod:`winoscope.protocols.scored_sequences`); "" for every other kind
    recipe: str = ""

    @property
    def content_hash(self) -> str:
        """Stable hash of what the model sees (kind, prompt, option labels and texts, and the
        recipe of a ``sequence`` request)."""
        payload: dict[str, Any] = {
            "kind": self.kind,
            "prompt": self.prompt,
            "options": [[o.label, o.text] for o in self.options],
        }
        if self.recipe:
            payload["recipe"] = self.recipe
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


# the protocols a backend may answer: lettered forced choice, its NLI form, the resolver
# protocol (clusters for a document) and cloze (log-likelihoods of continuations)
PROTOCOLS = ("forced_choice", "nli_forced_choice", "coref", "cloze", "mean_token_logprob")
#: what a backend answers when it scores ``sequence`` requests: each option's mean token
#: log-probability over a token sequence built by the request's recipe (the published scoring
#: methods of the Ukrainian fairness leaderboard ask it)
SEQUENCE_PROTOCOL = "mean_token_logprob"
CHOICE_PROTOCOLS = frozenset({"forced_choice", "nli_forced_choice"})
#: the ``modes`` of a backend that has no ``mode`` option
NO_MODES: Mapping[str, frozenset[str]] = MappingProxyType({})


@dataclass(frozen=True)
class Description:
    """What a backend says about itself for the manifest, beyond ``params`` (its identity).

    ``runtime``: how the work was spread (device, dtype, batch size used ...), not part of the
    store's key; ``transport``: how it was reached (HTTP session, proxy, TLS, retries);
    ``output``: what a file of answers held (a resolver's output: matched documents).
    """

    runtime: Mapping[str, Any] = field(default_factory=dict)
    transport: Mapping[str, Any] | None = None
    output: Mapping[str, Any] | None = None
