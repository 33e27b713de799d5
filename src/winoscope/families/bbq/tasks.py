"""The BBQ tasks, ``bbq-uk`` and ``bbq-en``, and the ways each is asked.

- ``forced_choice`` (the task's own protocol): the evaluators' lettered question
  (:mod:`.asking`) in the three cyclic answer orders; a row gets an answer only when every
  order picks the same one, otherwise ``invalid`` (scored as wrong), as winoscope's two-option
  forced choice does in both orders. (:mod:`winoscope.protocols.forced_choice` itself builds
  two-option questions only, so this family builds its three-option requests and combines them
  with its order rule.) The reference baselines answer it.
- the published scoring methods, each a binding named as its authors name it, asking a backend
  for mean token log-probabilities (``mean_token_logprob``):
  ``abc_mean_token_logprob_fixed_{raw,chat,auto}_v2`` (one prompt, answers in the data's
  order), ``abc_mean_token_logprob_cyclic_{raw,chat,auto}_v2`` (the three cyclic orders, each
  answer scored by its mean over them), both from the BBQ-UK evaluator, and Fair-UK's
  ``abc_cyclic_mean_token_logprob_raw_v1`` (the same prompt, orders and tokenisation as
  ``..._cyclic_raw_v2``: the two give the same numbers). ``raw``/``chat``/``auto`` is how the
  prompt is rendered (the ``append_label`` recipes of :mod:`winoscope.protocols.scored_sequences`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ...datasets.base import Dataset
from ...protocols.forced_choice import PromptTemplate, combine_orders
from ...records import SEQUENCE_PROTOCOL, Request, Response
from ...tasks.base import DatasetAccess, Demo, ProtocolBinding, Task, task
from . import asking, scorer
from .dataset import BBQ
from .dataset import EN as en_data
from .dataset import UK as uk_data

FORMATS = ("raw", "chat", "auto")
V1 = "abc_cyclic_mean_token_logprob_raw_v1"


def method_names() -> list[str]:
    """The published methods' names, in the order the bindings are offered."""
    names = [
        f"abc_mean_token_logprob_{order}_{fmt}_v2"
        for order in ("cyclic", "fixed")
        for fmt in FORMATS
    ]
    return [*names, V1]


def _by_item(combined: pd.DataFrame) -> pd.DataFrame:
    """Each item's combined answer (``row_id`` of the requests is ``item_id``)."""
    return combined.rename(columns={"row_id": "item_id"})


def _choice_predict(
    ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    combined = combine_orders(requests, responses, orders=[f"order{k}" for k in range(3)])
    return _by_item(combined)


def _sequence_predict(
    ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    return _by_item(asking.combine_scores(requests, responses))


def bindings(adaptation: BBQ) -> dict[str, ProtocolBinding]:
    """The task's own protocol first, then one binding per published method."""
    lang = adaptation.language
    tmpl = asking.template(lang)

    def choice(ds: Dataset, t: PromptTemplate) -> list[Request]:
        return asking.choice_requests(ds.table, lang, t)

    out = {"forced_choice": ProtocolBinding(choice, _choice_predict, tmpl, key="item_id")}
    for name in method_names():
        orders = asking.FIXED if "_fixed_" in name else asking.CYCLIC
        fmt = next(f for f in FORMATS if f"_{f}_" in name)

        def build(ds: Dataset, t: PromptTemplate, _o: Any = orders, _f: str = fmt) -> list[Request]:
            return asking.sequence_requests(ds.table, lang, t, _o, _f)

        out[name] = ProtocolBinding(
            build, _sequence_predict, tmpl, asks=SEQUENCE_PROTOCOL, key="item_id"
        )
    return out


def bbq_task(name: str, adaptation: BBQ, description: str, demo: Demo | None = None) -> Task:
    return task(
        Task(
            name,
            data=DatasetAccess.of(adaptation),
            protocols=bindings(adaptation),
            scorer=scorer.score,
            metrics=scorer.METRICS,
            description=description,
            family=name,
            resampling_unit="category/question_index",
            demo=demo,
            strata=("category", "context_condition"),
            # no language: the prompt is the evaluators' own text, not one of a language's
            # wordings to vary (prompt sensitivity says so); the data's language is the
            # adaptation's
            language="",
        )
    )


BBQ_UK = bbq_task(
    "bbq-uk",
    uk_data,
    "BBQ-UK (Ukrainian BBQ): three-answer questions in ambiguous and disambiguated contexts; "
    "accuracy and BBQ's bias scores per category",
)
BBQ_EN = bbq_task(
    "bbq-en",
    en_data,
    "English BBQ (Parrish et al., 2022) from its category files: the same questions, "
    "accuracy and bias scores per category",
)
