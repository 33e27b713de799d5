"""Transparent reference baselines. They are reference points, not models.

Each reads the request's ``meta`` (the item's annotations), never the gold answer:

``meta = {"sentence": str, "pronoun": str, "pronoun_gender": "male"|"female"|None,
"condition": "pro"|"anti"|"control"|None,
"mentions": {role: {"text": str, "start": int, "gender": str|None, "stereotype": str|None}}}``

- ``baseline:random`` picks an option uniformly, seeded per request (same seed, same answers,
  whatever the order of requests): expected accuracy 0.5, bias gap near 0.
- ``baseline:first`` picks the occupation mentioned first in the sentence: measures how far a
  set can be solved by position.
- ``baseline:stereotype`` picks the occupation whose stereotyped gender (from the occupation
  table; where the table has no entry, from the data's pro/anti labels) matches the pronoun's
  gender, else the first mention: a maximally biased resolver, bias gap near 1 by construction.
  ``baseline:stereotype-labels`` uses only the stereotypes implied by the pro/anti labels.
- ``baseline:agreement`` picks the occupation whose grammatical gender in the sentence agrees
  with the pronoun (read with the morphological analyser, falling back to the row's gender
  fields when the analyser is undecided), else the first mention: it solves every mixed-gender
  control and sits at chance-by-position on same-gender rows.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackendError
from ..languages.uk_morphology import phrase_gender
from ..records import Request, Response
from .base import backend, reject_unknown

Picker = Callable[[Request, dict[str, Any]], str | None]


def _mentions(req: Request) -> dict[str, dict[str, Any]]:
    return dict(req.meta.get("mentions", {}))


def _first(req: Request, _: dict[str, Any]) -> str | None:
    ments = _mentions(req)
    best = None
    for opt in req.options:
        start = ments.get(opt.role, {}).get("start")
        if start is None:
            continue
        if best is None or start < best[0]:
            best = (start, opt.label)
    return best[1] if best else req.options[0].label


def _random(req: Request, params: dict[str, Any]) -> str | None:
    key = f"{params.get('seed', 0)}|{req.request_id}".encode()
    rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
    return rng.choice(req.options).label


def _matching(req: Request, attribute: str, target: str | None) -> list[str]:
    ments = _mentions(req)
    return [
        o.label
        for o in req.options
        if target is not None and ments.get(o.role, {}).get(attribute) == target
    ]


def _stereotype(req: Request, params: dict[str, Any]) -> str | None:
    """Pick the option whose occupation's stereotyped gender is the pronoun's gender.

    ``stereotype`` comes from the occupation table, ``stereotype_labels`` from the data's own
    pro/anti labels (a pro row says the referent's stereotype is the pronoun's gender). Table
    mode falls back to the labels for occupations the table lacks.
    """
    pron = req.meta.get("pronoun_gender")
    ments = _mentions(req)
    keys = (
        ("stereotype", "stereotype_labels")
        if params.get("source") == "table"
        else ("stereotype_labels",)
    )

    def stereo(role: str) -> str | None:
        m = ments.get(role, {})
        for k in keys:
            if m.get(k):
                return str(m[k])
        return None

    hits = [o.label for o in req.options if pron is not None and stereo(o.role) == pron]
    if len(hits) == 1:
        return hits[0]
    return _first(req, params)


def _agreement(req: Request, params: dict[str, Any]) -> str | None:
    ments = _mentions(req)
    pron = phrase_gender(str(req.meta.get("pronoun", ""))) or req.meta.get("pronoun_gender")
    hits = []
    for o in req.options:
        m = ments.get(o.role, {})
        g = phrase_gender(str(m.get("text", ""))) or m.get("gender")
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

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        picker, _ = PICKERS[self.model]
        for req in requests:
            label = picker(req, self.params)
            yield Response(
                request_id=req.request_id, backend=self.kind, model=self.model, choice=label
            )


BASELINE_OPTIONS = ("seed",)


@backend("baseline")
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
