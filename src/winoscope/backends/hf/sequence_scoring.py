"""Scoring ``sequence`` requests on a transformers model (the ``hf:`` backend).

Each option's context and scored ids come from :class:`.sequences.SequenceWork`. Where every
option shares its context (the usual case: the prompt, then one letter), the request is one
:class:`~.scoring.Prepared` item, so options of one token each are read from a single
next-token distribution: one forward pass answers the request, where the evaluators send each
option as its own prompt. Where the options' contexts differ (a letter that merges with the
prompt's last characters for one option and not the other), each option is scored on its own
and the parts are joined back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ...records import Request, Response
from .scoring import Prepared, ScoringBackend, score_prepared
from .sequences import SequenceWork

if TYPE_CHECKING:
    from .loading import LoadedLM


def score_sequences(
    backend: ScoringBackend, lm: LoadedLM, requests: Sequence[Request]
) -> Iterator[Response]:
    """Mean token log-probabilities of every request's options (errors for those that fail)."""
    work = SequenceWork.plan(lm.tokenizer, requests)
    for req, why in work.failed:
        yield backend._error(req, why)
    items = [Prepared(req, ctx, scored, None, counts=True) for req, ctx, scored in work.units]
    yield from work.finish(score_prepared(backend, lm, items))
