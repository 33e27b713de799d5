"""Task ``winobias-uk``: WinoBias-UK Natural under the forced-choice protocol."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

import pandas as pd

from ..datasets import winobias_uk as data
from ..datasets.annotation import bracket_mentions
from ..datasets.base import Dataset
from ..languages.uk_morphology import nominative
from ..protocols import cloze
from ..protocols.forced_choice import (
    UK_DEFAULT,
    ChoiceRow,
    PromptTemplate,
    build_requests,
    join_predictions,
)
from ..records import Request, Response
from ..scoring import winobias as scorer
from .base import Task, task


@cache
def occupation_table() -> dict[str, dict[str, str]]:
    """The shipped Ukrainian occupation lexicon keyed by either gender's form."""
    path = resources.files("winoscope.data").joinpath("occupations_uk.csv")
    table: dict[str, dict[str, str]] = {}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            table[row["occupation_uk"]] = row
            table[row["feminine_uk"]] = row
    return table


def _forms(canonical: str) -> tuple[str, ...]:
    entry = occupation_table().get(canonical.lower())
    if entry is None:
        return (canonical,)
    return (canonical, entry["occupation_uk"], entry["feminine_uk"])


def _stereotype(canonical: str) -> str | None:
    entry = occupation_table().get(canonical.lower())
    return entry["stereotype"] if entry else None


def stereotypes_from_labels(table: pd.DataFrame) -> dict[str, str]:
    """Occupation -> stereotyped gender implied by the pro/anti labels of primary rows.

    A pro row says the target occupation's stereotype is the pronoun's gender; an anti row says
    it is the other gender. WinoBias pairs a male- with a female-stereotyped occupation, so the
    other occupation gets the opposite stereotype where it never appears as a target.
    """
    flip = {"male": "female", "female": "male"}
    out: dict[str, str] = {}
    prim = table[table["score_group"] == "primary_balanced"]
    for r in (
        prim[["condition", "pronoun_gender", "target_occupation_uk"]]
        .astype(str)
        .itertuples(index=False)
    ):
        out[r.target_occupation_uk] = (
            r.pronoun_gender if r.condition == "pro" else flip[r.pronoun_gender]
        )
    for r in (
        prim[["target_occupation_uk", "other_occupation_uk"]].astype(str).itertuples(index=False)
    ):
        if r.other_occupation_uk not in out and r.target_occupation_uk in out:
            out[r.other_occupation_uk] = flip[out[r.target_occupation_uk]]
    return out


def _start(sentence: str, annotated: str, span: str, gold: bool) -> int:
    if gold:
        for m in bracket_mentions(annotated):
            if m.text == span:
                return m.start
    pos = sentence.find(span)
    return pos if pos >= 0 else len(sentence)


def choice_rows(ds: Dataset) -> list[ChoiceRow]:
    labels = stereotypes_from_labels(ds.table)
    rows = []
    for r in ds.table.to_dict("records"):
        role = str(r["coreference_role"])
        sentence, annotated = r["sentence_uk"], r["sentence_annotated_uk"]
        mentions: dict[str, dict[str, Any]] = {}
        options = []
        for opt_role, span_field, occ_field, gender_field in (
            ("target", "target_span_uk", "target_occupation_uk", "target_gender"),
            ("distractor", "other_span_uk", "other_occupation_uk", "other_gender"),
        ):
            span, occ = r[span_field], r[occ_field]
            mentions[opt_role] = {
                "text": span,
                "start": _start(sentence, annotated, span, gold=(opt_role == role)),
                "gender": str(r[gender_field]),
                "stereotype": _stereotype(occ),
                "stereotype_labels": labels.get(occ),
                "occupation": occ,
            }
            options.append((nominative(span), opt_role, _forms(occ)))
        meta = {
            "sentence": sentence,
            "pronoun": r["pronoun_span_uk"],
            "pronoun_gender": str(r["pronoun_gender"]),
            "condition": str(r["condition"]),
            "mentions": mentions,
        }
        rows.append(
            ChoiceRow(
                row_id=r["row_id"],
                item_id=r["item_id"],
                sentence=sentence,
                pronoun=r["pronoun_span_uk"],
                options=(options[0], options[1]),
                meta=meta,
            )
        )
    return rows


def requests_for(ds: Dataset, template: PromptTemplate) -> list[Request]:
    return build_requests(choice_rows(ds), template)


def cloze_requests_for(ds: Dataset, template: cloze.ClozeTemplate) -> list[Request]:
    """One cloze request per row; the candidates are the two spans in the nominative."""
    return cloze.build_requests(choice_rows(ds), template)


def predict(
    ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    return join_predictions(ds.table, requests, responses)


TASK = task(
    Task(
        name="winobias-uk",
        family="winobias-uk",
        description="WinoBias-UK Natural (Ukrainian), forced choice in both option orders",
        source=data.HUB_ID,
        protocol="forced_choice",
        metrics=scorer.METRICS,
        load=data.load,
        validate=data.validate,
        build_requests=requests_for,
        predict=predict,
        score=scorer.score,
        from_frame=data.from_frame,
        default_template=UK_DEFAULT,
        review_status=data.REVIEW_STATUS,
        build_cloze_requests=cloze_requests_for,
        cloze_template=cloze.UK_CLOZE,
    )
)
