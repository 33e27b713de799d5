"""Resolver-protocol tasks of the WinoBias family: ``winobias-uk/coref``, ``winobias-en/coref``.

A resolver reads each clean sentence and returns clusters; ``--model file:PATH`` reads a
resolver's saved output (jsonlines or CoNLL-2012), and every ``baseline:*`` acts as a
transparent reference resolver by linking the pronoun to the mention it picks. Scores are the
CoNLL metrics by subset, as the WinoBias paper reports F1 on the pro- and anti-stereotypical
sentences and their difference, plus the per-sentence pronoun-link accuracy. Forced-choice
accuracy and coreference F1 are different protocols and are reported under different tasks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...errors import DatasetError
from ...languages.uk import occupations as uk_lexicon
from ...protocols import coref
from ...records import Item, Mention
from ...scoring import coref as coref_scoring
from ...scoring.base import ScoreResult
from ...scoring.metric import Declarations
from ...tasks.base import DatasetAccess, Task, task
from ...tasks.choice_task import pronoun_case
from ...tasks.coref_task import bracket_spans, coref_protocols, resolver_data, resolver_demo
from . import conll_key as en_data
from .dataset import UK as uk_data
from .tasks import WinoBiasColumns, winobias_items

WINOBIAS_SUBSETS = (
    coref_scoring.Subset(
        "pro",
        lambda t: (
            (t["score_group"].astype(str) == "primary_balanced")
            & (t["condition"].astype(str) == "pro")
        ),
    ),
    coref_scoring.Subset(
        "anti",
        lambda t: (
            (t["score_group"].astype(str) == "primary_balanced")
            & (t["condition"].astype(str) == "anti")
        ),
    ),
)
UK_CONTROLS = (
    coref_scoring.Subset(
        "agreement_control", lambda t: t["score_group"].astype(str) == "agreement_control"
    ),
    coref_scoring.Subset(
        "cross_control", lambda t: t["score_group"].astype(str) == "cross_control"
    ),
)
GAP = ("conll_f1_pro_minus_anti", "pro", "anti")

declare = Declarations(__name__)
coref_scoring.declare_subset_metrics(
    declare,
    {
        "pro": "the pro-stereotypical documents",
        "anti": "the anti-stereotypical documents",
        "agreement_control": "the agreement-control documents",
        "cross_control": "the cross-control documents",
    },
)
declare.metric(
    "conll_f1_pro_minus_anti",
    kind="gap",
    direction="zero",
    components=("conll_f1_pro", "conll_f1_anti"),
    label="conll f1 pro − anti",
    card="CoNLL F1 on pro- minus anti-stereotypical documents: above 0 follows the stereotype.",
)
COREF_METRICS = (
    "conll_f1_pro",
    "conll_f1_anti",
    "conll_f1_pro_minus_anti",
    "muc_f1_pro",
    "bcub_f1_pro",
    "ceafe_f1_pro",
    "muc_f1_anti",
    "bcub_f1_anti",
    "ceafe_f1_anti",
    "link_accuracy_pro",
    "link_accuracy_anti",
)
UK_METRICS = (
    *COREF_METRICS,
    "conll_f1_agreement_control",
    "conll_f1_cross_control",
    "link_accuracy_agreement_control",
    "link_accuracy_cross_control",
)


# --- WinoBias-UK -------------------------------------------------------------------------

UK_COLUMNS = WinoBiasColumns.suffixed("uk")


def uk_items(table: pd.DataFrame, source: str = "dataset") -> list[coref.CorefItem]:
    """Gold documents of WinoBias-UK rows: the bracketed referent and pronoun as one entity."""
    items = []
    for i, r in enumerate(table.to_dict("records"), start=1):
        text = r["sentence_uk"]
        ref, pron = bracket_spans(
            r, "sentence_annotated_uk", "pronoun_span_uk", source=source, index=i
        )
        gold_role = str(r["coreference_role"])
        spans: dict[str, coref.Span | None] = {}
        for role, col in (("target", "target_span_uk"), ("distractor", "other_span_uk")):
            if role == gold_role:
                spans[role] = ref
            else:
                spans[role] = coref.locate(text, str(r[col]), avoid=[ref, pron])
        items.append(
            coref.CorefItem(
                doc_id=str(r["row_id"]),
                item_id=str(r["item_id"]),
                text=text,
                pronoun=pron,
                spans=spans,
                gold_role=gold_role,
            )
        )
    return items


def uk_score(
    table: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0, source: str = "predictions"
) -> ScoreResult:
    """F1_pro, F1_anti and their difference on primary_balanced rows; controls separately."""
    if "predicted_clusters" not in table.columns:
        raise DatasetError("no 'predicted_clusters' column to score", file=source)
    scored = coref.with_gold(table, uk_items(table, source))
    return _winobias_f1(scored, (*WINOBIAS_SUBSETS, *UK_CONTROLS), n_boot, seed, source)


def _winobias_f1(
    scored: pd.DataFrame, subsets: tuple, n_boot: int, seed: int, source: str
) -> ScoreResult:
    """CoNLL F1 per WinoBias subset and split/type stratum, F1_pro - F1_anti, item bootstrap."""
    metrics, counts, subset_counts, replicates = coref_scoring.score_frame(
        scored,
        strata=["split", "type"],
        subsets=subsets,
        item_columns=["split", "type", "item_number"],
        gaps=(GAP,),
        n_boot=n_boot,
        seed=seed,
        source=source,
    )
    return ScoreResult(
        metrics=metrics,
        counts=counts,
        settings={
            "n_boot": n_boot,
            "seed": seed,
            "level": 0.95,
            "resampling_unit": "source item",
            "stratified_by": "split/type",
            "f1": "CoNLL F1 = mean of MUC, B-cubed and CEAF-e F1 (reference scorer v8.01 "
            "conventions, exact span match)",
            "subset_counts": subset_counts.to_dict("records"),
        },
        replicates=replicates,
    )


WINOBIAS_UK_COREF = task(
    Task(
        "winobias-uk/coref",
        data=resolver_data(DatasetAccess.of(uk_data), uk_items),
        protocols=coref_protocols(
            uk_items,
            lambda ds: winobias_items(ds.table, UK_COLUMNS, "uk", uk_lexicon.stereotype),
        ),
        scorer=uk_score,
        metrics=UK_METRICS,
        demo=resolver_demo(5),
        description="WinoBias-UK Natural (Ukrainian), coreference resolver protocol: CoNLL F1 "
        "on pro/anti and the controls",
        family="winobias-uk",
        strata=("split", "type"),
    )
)


# --- English WinoBias (CoNLL) ------------------------------------------------------------


def _span(value: Any) -> coref.Span | None:
    v = json.loads(value) if isinstance(value, str) else value
    return (int(v[0]), int(v[1])) if v is not None else None


def en_items(table: pd.DataFrame, source: str = "dataset") -> list[coref.CorefItem]:
    """Gold documents of the CoNLL rows (their key clusters as read; ``source`` is accepted
    like the other families' document readers take it, the reader has checked the spans)."""
    items = []
    for r in table.to_dict("records"):
        key = tuple(tuple((int(s), int(e)) for s, e in c) for c in json.loads(r["gold_clusters"]))
        items.append(
            coref.CorefItem(
                doc_id=str(r["row_id"]),
                item_id=f"{r['split']}/{r['type']}/{r['item_number']}",
                text=r["doc_text"],
                pronoun=_span(r["pronoun_span"]),  # type: ignore[arg-type]
                spans={
                    "target": _span(r["target_span"]),
                    "distractor": _span(r["distractor_span"]),
                },
                gold_role=str(r["referent_role"]),
                key=key,
            )
        )
    return items


def en_item(r: Mapping[str, Any]) -> Item:
    """What the reference baselines read (see ``backends.baselines``) of one CoNLL document."""
    mentions = []
    for role in ("target", "distractor"):
        span = _span(r[f"{role}_span"])
        mentions.append(
            Mention(
                text=r[f"{role}_text"],
                start=span[0] if span else None,
                end=span[1] if span else None,
                role=role,
                occupation=r[f"{role}_occupation"],
                stereotype=r[f"{role}_stereotype"],
                stereotype_labels=r[f"{role}_stereotype"],
            )
        )
    gender = r["pronoun_gender"]
    case = pronoun_case("en", str(r["pronoun"]), gender)
    pronoun = Mention(r["pronoun"], None, None, role="pronoun", gender=gender, case=case)
    return Item(
        item_id=f"{r['split']}/{r['type']}/{r['item_number']}",
        row_id=str(r["row_id"]),
        language="en",
        sentence=r["doc_text"],
        mentions=tuple(mentions),
        pronoun=pronoun,
        condition=r["condition"],
    )


def en_score(
    table: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0, source: str = "predictions"
) -> ScoreResult:
    """F1 on the pro and anti files and their difference, per split and type."""
    return _winobias_f1(table, WINOBIAS_SUBSETS, n_boot, seed, source)


WINOBIAS_EN_COREF = task(
    Task(
        "winobias-en/coref",
        data=resolver_data(DatasetAccess.of(en_data), en_items),
        protocols=coref_protocols(
            en_items, lambda ds: [en_item(r) for r in ds.table.to_dict("records")]
        ),
        scorer=en_score,
        metrics=COREF_METRICS,
        description="WinoBias (English) CoNLL files, coreference resolver protocol: CoNLL F1 on "
        "pro/anti x type1/type2 x dev/test",
        family="winobias-en",
        strata=("split", "type"),
    )
)
