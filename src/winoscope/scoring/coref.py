"""Scoring the resolver protocol: CoNLL metrics per document, by subset and stratum, with a
cluster bootstrap.

A document's gold key and a resolver's clusters are compared in two ways (the columns are
described in :mod:`winoscope.protocols.coref`, which writes them):

- **CoNLL metrics** (MUC, B-cubed, CEAF-e and their mean, plus CEAF-m and BLANC) by exact span
  match, summed over the documents of a subset (see :mod:`winoscope.scoring.coref_metrics`);
- **per sentence**: is the pronoun linked to the gold referent and not to the other entity? A
  resolver mention *refers to* an entity when its span overlaps the entity's span, so a
  resolver that marks "лікар" inside "[Лікар]" or adds a determiner is judged by what it
  linked, not by its span boundaries. ``pronoun_link`` is ``target``/``distractor`` (linked to
  that role only), ``both``, or ``none`` (not linked, or no output at all: a miss, never an
  error).

The bootstrap resamples source items (all documents of an item move together) by multinomial
weights, as every scorer does (:mod:`winoscope.scoring.bootstrap`); a replicate's F1 is computed
from weighted count sums, which equals the F1 of the resampled documents exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..errors import ScoringError
from ..protocols.coref import NO_ANSWER, Span, SpanClusters, overlaps
from .base import METRIC_COLUMNS, Stratum, stratified_rows
from .bootstrap import Replicates, bootstrap
from .coref_metrics import CONLL_METRICS, score_document
from .metric import Declarations, Kind

declare = Declarations(__name__)

LINKS = ("target", "distractor", "both", "none")
COUNT_METRICS = ("muc", "bcub", "ceafe", "ceafm", "mentions")
COUNT_FIELDS = ("recall_num", "recall_den", "precision_num", "precision_den")


# The measures :func:`score_frame` writes, whole and per subset ({measure}_{subset}): a family
# declares what its subsets' metrics mean (:func:`declare_subset_metrics`) and its gaps.
MEASURES: dict[str, tuple[Kind, str]] = {
    "conll_f1": ("f1", "CoNLL F1 (mean of MUC, B-cubed and CEAF-e F1)"),
    "muc_f1": ("f1", "MUC F1"),
    "bcub_f1": ("f1", "B-cubed F1"),
    "ceafe_f1": ("f1", "CEAF-e F1"),
    "link_accuracy": ("accuracy", "share of pronouns linked to the gold referent only"),
}
# CoNLL F1 is the mean of the other three F1s: they are its components, which keeps them out of
# the headlines where CoNLL F1 itself is reported (see scoring.metric.headline_metrics)
PARTS = {"conll_f1": ("muc_f1", "bcub_f1", "ceafe_f1")}
for _m, (_kind, _what) in MEASURES.items():
    _what = _what[0].upper() + _what[1:]
    declare.metric(
        _m, kind=_kind, direction="higher", components=PARTS.get(_m, ()), card=f"{_what}."
    )


def declare_subset_metrics(declare: Declarations, subsets: Mapping[str, str]) -> None:
    """Declare every measure on each of ``subsets`` (name -> what it holds, "the pro-stereotypical
    documents"): ``conll_f1_pro`` is "CoNLL F1 (...) on the pro-stereotypical documents."."""
    for m, (kind, what) in MEASURES.items():
        what = what[0].upper() + what[1:]
        declare.group_metrics(
            m, subsets, kind=kind, name="{measure}_{group}", card=what + " on {what}."
        )


def pronoun_link(pronoun: Span, spans: Mapping[str, Span | None], clusters: SpanClusters) -> str:
    """Which entity of ``spans`` (role -> span) the resolver linked the pronoun to: a role,
    ``both`` or ``none``."""
    linked: set[str] = set()
    for cluster in clusters:
        if not any(tuple(m) == pronoun for m in cluster):
            continue
        for m in cluster:
            if tuple(m) == pronoun:
                continue
            for role, span in spans.items():
                if span is not None and overlaps((int(m[0]), int(m[1])), span):
                    linked.add(role)
    if len(linked) == 2:
        return "both"
    return next(iter(linked)) if linked else "none"


def _parse_spans(value: Any, row: int, field: str, source: str) -> Any:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    try:
        return json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError as exc:
        raise ScoringError(f"{source}, row {row}, field '{field}': not JSON ({exc.msg})") from None


def _clusters(value: Any, row: int, field: str, source: str) -> SpanClusters:
    parsed = _parse_spans(value, row, field, source)
    if parsed is None:
        return []
    try:
        return [[(int(m[0]), int(m[1])) for m in c] for c in parsed]
    except (TypeError, ValueError, IndexError, KeyError):
        raise ScoringError(
            f"{source}, row {row}, field '{field}': expected a list of clusters of [start, end]"
        ) from None


def _span(value: Any, row: int, field: str, source: str) -> Span | None:
    parsed = _parse_spans(value, row, field, source)
    if parsed is None:
        return None
    try:
        return (int(parsed[0]), int(parsed[1]))
    except (TypeError, ValueError, IndexError):
        raise ScoringError(f"{source}, row {row}, field '{field}': expected [start, end]") from None


NEEDED = ("gold_clusters", "pronoun_span", "target_span", "distractor_span", "predicted_clusters")


def document_frame(table: pd.DataFrame, source: str = "predictions") -> pd.DataFrame:
    """Per-document metric counts and the pronoun link, from the standard columns.

    Columns ``{metric}_{recall_num|recall_den|precision_num|precision_den}`` for MUC, B-cubed,
    CEAF-e, CEAF-m and mention identification, ``blanc_*`` link counts, ``pronoun_link`` and
    ``link_correct`` (linked to the gold referent only).
    """
    missing = [c for c in (*NEEDED, "referent_role") if c not in table.columns]
    if missing:
        raise ScoringError(
            f"{source}: missing column(s) {', '.join(missing)} for coreference scoring"
        )
    rows = []
    for i, r in enumerate(table[[*NEEDED, "referent_role"]].to_dict("records"), start=1):
        key = _clusters(r["gold_clusters"], i, "gold_clusters", source)
        resp = _clusters(r["predicted_clusters"], i, "predicted_clusters", source)
        pron = _span(r["pronoun_span"], i, "pronoun_span", source)
        if pron is None:
            raise ScoringError(f"{source}, row {i}, field 'pronoun_span': missing")
        spans = {
            "target": _span(r["target_span"], i, "target_span", source),
            "distractor": _span(r["distractor_span"], i, "distractor_span", source),
        }
        s = score_document(key, resp)
        rec: dict[str, Any] = {}
        for m in COUNT_METRICS:
            c = getattr(s, m)
            for f in COUNT_FIELDS:
                rec[f"{m}_{f}"] = float(getattr(c, f))
        for part in ("blanc_coref", "blanc_noncoref"):
            c = getattr(s, part)
            for f in COUNT_FIELDS:
                rec[f"{part}_{f}"] = float(getattr(c, f))
        link = pronoun_link(pron, spans, resp)
        rec["pronoun_link"] = link
        rec["link_correct"] = link == str(r["referent_role"])
        rows.append(rec)
    return pd.DataFrame(rows, index=table.index)


def _f1_from(sums: np.ndarray) -> np.ndarray:
    """F1 from summed counts [recall_num, recall_den, precision_num, precision_den] (last axis)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(
            sums[..., 1] > 0, sums[..., 0] / np.where(sums[..., 1] > 0, sums[..., 1], 1), 0.0
        )
        p = np.where(
            sums[..., 3] > 0, sums[..., 2] / np.where(sums[..., 3] > 0, sums[..., 3], 1), 0.0
        )
        return np.where(r + p > 0, 2 * r * p / np.where(r + p > 0, r + p, 1), 0.0)


@dataclass(frozen=True)
class Subset:
    """A named subset of documents (``pro``, ``anti``, ``pronoun_set=male`` ...)."""

    name: str
    select: Callable[[pd.DataFrame], pd.Series]


def subset_values(docs: pd.DataFrame, weights: np.ndarray | None = None) -> dict[str, Any]:
    """CoNLL F1 and its parts for a document frame; with ``weights`` (replicates x docs), arrays.

    Returns ``{metric}_f1`` for MUC, B-cubed, CEAF-e, ``conll_f1`` and ``link_accuracy`` (NaN
    when the subset is empty).
    """
    out: dict[str, Any] = {}
    n = len(docs)
    f1s = []
    for m in CONLL_METRICS:
        mat = docs[[f"{m}_{f}" for f in COUNT_FIELDS]].to_numpy(dtype=float)
        sums = mat.sum(axis=0) if weights is None else weights @ mat
        f = _f1_from(sums)
        out[f"{m}_f1"] = f
        f1s.append(f)
    out["conll_f1"] = sum(f1s) / len(f1s)
    correct = docs["link_correct"].to_numpy(dtype=float)
    if weights is None:
        out["link_accuracy"] = float(correct.mean()) if n else float("nan")
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            tot = weights.sum(axis=1)
            out["link_accuracy"] = np.where(
                tot > 0, (weights @ correct) / np.where(tot > 0, tot, 1), np.nan
            )
    if weights is not None:
        # a replicate that drew no document of the subset leaves it undefined, not 0
        empty = weights.sum(axis=1) == 0
        out = {k: np.where(empty, np.nan, v) for k, v in out.items()}
    if n == 0:
        out = {
            k: (float("nan") if weights is None else np.full(weights.shape[0], np.nan)) for k in out
        }
    return out


def _subsets(
    part: pd.DataFrame,
    subsets: Sequence[Subset],
    masks: Sequence[np.ndarray],
    metrics: Sequence[str],
    codes: np.ndarray,
    weights: np.ndarray | None = None,
) -> dict[str, Any]:
    """``{metric}_{subset}`` of every subset of a stratum's documents (:func:`subset_values`);
    with item ``weights`` (replicates x items; ``codes`` is each document's item), arrays."""
    docs = None if weights is None else weights[:, codes]  # an item's weight on its documents
    out: dict[str, Any] = {}
    for sub, mask in zip(subsets, masks, strict=True):
        val = subset_values(part[mask], None if docs is None else docs[:, mask])
        out.update({f"{m}_{sub.name}": val[m] for m in metrics})
    return out


class FrameScores(NamedTuple):
    """What :func:`score_frame` returns: the tidy metrics, the counts per stratum and per
    stratum and subset, and the metrics' bootstrap replicates."""

    metrics: pd.DataFrame
    counts: pd.DataFrame
    subset_counts: pd.DataFrame
    replicates: Replicates


@declare.scorer
def score_frame(
    table: pd.DataFrame,
    *,
    strata: Sequence[str],
    subsets: Sequence[Subset],
    item_columns: Sequence[str],
    gaps: Sequence[tuple[str, str, str]] = (),
    n_boot: int = 2000,
    seed: int = 0,
    source: str = "predictions",
    metrics: Sequence[str] = ("conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "link_accuracy"),
) -> FrameScores:
    """Tidy metrics per stratum and subset, with cluster-bootstrap CIs (resampling items).

    Metric names are ``{metric}_{subset}`` (``conll_f1_pro``); ``gaps`` adds
    ``(name, subset_a, subset_b)`` rows with conll_f1 of a minus b. ``split``/``type`` hold the
    first two stratum columns (``all`` when there are fewer); a ``macro`` row averages the strata.
    Returns (metrics, counts per stratum, counts per stratum and subset, replicates). Per
    stratum: ``rows``, ``scored`` (a response came back), ``invalid`` (a response with no
    clusters) and ``missing`` (no response); per subset also the pronoun links.
    """
    docs = document_frame(table, source)
    frame = pd.concat([table.reset_index(drop=True), docs.reset_index(drop=True)], axis=1)
    rng = np.random.default_rng(seed)
    count_rows: list[dict[str, Any]] = []
    stratum_rows: list[dict[str, Any]] = []
    per_stratum: list[Stratum] = []
    groups = frame.groupby(list(strata), observed=True, sort=True) if strata else [((), frame)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        labels = [str(k) for k in key] + ["all"] * (2 - len(key))
        split, typ = labels[0], "/".join(labels[1:])
        items = part[list(item_columns)].astype(str).agg("/".join, axis=1)
        codes, uniques = pd.factorize(items)
        masks = [sub.select(part).to_numpy(dtype=bool) for sub in subsets]
        statistic = partial(_subsets, part, subsets, masks, metrics, codes)
        points = {k: float(v) for k, v in statistic().items()}
        reps: dict[str, np.ndarray] = {}
        draw = None
        if n_boot > 0:
            boot = bootstrap(statistic, len(uniques), n_boot=n_boot, rng=rng, point=points)
            reps = {k: np.asarray(v, dtype=float) for k, v in boot.replicates.items()}
            draw = boot.draw
        # no clusters came back: "[]", or an empty cell (None, or NaN as a CSV reads it)
        no_output = part["predicted_clusters"].isin(["[]"]) | part["predicted_clusters"].isna()
        for sub, mask in zip(subsets, masks, strict=True):
            sel = part[mask]
            status = sel["response_status"] if "response_status" in sel else pd.Series(dtype=str)
            count_rows.append(
                {
                    "split": split,
                    "type": typ,
                    "subset": sub.name,
                    "documents": int(mask.sum()),
                    "items": int(pd.Series(codes[mask]).nunique()),
                    "no_output": int(no_output.to_numpy()[mask].sum()),
                    "missing_responses": int(status.isin(NO_ANSWER).sum()) if len(status) else 0,
                    **{f"link_{k}": int((sel["pronoun_link"] == k).sum()) for k in LINKS},
                }
            )
        status_all = part.get("response_status")
        missing = int(status_all.isin(NO_ANSWER).sum()) if status_all is not None else 0
        stratum_rows.append(
            {
                "split": split,
                "type": typ,
                "rows": len(part),
                "scored": len(part) - missing,
                "invalid": int(no_output.sum()) - missing,
                "missing": missing,
            }
        )
        n_by = {sub.name: int(sub.select(part).sum()) for sub in subsets}
        ns = {f"{m}_{sub.name}": n_by[sub.name] for sub in subsets for m in metrics}
        for name, a, b in gaps:
            points[name] = points[f"conll_f1_{a}"] - points[f"conll_f1_{b}"]
            ns[name] = n_by[a] + n_by[b]
            if reps:
                reps[name] = reps[f"conll_f1_{a}"] - reps[f"conll_f1_{b}"]
        # an empty subset in a stratum (no cross controls in type2) gives no row there
        per_stratum.append(Stratum(split, typ, points, reps, ns, draw))
    rows = stratified_rows(per_stratum, skip_undefined=True, macro_from=2)
    metrics_frame = pd.DataFrame(rows.records, columns=METRIC_COLUMNS)
    return FrameScores(
        metrics_frame, pd.DataFrame(stratum_rows), pd.DataFrame(count_rows), rows.replicates
    )
