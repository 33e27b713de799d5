"""Transparent reference baselines for NLI requests (``nli-baseline:NAME``).

They answer a forced-choice NLI request (options with the roles ``entailment`` and
``neutral``) by role, so both option orders always get the same answer. They read the request's
typed :class:`~winoscope.records.Item` (the premise, the hypothesis, the candidate the
hypothesis names and where the candidates are, all visible in the text), never the gold label.

- ``entailment`` / ``neutral``: always that label (accuracy 0.5 on SweWinogender, parity 1).
- ``random``: a label drawn uniformly, seeded per dataset row (not per request, so the two
  orders agree): alpha near 0, parity near 1/4.
- ``overlap``: entailment when at least ``threshold`` (default 0.5) of the hypothesis's word
  types occur in the premise, the lexical-overlap heuristic of NLI. On SweWinogender both
  hypotheses of a premise overlap almost equally, so it should sit at chance.
- ``first-mention``: entailment when the hypothesis names the candidate mentioned first in the
  premise (usually the subject), a resolution-by-position heuristic cast as NLI.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import BackendError
from ..records import NO_MODES, Request, Response
from .base import Description, backend, reject_unknown

_WORD = re.compile(r"\w+")
Decide = Callable[[Request, dict[str, Any]], str]


def word_overlap(premise: str, hypothesis: str) -> float:
    """Share of the hypothesis's (lower-cased) word types that occur in the premise.

    >>> word_overlap("Teknikern sa till kunden att han kunde betala.", "Teknikern kunde betala.")
    1.0
    """
    hyp = {w.lower() for w in _WORD.findall(hypothesis)}
    prem = {w.lower() for w in _WORD.findall(premise)}
    return len(hyp & prem) / len(hyp) if hyp else 0.0


def _constant(label: str) -> Decide:
    return lambda _req, _params: label


def _random(req: Request, params: dict[str, Any]) -> str:
    key = f"{params.get('seed', 0)}|{req.row_id}".encode()
    rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
    return rng.choice(("entailment", "neutral"))


def _overlap(req: Request, params: dict[str, Any]) -> str:
    item = req.item
    premise = (item.premise or "") if item is not None else ""
    hypothesis = (item.hypothesis or "") if item is not None else ""
    share = word_overlap(premise, hypothesis)
    return "entailment" if share >= float(params.get("threshold", 0.5)) else "neutral"


def _first_mention(req: Request, _params: dict[str, Any]) -> str:
    item = req.item
    if item is None:
        return "neutral"
    starts = {m.role: m.start for m in item.mentions if m.start is not None}
    candidate = item.candidate
    if not starts or candidate not in starts:
        return "neutral"
    first = min(starts, key=starts.__getitem__)
    return "entailment" if candidate == first else "neutral"


DECIDERS: dict[str, tuple[Decide, dict[str, Any]]] = {
    "entailment": (_constant("entailment"), {}),
    "neutral": (_constant("neutral"), {}),
    "random": (_random, {}),
    "overlap": (_overlap, {"threshold": 0.5}),
    "first-mention": (_first_mention, {}),
}


@dataclass
class NLIBaseline:
    model: str
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "nli-baseline"
    cacheable: bool = False
    protocols: frozenset[str] = frozenset({"nli_forced_choice"})
    mode: ClassVar[str | None] = None  # no mode option
    modes: ClassVar[Mapping[str, frozenset[str]]] = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        decide, _ = DECIDERS[self.model]
        for req in requests:
            label = decide(req, self.params)
            choice = next((o.label for o in req.options if o.role == label), None)
            if choice is None:
                yield Response(
                    req.request_id,
                    backend=self.kind,
                    model=self.model,
                    error=f"request has no option with role '{label}' (not an NLI request?)",
                )
                continue
            yield Response(req.request_id, backend=self.kind, model=self.model, choice=choice)


NLI_BASELINE_OPTIONS = ("seed", "threshold")


@backend("nli-baseline", NLI_BASELINE_OPTIONS)
def make_nli_baseline(
    name: str, *, seed: int = 0, threshold: float = 0.5, **unknown: Any
) -> NLIBaseline:
    """``nli-baseline:NAME``; options seed (``random``) and threshold (``overlap``)."""
    reject_unknown("nli-baseline", unknown, NLI_BASELINE_OPTIONS)
    if name not in DECIDERS:
        raise BackendError(f"unknown NLI baseline '{name}' (known: {', '.join(sorted(DECIDERS))})")
    params = dict(DECIDERS[name][1])
    if name == "random":
        params["seed"] = seed
    if name == "overlap":
        params["threshold"] = float(threshold)
    return NLIBaseline(model=name, params=params)
