"""Transparent reference baselines. They are reference points, not models.

Each reads the request's typed :class:`~winoscope.records.Item` (the row's annotations: the
pronoun and the candidate mentions with their offsets, genders and stereotypes), never the gold
answer. A request without an item is answered by position (``first``) or at random.

- ``baseline:random`` picks an option uniformly, seeded per request (same seed, same answers,
  whatever the order of requests): expected accuracy 0.5, bias gap near 0.
- ``baseline:first`` picks the occupation mentioned first in the sentence: measures how far a
  set can be solved by position.
- ``baseline:stereotype`` picks the occupation whose stereotyped gender (from the occupation
  table; where the table has no entry, from the data's pro/anti labels) matches the pronoun's
  gender, else the first mention: a maximally biased resolver, bias gap near 1 by construction.
  ``baseline:stereotype-labels`` uses only the stereotypes implied by the pro/anti labels.
- ``baseline:agreement`` picks the occupation whose grammatical gender in the sentence agrees
  with the pronoun (read with the item's language's morphological analyser, falling back to
  the row's gender fields when the analyser is undecided or the language has none), else the
  first mention: it solves every mixed-gender control and sits at chance-by-position on
  same-gender rows.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import BackendError
from ..languages import get_language
from ..records import NO_MODES, Mention, Request, Response, stereotyped_role
from .base import Description, backend, reject_unknown

Picker = Callable[[Request, dict[str, Any]], str | None]


def _mention(req: Request, role: str) -> Mention | None:
    return req.item.mention(role) if req.item is not None else None


def _first(req: Request, _: dict[str, Any]) -> str | None:
    best = None
    for opt in req.options:
        m = _mention(req, opt.role)
        start = m.start if m is not None else None
        if start is None:
            continue
        if best is None or start < best[0]:
            best = (start, opt.label)
    return best[1] if best else req.options[0].label


def _random(req: Request, params: dict[str, Any]) -> str | None:
    key = f"{params.get('seed', 0)}|{req.request_id}".encode()
    rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
    return rng.choice(req.options).label


def _stereotype(req: Request, params: dict[str, Any]) -> str | None:
    """Pick the option whose occupation's stereotyped gender is the pronoun's gender.

    ``stereotype`` comes from the occupation table, ``stereotype_labels`` from the data's own
    pro/anti labels (a pro row says the referent's stereotype is the pronoun's gender). Table
    mode (the item's ``stereotype_role``) falls back to the labels for occupations the table
    lacks.
    """
    item = req.item
    role = None
    if item is not None:
        role = (
            item.stereotype_role
            if params.get("source") == "table"
            else stereotyped_role(item.pronoun_gender, item.mentions, labels_only=True)
        )
    hit = next((o.label for o in req.options if role is not None and o.role == role), None)
    return hit if hit is not None else _first(req, params)


def _agreement(req: Request, params: dict[str, Any]) -> str | None:
    item = req.item
    if item is None:
        return _first(req, params)
    gender_of = get_language(item.language).phrase_gender
    pronoun = item.pronoun
    pron = gender_of(pronoun.text) if pronoun is not None else None
    pron = pron or item.pronoun_gender
    hits = []
    for o in req.options:
        m = item.mention(o.role)
        g = (gender_of(m.text) or m.gender) if m is not None else None
        if pron is not None and g == pron:
            hits.append(o.label)
    if len(hits) == 1:
        return hits[0]
    return _first(req, params)


PICKERS: dict[str, tuple[Picker, dict[str, Any]]] = {
    "random": (_random, {}),
    "first": (_first, {}),
    "stereotype": (_stereotype, {"source": "table"}),
    "stereotype-labels": (_stereotype, {"source": "labels"}),
    "agreement": (_agreement, {}),
}


@dataclass
class BaselineBackend:
    model: str
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "baseline"
    cacheable: bool = False

    #: a baseline reads the typed item, so it answers lettered choices, NLI questions and, as a
    #: reference resolver, coreference documents
    protocols: frozenset[str] = frozenset({"forced_choice", "nli_forced_choice", "coref"})
    mode: ClassVar[str | None] = None  # no mode option
    modes: ClassVar[Mapping[str, frozenset[str]]] = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        picker, _ = PICKERS[self.model]
        for req in requests:
            label = picker(req, self.params)
            yield Response(
                request_id=req.request_id, backend=self.kind, model=self.model, choice=label
            )


BASELINE_OPTIONS = ("seed",)


@backend("baseline", BASELINE_OPTIONS)
def make_baseline(name: str, *, seed: int = 0, **unknown: Any) -> BaselineBackend:
    """Baselines take no options beyond the seed (used by ``random``); any other is an error."""
    reject_unknown("baseline", unknown, BASELINE_OPTIONS)
    if name not in PICKERS:
        raise BackendError(f"unknown baseline '{name}' (known: {', '.join(sorted(PICKERS))})")
    defaults = PICKERS[name][1]
    params = dict(defaults)
    if name == "random":
        params["seed"] = seed
    return BaselineBackend(model=name, params=params)
