"""A file shaped like the BBQ-UK release, and a scripted scorer that answers its methods.

:func:`write_bbq_uk` writes ``pairs`` ambiguous/disambiguated pairs in BBQ-UK's columns:
BBQ's eleven categories (names for question templates above 25), templates of 40 pairs,
texts of the release's lengths (a context of about 250 characters, 400 when disambiguated),
and the release's 16 rows without a target (the last 8 pairs). At the release's 29,246 pairs it
has its 58,492 rows and 58,476 eligible ones. Nothing in it is BBQ's text.

:class:`ScriptedScorer` answers ``mean_token_logprob`` requests with option scores taken from
a hash of the request and option (the same answers for the same request, in any order): what
a model's pass would return, without the model.
"""

from __future__ import annotations

import csv
import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from winoscope.backends.base import Description
from winoscope.families.bbq.english import BBQ_COMMIT, CATEGORIES
from winoscope.records import NO_MODES, SEQUENCE_PROTOCOL, Request, Response

COLUMNS = [
    "item_id",
    "pair_id",
    "example_id",
    "question_index",
    "question_polarity",
    "context_condition",
    "category",
    "label_type",
    "label",
    "target_loc",
    "unknown_answer_index",
    "bias_score_eligible",
    "source_revision",
    "context_uk",
    "question_uk",
    "ans0_uk",
    "ans1_uk",
    "ans2_uk",
]
REVISION = BBQ_COMMIT  # the BBQ commit BBQ-UK was translated from
WORDS = [
    "учора",
    "біля",
    "школи",
    "двоє",
    "людей",
    "довго",
    "говорили",
    "про",
    "роботу",
    "сусідів",
    "місто",
    "дім",
]


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    while sum(len(w) + 1 for w in out) < chars:
        out.append(rng.choice(WORDS))
    return " ".join(out).capitalize() + "."


def write_bbq_uk(path: Path, pairs: int = 29246, seed: int = 0) -> Path:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for p in range(pairs):
            category = CATEGORIES[p % len(CATEGORIES)]
            n = p // len(CATEGORIES)
            qi = 1 + (n // 40) % 50
            unknown = rng.randrange(3)
            people = [i for i in range(3) if i != unknown]
            target = rng.choice(people)
            eligible = p < pairs - 8
            context = _text(rng, 250)
            question = _text(rng, 60).rstrip(".") + "?"
            answers = [_text(rng, 14) for _ in range(3)]
            for k, cond in enumerate(("ambig", "disambig")):
                example = 2 * n + k
                label = unknown if cond == "ambig" else rng.choice(people)
                w.writerow(
                    [
                        f"{category}-{example}",
                        f"{category}-{n}",
                        example,
                        qi,
                        "neg" if n % 2 == 0 else "nonneg",
                        cond,
                        category,
                        "name" if qi > 25 else "label",
                        label,
                        target if eligible else "",
                        unknown,
                        "true" if eligible else "false",
                        REVISION,
                        context + (" " + _text(rng, 150) if k else ""),
                        question,
                        *answers,
                    ]
                )
    return path


def _score(request_id: str, label: str) -> float:
    digest = hashlib.sha256(f"{request_id}|{label}".encode()).digest()
    return -(int.from_bytes(digest[:4], "big") % 4000) / 1000.0  # 4000 values: some ties


@dataclass
class ScriptedScorer:
    """Answers ``sequence`` requests with hashed option scores (see the module docstring)."""

    model: str = "scripted"
    kind: str = "scripted"
    cacheable: bool = True
    params: dict[str, Any] = field(default_factory=dict)
    protocols: frozenset[str] = frozenset({SEQUENCE_PROTOCOL})
    mode: ClassVar[str | None] = None
    modes: ClassVar[Any] = NO_MODES
    asked: int = 0

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        for req in requests:
            self.asked += 1
            yield Response(
                request_id=req.request_id,
                backend=self.kind,
                model=self.model,
                option_logprobs=[_score(req.request_id, o.label) for o in req.options],
                option_token_counts=[1] * len(req.options),
            )
