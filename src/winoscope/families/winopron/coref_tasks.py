"""Resolver-protocol task of the WinoPron family: ``winopron-uk/coref``.

A resolver reads each clean WinoPron-UK sentence (both contexts) and returns clusters; the
gold entity is the referent with the pronoun. Scores are the CoNLL metrics for double and
single contexts, double broken down by pronoun_type and pronoun_set, with the signed
female - male gap, plus the per-sentence pronoun-link accuracy (see ``coref_winobias`` for the
WinoBias tasks of the same protocol).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pandas as pd

from ...datasets.base import Dataset
from ...errors import DatasetError
from ...languages.uk import occupations as uk_lexicon
from ...protocols import coref
from ...records import Item
from ...scoring import coref as coref_scoring
from ...scoring.base import ScoreResult
from ...scoring.bootstrap import Key
from ...scoring.metric import Declarations
from ...tasks.base import DatasetAccess, Task, task
from ...tasks.coref_task import bracket_spans, coref_protocols, resolver_data, resolver_demo
from .tasks import find_entity
from .tasks import winopron_items as typed_items


def _winopron_subsets() -> tuple[coref_scoring.Subset, ...]:
    from . import dataset as wp

    def double(t: pd.DataFrame) -> pd.Series:
        return t["context"].astype(str) == "double"

    def within_double(column: str, value: str) -> Callable[[pd.DataFrame], pd.Series]:
        def select(t: pd.DataFrame) -> pd.Series:
            return double(t) & (t[column].astype(str) == value)

        return select

    subsets = [coref_scoring.Subset("all", lambda t: pd.Series(True, index=t.index))]
    for col, values in (("pronoun_type", wp.TYPES), ("pronoun_set", wp.SETS)):
        for v in values:
            subsets.append(coref_scoring.Subset(f"{col}_{v}", within_double(col, v)))
    return tuple(subsets)


WINOPRON_GAP = ("conll_f1_female_minus_male", "pronoun_set_female", "pronoun_set_male")

declare = Declarations(__name__)
declare.group_metrics(
    "conll_f1",
    {"double": "", "single": ""},
    kind="f1",
    card="CoNLL F1 on the {group}-context sentences.",
)
declare.metric(
    "conll_f1_female_minus_male",
    kind="gap",
    direction="zero",
    components=("conll_f1", "conll_f1"),
    label="conll f1 female − male",
    card="Double-context CoNLL F1 with female minus with male pronouns: 0 is parity.",
)


def winopron_items(table: pd.DataFrame, source: str = "dataset") -> list[coref.CorefItem]:
    """Gold documents of WinoPron-UK sentences (both contexts), named by ``row_key``.

    Roles are ``target`` (the gold referent, ``gold_role``) and ``distractor`` (the other
    entity, found in double-context sentences by its lemma; single-context sentences have none).
    """
    items = []
    for i, r in enumerate(table.to_dict("records"), start=1):
        text = r["sentence_uk"]
        ref, pron = bracket_spans(r, "sentence_annotated_uk", "pronoun_uk", source=source, index=i)
        gold_role = str(r["gold_role"])
        other_role = "participant" if gold_role == "occupation" else "occupation"
        other = None
        if str(r["context"]) == "double":
            name = str(r[f"{other_role}_uk"])
            start = find_entity(text, name, "uk")
            other = coref.locate(text, name, start=start) if start is not None else None
            if other is not None and (coref.overlaps(other, ref) or coref.overlaps(other, pron)):
                other = None
        items.append(
            coref.CorefItem(
                doc_id=str(r["row_key"]),
                item_id=str(r["pair_id"]),
                text=text,
                pronoun=pron,
                spans={"target": ref, "distractor": other},
                gold_role="target",
            )
        )
    return items


def _as_target(item: Item, gold_role: str) -> Item:
    """The item with its candidates named ``target`` (the gold role) and ``distractor``."""
    other = "participant" if gold_role == "occupation" else "occupation"
    mentions = []
    for role, new in ((gold_role, "target"), (other, "distractor")):
        m = item.mention(role)
        if m is not None:
            mentions.append(replace(m, role=new))
    return replace(item, mentions=tuple(mentions))


def _typed(ds: Dataset) -> list[Item]:
    gold = dict(
        zip(ds.table["row_key"].astype(str), ds.table["gold_role"].astype(str), strict=True)
    )
    return [
        _as_target(it, gold[it.row_id]) for it in typed_items(ds.table, "uk", uk_lexicon.stereotype)
    ]


def winopron_score(
    table: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0, source: str = "predictions"
) -> ScoreResult:
    """Double and single contexts separately (``split``), double broken down by pronoun_type and
    pronoun_set, with the signed gap female - male; the bootstrap resamples pairs."""
    if "predicted_clusters" not in table.columns:
        raise DatasetError("no 'predicted_clusters' column to score", file=source)
    scored = coref.with_gold(table, winopron_items(table, source))
    metrics, counts, subsets, replicates = coref_scoring.score_frame(
        scored,
        strata=["context"],
        subsets=_winopron_subsets(),
        item_columns=["context", "pair_id"],
        gaps=(WINOPRON_GAP,),
        n_boot=n_boot,
        seed=seed,
        source=source,
    )
    metrics, renamed = _layout(metrics)
    return ScoreResult(
        metrics=metrics,
        counts=counts,
        settings={
            "n_boot": n_boot,
            "seed": seed,
            "level": 0.95,
            "resampling_unit": "pair",
            "f1": "CoNLL F1 = mean of MUC, B-cubed and CEAF-e F1 (reference scorer v8.01 "
            "conventions, exact span match)",
            "subset_counts": subsets.to_dict("records"),
        },
        # the replicates follow the rows' new names (a paired diff looks them up by these)
        replicates=replicates.renamed(renamed),
    )


WINOPRON_BASE = ("conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "link_accuracy")


def winopron_layout(metrics: pd.DataFrame) -> pd.DataFrame:
    """The WinoPron-UK family's layout: ``metric`` is the measure, ``split`` the context and
    ``type`` the breakdown (``all``, ``male``, ``nominative`` ...), as the forced-choice task
    reports; ``double_conll_f1``, ``single_conll_f1`` and the female - male gap are repeated as
    headline rows (``split == "macro"``)."""
    return _layout(metrics)[0]


def _layout(metrics: pd.DataFrame) -> tuple[pd.DataFrame, list[tuple[Key, Key]]]:
    """:func:`winopron_layout`, and each new row's (metric, split, type) with the one it was."""
    rows = []
    renamed: list[tuple[Key, Key]] = []
    for r in metrics[metrics["split"] != "macro"].to_dict("records"):
        name = str(r["metric"])
        old = (name, str(r["split"]), str(r["type"]))
        base = next((b for b in WINOPRON_BASE if name.startswith(b + "_")), None)
        if name == WINOPRON_GAP[0] or base is None:
            rows.append({**r, "type": "all"})
            renamed.append((old, (name, str(r["split"]), "all")))
            continue
        label = name[len(base) + 1 :]
        for prefix in ("pronoun_type_", "pronoun_set_"):
            label = label.removeprefix(prefix)
        rows.append({**r, "metric": base, "type": label})
        renamed.append((old, (base, str(r["split"]), label)))
    out = pd.DataFrame(rows, columns=metrics.columns)
    heads = []
    for context in ("double", "single"):
        hit = out[(out.metric == "conll_f1") & (out.split == context) & (out.type == "all")]
        if len(hit):
            heads.append({**hit.iloc[0].to_dict(), "metric": f"{context}_conll_f1"})
    gap = out[(out.metric == WINOPRON_GAP[0]) & (out.split == "double")]
    if len(gap):
        heads.append(gap.iloc[0].to_dict())
    for h in heads:
        source = dict(renamed)
        before = next(
            o
            for o, n in source.items()
            if n
            == (
                "conll_f1" if h["metric"].endswith("_conll_f1") else h["metric"],
                h["split"],
                h["type"],
            )
        )
        renamed.append((before, (str(h["metric"]), "macro", "macro")))
        h["split"], h["type"] = "macro", "macro"
    laid_out = pd.concat([out, pd.DataFrame(heads, columns=metrics.columns)], ignore_index=True)
    return laid_out, renamed


def _winopron_task() -> Task:
    from .dataset import UK as wp

    t = Task(
        "winopron-uk/coref",
        data=resolver_data(DatasetAccess.of(wp), winopron_items),
        protocols=coref_protocols(winopron_items, _typed, key="row_key"),
        scorer=winopron_score,
        metrics=("double_conll_f1", "single_conll_f1", *WINOPRON_BASE, WINOPRON_GAP[0]),
        demo=resolver_demo(6),
        description="WinoPron-UK (Ukrainian), coreference resolver protocol: CoNLL F1 for "
        "double and single contexts, double by pronoun_type and pronoun_set",
        family="winopron-uk",
        strata=("context", "pronoun_type"),
    )
    return task(t)


WINOPRON_UK_COREF = _winopron_task()
