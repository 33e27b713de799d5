"""The StereoSet family's task: ``stereoset-uk``, scored by the evaluator's published method.

``causal_full_sentence_mean_token_logprob_v1`` (the StereoSet-UK Eval evaluator's method): each
of an item's three candidate sentences (the template with its ``[BLANK]`` filled by the
stereotypical, anti-stereotypical and unrelated fill) is encoded without special tokens after
the tokenizer's start token (BOS, else PAD, else EOS), and its score is the mean
log-probability of its tokens (every token after the start token). That is the ``start_token``
recipe of a ``sequence`` request (:mod:`winoscope.protocols.scored_sequences`): one request per
item, one option per candidate sentence, an empty prompt.

Winoscope's cloze protocol cannot express it: a cloze template ends with the candidate and
scores only the continuation after a shared context, while StereoSet's blank sits anywhere in
the sentence and the whole sentence is scored. The published method is therefore the task's
only binding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ...datasets.base import Dataset
from ...errors import TaskError
from ...protocols.forced_choice import PromptTemplate
from ...protocols.mean_logprob import combine_sequences
from ...protocols.scored_sequences import START_TOKEN, sequence_request
from ...records import SEQUENCE_PROTOCOL, Option, Request, Response
from ...tasks.base import DatasetAccess, ProtocolBinding, Task, task
from . import scorer
from .checks import BLANK, fill_blank
from .dataset import LABELS, UK, StereoSet

METHOD = "causal_full_sentence_mean_token_logprob_v1"
ORDER = "single"  # one request per item: combine_sequences names its one order so
#: the method scores the sentences alone: its template is empty and takes no placeholder
SENTENCES_ONLY = PromptTemplate("", name=METHOD, allowed=frozenset())


def build_requests(data: StereoSet, ds: Dataset) -> list[Request]:
    """One ``start_token`` request per row whose template has exactly one blank (the others
    are blocking findings); options are the filled sentences labelled by candidate."""
    template = data.col("template")
    out = []
    for row in ds.table.to_dict("records"):
        if str(row[template]).count(BLANK) != 1:
            continue
        options = tuple(
            Option(
                label=label,
                text=fill_blank(row[template], row[data.col(f"{label}_fill")]),
                role=label,
            )
            for label in LABELS
        )
        out.append(
            sequence_request(
                request_id=str(row["row_id"]),
                row_id=str(row["row_id"]),
                item_id=str(row["item_id"]),
                prompt="",
                options=options,
                recipe=START_TOKEN,
            )
        )
    return out


def item_scores(requests: Sequence[Request], responses: Mapping[str, Response]) -> pd.DataFrame:
    """Per row: each candidate's mean token log-probability (``<candidate>_logprob``) and
    token count (``<candidate>_tokens``), and the ``prediction``: the candidate scored highest,
    ``tie`` when two share the top score, NA when the request failed (its ``error`` beside)."""
    frame = combine_sequences(requests, responses)
    if frame.empty:
        raise TaskError("no request to join")
    out = pd.DataFrame({"row_id": frame["row_id"], "prediction": frame[f"pick_{ORDER}"]})
    for label in LABELS:
        out[f"{label}_logprob"] = frame[f"mean_{ORDER}_{label}"]
        out[f"{label}_tokens"] = frame[f"tokens_{ORDER}_{label}"].astype("Int64")
    errors = {
        req.row_id: resp.error
        for req in requests
        if (resp := responses.get(req.request_id)) is not None and resp.error is not None
    }
    out["error"] = out["row_id"].map(errors)
    return out


def stereoset_task(name: str, data: StereoSet, *, description: str, register: bool = True) -> Task:
    """A StereoSet task over ``data`` with the published method as its only binding."""

    def requests(ds: Dataset, template: Any) -> list[Request]:
        return build_requests(data, ds)

    def predict(
        ds: Dataset, reqs: Sequence[Request], responses: Mapping[str, Response]
    ) -> pd.DataFrame:
        return item_scores(reqs, responses)

    binding = ProtocolBinding(
        requests, predict, SENTENCES_ONLY, prediction_column="prediction", asks=SEQUENCE_PROTOCOL
    )
    t = Task(
        name,
        data=DatasetAccess.of(data),
        protocols={METHOD: binding},
        scorer=scorer.score,
        metrics=scorer.METRICS,
        description=description,
        family="stereoset",
        strata=(data.col("bias_type"),),
        # no prompt to vary: the method scores the sentences alone (the data is Ukrainian)
        language="",
    )
    return task(t) if register else t


STEREOSET_UK = stereoset_task(
    "stereoset-uk",
    UK,
    description="StereoSet-UK Eval (Ukrainian intrasentence): LMS, SS and ICAT per bias type, "
    "by the evaluator's causal_full_sentence_mean_token_logprob_v1",
)
