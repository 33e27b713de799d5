"""Tasks on SweWinogender v2.0: ``swewinogender/nli`` and ``swewinogender/resolution``.

``swewinogender/nli`` (alias ``swewinogender``) asks, for each of the 624 premise/hypothesis
pairs, whether the hypothesis follows, as a forced choice in both option orders::

    Läs premissen och avgör om hypotesen följer av den.
    Premiss: Teknikern sa till kunden att han kunde betala kontant.
    Hypotes: Meddelandet var att kunden kunde betala kontant.
    A. ja
    B. nej
    Svar (A eller B):

The combined answer (entailment/neutral, ``invalid`` when the orders disagree) goes into the
column ``prediction``, which makes the predictions file SuperLim's submission format. Its
reference models are the ``nli-baseline:*`` backends.

``swewinogender/resolution`` is the v1 pronoun-resolution task on the same items: one row per
premise (104 templates x 3 pronouns = 312), the pronoun and the two candidates in the forms the
premise uses, the gold referent from the entailed hypothesis::

    Läs meningen och avgör vem pronomenet «han» syftar på.
    Mening: Teknikern sa till kunden att han kunde betala kontant.
    A. teknikern
    B. kunden
    Svar (A eller B):

Requests carry a typed :class:`~winoscope.records.Item` like the WinoBias-UK task (sentence,
pronoun, pronoun gender, the two mentions with their offsets), so the ``baseline:*`` references
run on it; Swedish occupation nouns carry no grammatical gender and the data has no stereotype
labels, so ``agreement`` and ``stereotype`` fall back to the first mention here. Log-likelihood backends score the options
as continuations of the prompt like on any forced-choice request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ...datasets.base import Dataset, Issue
from ...datasets.sources import SourceInfo
from ...errors import DatasetError
from ...languages.sv import prompts as sv_prompts
from ...protocols import cloze
from ...protocols.choice_rows import ChoiceRow, choice_rows
from ...protocols.forced_choice import (
    LABELS,
    PromptTemplate,
    build_requests,
    from_wording,
    row_answers,
)
from ...records import Item, Mention, Option, Request, Response
from ...tasks.base import DatasetAccess, Demo, ProtocolBinding, Task, task
from ...tasks.choice_task import pronoun_case
from . import dataset as data
from . import resolution_scorer as resolution_scorer
from . import scorer as scorer

NLI_PLACEHOLDERS = frozenset({"sentence", "hypothesis", "option_a", "option_b"})
SV_NLI = from_wording(sv_prompts.NLI, allowed=NLI_PLACEHOLDERS)
SV_RESOLUTION = from_wording(sv_prompts.RESOLUTION)
NLI_OPTIONS = (("ja", "entailment", ("ja", "följer")), ("nej", "neutral", ("nej",)))

RESOLUTION_COLUMNS = (
    "premise_id",
    "template_id",
    "schema_id",
    "premise",
    "occupation_participant",
    "other_participant",
    "pronoun",
    "pronoun_gender",
    "pronoun_form",
    "pronoun_start",
    "occupation_form",
    "occupation_start",
    "participant_form",
    "participant_start",
    "gold_referent",
)


def _mentions(r: Mapping[str, Any]) -> tuple[Mention, ...]:
    """The occupation and the participant in the forms the premise uses, with their offsets."""
    out = []
    for role, lemma in (
        ("occupation", "occupation_participant"),
        ("participant", "other_participant"),
    ):
        text = r[f"{role}_form"]
        start = None if pd.isna(r[f"{role}_start"]) else int(r[f"{role}_start"])
        end = None if start is None or not isinstance(text, str) else start + len(text)
        out.append(Mention(text, start, end, role=role, name=text, occupation=r[lemma]))
    return tuple(out)


def _pronoun(r: Mapping[str, Any]) -> Mention:
    text, start = r["pronoun_form"], r.get("pronoun_start")
    begin = None if start is None or pd.isna(start) or not isinstance(text, str) else int(start)
    end = None if begin is None else begin + len(text)
    gender = r["pronoun_gender"]
    case = pronoun_case("sv", text, gender) if isinstance(text, str) else None
    return Mention(text, begin, end, role="pronoun", gender=gender, case=case)


def _item(r: Mapping[str, Any], *, item_id: str, nli: bool = False) -> Item:
    return Item(
        item_id=item_id,
        row_id=str(r["row_id"]),
        language="sv",
        sentence=r["premise"],
        mentions=_mentions(r),
        pronoun=_pronoun(r),
        premise=r["premise"] if nli else None,
        hypothesis=r["hypothesis"] if nli else None,
        candidate=r["hypothesis_referent"] if nli else None,
    )


# --- NLI ---------------------------------------------------------------------------------


def _nli_template(template: PromptTemplate) -> PromptTemplate:
    if template.allowed == NLI_PLACEHOLDERS:
        return template
    return PromptTemplate(template.text, name=template.name, allowed=NLI_PLACEHOLDERS)


def nli_requests(ds: Dataset, template: PromptTemplate) -> list[Request]:
    """Two requests per item, the options (ja/nej) in both orders."""
    tmpl = _nli_template(template)
    out: list[Request] = []
    for r in ds.table.to_dict("records"):
        item = _item(r, item_id=str(r["tuple_id"]), nli=True)
        for pair in (NLI_OPTIONS, NLI_OPTIONS[::-1]):
            opts = tuple(
                Option(label=lab, text=text, role=role, forms=forms)
                for lab, (text, role, forms) in zip(LABELS, pair, strict=True)
            )
            order = f"{pair[0][1]}_first"
            out.append(
                Request(
                    request_id=f"{r['row_id']}|{order}",
                    kind="nli",
                    prompt=tmpl.render(
                        sentence=r["premise"],
                        hypothesis=r["hypothesis"],
                        option_a=opts[0].text,
                        option_b=opts[1].text,
                    ),
                    options=opts,
                    row_id=r["row_id"],
                    item_id=r["tuple_id"],
                    order=order,
                    item=item,
                )
            )
    return out


def nli_predict(
    ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    return row_answers(requests, responses, prediction="prediction")


def _nli_load(source: str | Path | None = None, **kwargs: Any) -> Dataset:
    return data.load(source, **kwargs)


NLI_TASK = task(
    Task(
        name="swewinogender/nli",
        family="swewinogender",
        description="SweWinogender v2.0 (Swedish) as NLI, forced choice ja/nej in both orders",
        data=DatasetAccess(
            load=_nli_load,
            validate=data.validate,
            from_frame=data.from_frame,
            source=f"{data.HUB_ID} ({data.HUB_CONFIG}) or {data.URL}",
            review_status=data.REVIEW_STATUS,
        ),
        protocols={
            "nli_forced_choice": ProtocolBinding(
                nli_requests, nli_predict, SV_NLI, prediction_column="prediction"
            )
        },
        scorer=scorer.score_nli,
        metrics=scorer.NLI_METRICS,
        language="sv",
        demo=Demo(
            3,
            tuple(
                f"nli-baseline:{m}" for m in ("entailment", "random", "overlap", "first-mention")
            ),
        ),
    )
)
task(
    dataclasses.replace(
        NLI_TASK,
        name="swewinogender",
        description="SweWinogender v2.0 as in SuperLim 2 (same as swewinogender/nli)",
        demo=None,
    )
)


# --- pronoun resolution ------------------------------------------------------------------


def resolution_view(ds: Dataset) -> Dataset:
    """One row per premise (template x pronoun) with the resolution annotations."""
    view = ds.table.drop_duplicates("premise_id")[list(RESOLUTION_COLUMNS)].copy()
    view["row_id"] = view["premise_id"]
    view["item_id"] = view["template_id"]
    return dataclasses.replace(ds, table=view.reset_index(drop=True))


def _require_annotations(ds: Dataset) -> None:
    t = ds.table
    missing = t[list(RESOLUTION_COLUMNS)].isna().any(axis=1)
    if bool(missing.any()):
        i = int(missing.to_numpy().nonzero()[0][0])
        col = next(c for c in RESOLUTION_COLUMNS if pd.isna(t[c].iloc[i]))
        raise DatasetError(
            f"premise {t['premise_id'].iloc[i]} has no derived '{col}' (run `winoscope "
            "validate swewinogender/resolution` to list every problem)",
            file=ds.source.location,
            row=i + 1,
            field=col,
        )


def _resolution_load(source: str | Path | None = None, **kwargs: Any) -> Dataset:
    return resolution_view(data.load(source, **kwargs))


def _resolution_from_frame(raw: pd.DataFrame, *, source: SourceInfo, **kwargs: Any) -> Dataset:
    """Either SweWinogender rows (converted) or resolution rows written by a run."""
    if "hypothesis" in raw.columns:
        return resolution_view(data.from_frame(raw, source=source, **kwargs))
    need = ("premise_id", "template_id", "pronoun", "gold_referent")
    missing = [c for c in need if c not in raw.columns]
    if missing:
        raise DatasetError(
            f"missing column(s) {', '.join(missing)} (give the SweWinogender rows or a "
            "swewinogender/resolution predictions file)",
            file=source.location,
            field=missing[0],
        )
    table = raw.copy()
    table["schema_id"] = [data.schema_id(str(x)) for x in table["template_id"]]
    return Dataset(
        family="swewinogender",
        name=source.location,
        table=table,
        source=source,
        review_status=data.REVIEW_STATUS,
    )


def _resolution_validate(ds: Dataset) -> list[Issue]:
    """Every premise has its pronoun, both candidates and a gold referent; every template has
    the three pronouns."""
    t = ds.table
    issues: list[Issue] = []
    for i, r in enumerate(t.to_dict("records"), start=1):
        for col in ("pronoun_form", "occupation_form", "participant_form", "gold_referent"):
            if col in r and pd.isna(r[col]):
                issues.append(Issue("annotation", f"no {col}", row=i, item=str(r["premise_id"])))
    for tid, g in t.groupby("template_id", sort=True):
        pr = sorted(g["pronoun"].astype(str))
        if pr != sorted(data.PRONOUNS):
            issues.append(
                Issue("templates", f"needs han, hen and hon premises, has {pr}", item=str(tid))
            )
    return issues


def resolution_items(ds: Dataset) -> list[Item]:
    """One typed item per premise of the resolution view."""
    return [_item(r, item_id=str(r["item_id"])) for r in ds.table.to_dict("records")]


def wording(m: Mention) -> tuple[str, tuple[str, ...]]:
    """The form the premise uses; the lemma also names the candidate."""
    return m.text, (m.occupation,)  # type: ignore[return-value]


def _choice_rows(ds: Dataset) -> list[ChoiceRow]:
    return choice_rows(resolution_items(ds), wording, roles=("occupation", "participant"))


def resolution_requests(ds: Dataset, template: PromptTemplate) -> list[Request]:
    if "hypothesis" in ds.table.columns:
        ds = resolution_view(ds)
    _require_annotations(ds)
    return build_requests(_choice_rows(ds), template)


def resolution_cloze_requests(ds: Dataset, template: cloze.ClozeTemplate) -> list[Request]:
    """One cloze request per premise; the candidates in the forms the premise uses."""
    if "hypothesis" in ds.table.columns:
        ds = resolution_view(ds)
    _require_annotations(ds)
    return cloze.build_requests(_choice_rows(ds), template)


def resolution_predict(
    ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    return row_answers(requests, responses)


RESOLUTION_TASK = task(
    Task(
        name="swewinogender/resolution",
        demo=Demo(4),
        family="swewinogender",
        description="SweWinogender v1 view (Swedish): which candidate the pronoun refers to, "
        "forced choice in both orders",
        data=DatasetAccess(
            load=_resolution_load,
            validate=_resolution_validate,
            from_frame=_resolution_from_frame,
            source=f"{data.HUB_ID} ({data.HUB_CONFIG}) or {data.URL}",
            review_status=data.REVIEW_STATUS,
        ),
        protocols={
            "forced_choice": ProtocolBinding(
                resolution_requests, resolution_predict, SV_RESOLUTION
            ),
            "cloze": ProtocolBinding(resolution_cloze_requests, resolution_predict, cloze.SV_CLOZE),
        },
        scorer=resolution_scorer.score_resolution,
        metrics=resolution_scorer.RESOLUTION_METRICS,
        language="sv",
    )
)
