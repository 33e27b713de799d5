"""WinoPron-UK by the leaderboard's methods ``counterbalanced_ab_mean_token_logprob_{raw,chat,auto}_v2``.

As the dataset authors' evaluator asks them (``evaluation/winopron_uk/evaluate.py`` of
``reirei-00/fair_forget``): each of the dataset's forced-choice prompts (``prompt_uk``, both
option orders the dataset gives, stripped as the evaluator reads it) is rendered raw, in the
chat template, or in the chat template when the tokenizer has one; each letter is appended and
scored by the mean log-probability of its tokens (:mod:`winoscope.protocols.scored_sequences`).
A prompt whose two means are equal is a tie: half credit in prompt accuracy, never an attempt.
A sentence row counts only when both of its prompts pick the same role
(``prediction_role``; ``invalid`` otherwise), as the card's four steps say.

Beside ``prediction_role`` and ``order_consistent`` the rows carry what the evaluator's
prompt-level metrics need: ``prompts_asked``, ``prompt_ties`` and ``prompt_credit`` (the sum of
the prompts' credit: 1 for the gold letter, 0.5 for a tie), and each prompt's letters' means and
token counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ...datasets.base import Dataset
from ...errors import TaskError
from ...protocols.forced_choice import PromptTemplate
from ...protocols.mean_logprob import TIE, combine_sequences
from ...protocols.scored_sequences import SEQUENCE_PROTOCOL, sequence_request
from ...records import Option, Request, Response
from ...tasks.base import ProtocolBinding

FORMS = ("raw", "chat", "auto")
ORDERS = ("occupation_first", "participant_first")
ROLES = ("occupation", "participant")
LETTERS = ("A", "B")


def method_name(form: str) -> str:
    return f"counterbalanced_ab_mean_token_logprob_{form}_v2"


METHODS = tuple(method_name(f) for f in FORMS)


def _requests(ds: Dataset, form: str, language: str) -> list[Request]:
    prompts = getattr(ds, "prompts", None)
    if prompts is None:
        raise TaskError(
            f"{method_name(form)} scores the dataset's own forced_choice prompts, and this "
            "source has none"
        )
    keys = set(ds.table["row_key"].astype(str))
    out: list[Request] = []
    for p in prompts.to_dict("records"):
        key = str(p["row_key"])
        if key not in keys:
            continue  # a prompt without its sentence is reported by validate, not scored
        roles = (str(p["option_a_role"]), str(p["option_b_role"]))
        out.append(
            sequence_request(
                request_id=f"{p['prompt_id']}|{method_name(form)}",
                row_id=key,
                item_id=str(p["pair_id"]),
                prompt=str(p[f"prompt_{language}"]).strip(),
                options=tuple(
                    Option(label=lab, text=role, role=role)
                    for lab, role in zip(LETTERS, roles, strict=True)
                ),
                recipe=f"append_label:{form}",
                order=str(p["option_order"]),
            )
        )
    return out


def _predict(
    ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    frame = combine_sequences(requests, responses)
    if frame.empty:
        raise TaskError("no request to join")
    gold = dict(
        zip(ds.table["row_key"].astype(str), ds.table["gold_role"].astype(str), strict=True)
    )
    records = []
    for rec in frame.to_dict("records"):
        asked = [o for o in ORDERS if f"pick_{o}" in rec]
        picks = [rec[f"pick_{o}"] for o in asked]
        row = {"row_key": rec["row_id"], "failed_requests": rec["failed_requests"]}
        for o in asked:
            for lab in LETTERS:
                row[f"mean_logprob_{o}_{lab}"] = rec.get(f"mean_{o}_{lab}")
                row[f"token_count_{o}_{lab}"] = rec.get(f"tokens_{o}_{lab}")
                row[f"role_{o}_{lab}"] = rec.get(f"role_{o}_{lab}")
            row[f"pick_{o}"] = rec[f"pick_{o}"]
        if any(pd.isna(p) for p in picks):  # a prompt without an answer: the row is missing
            row.update(prediction_role=pd.NA, order_consistent=pd.NA)
        else:
            same = len(asked) == len(ORDERS) and len(set(picks)) == 1 and picks[0] in ROLES
            row.update(prediction_role=picks[0] if same else "invalid", order_consistent=same)
            want = gold.get(str(rec["row_id"]))
            row["prompts_asked"] = len(asked)
            row["prompt_ties"] = sum(p == TIE for p in picks)
            row["prompt_credit"] = sum(
                1.0 if p == want else 0.5 if p == TIE else 0.0 for p in picks
            )
        records.append(row)
    out = pd.DataFrame.from_records(records)
    out["order_consistent"] = out["order_consistent"].astype("boolean")
    return out


def binding(form: str, template: PromptTemplate, language: str = "uk") -> ProtocolBinding:
    """The binding of :func:`method_name` ``(form)``: the dataset's prompts only (a template
    other than the dataset's is refused, since the method is defined on them)."""

    def build(ds: Dataset, tmpl: PromptTemplate) -> list[Request]:
        if tmpl.name != template.name:
            raise TaskError(
                f"{method_name(form)} asks the dataset's own prompts; it takes no other "
                f"template (given: {tmpl.name})"
            )
        return _requests(ds, form, language)

    return ProtocolBinding(build, _predict, template, asks=SEQUENCE_PROTOCOL, key="row_key")
