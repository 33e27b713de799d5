"""The resolver protocol: a coreference resolver reads the clean sentence and returns clusters.

Each dataset row is one document. Its gold key comes from the bracket annotation
(``[Лікар] найняв секретарку, бо [він] ...``): one entity made of the gold referent and the
pronoun, as character spans ``(start, end)`` (end exclusive) in the clean sentence. A resolver's
clusters are compared with it in two ways:

- **CoNLL metrics** (MUC, B-cubed, CEAF-e and their mean, plus CEAF-m and BLANC) by exact span
  match, summed over the documents of a subset (see :mod:`winoscope.scoring.coref_metrics`);
- **per sentence**: is the pronoun linked to the gold referent and not to the other entity? A
  resolver mention *refers to* an entity when its span overlaps the entity's span, so a
  resolver that marks "лікар" inside "[Лікар]" or adds a determiner is judged by what it
  linked, not by its span boundaries. ``pronoun_link`` is ``target``/``distractor`` (linked to
  that role only), ``both``, or ``none`` (not linked, or no output at all: a miss, never an
  error).

The standard columns written by :func:`attach_predictions` and read by :func:`score_frame`:
``doc_text``, ``gold_clusters``, ``pronoun_span``, ``target_span``, ``distractor_span`` (JSON
lists of character offsets; a span is ``[start, end]``; ``null`` where an entity does not occur,
as in single-entity sentences), ``predicted_clusters`` (JSON, empty when the resolver returned
nothing) and ``referent_role`` (the role the pronoun refers to; a separate name, so a
dataset's own ``gold_role`` column is never overwritten).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..datasets.annotation import bracket_mentions
from ..errors import ScoringError
from ..records import Option, Request, Response
from ..scoring.base import METRIC_COLUMNS
from ..scoring.coref_metrics import CONLL_METRICS, DocumentScore, score_document
from ..scoring.paired import record_replicates
from ..scoring.stats import nanmean_rows, percentile_ci, resample_weights

Span = tuple[int, int]
SpanClusters = list[list[Span]]

ROLES = ("target", "distractor")
LINKS = ("target", "distractor", "both", "none")
COUNT_METRICS = ("muc", "bcub", "ceafe", "ceafm", "mentions")
COUNT_FIELDS = ("recall_num", "recall_den", "precision_num", "precision_den")


@dataclass(frozen=True)
class CorefItem:
    """One document of the resolver protocol.

    ``spans`` maps a role (``target``/``distractor``) to the entity's span in ``text`` (None when
    the entity does not occur); ``gold_role`` names the pronoun's referent. ``key`` is the gold
    partition (by default the referent and the pronoun as one entity).
    """

    doc_id: str
    item_id: str
    text: str
    pronoun: Span
    spans: Mapping[str, Span | None]
    gold_role: str
    key: tuple[tuple[Span, ...], ...] = ()

    @property
    def gold_clusters(self) -> SpanClusters:
        if self.key:
            return [list(c) for c in self.key]
        ref = self.spans.get(self.gold_role)
        return [[ref, self.pronoun]] if ref is not None else [[self.pronoun]]


def gold_spans(annotated: str, pronoun_text: str) -> tuple[Span, Span]:
    """(referent span, pronoun span) from a two-bracket annotation.

    >>> gold_spans("[Лікар] найняв секретарку, бо [він] мав ...", "він")
    ((0, 5), (30, 33))

    The pronoun is the bracketed span equal to ``pronoun_text`` (the later one if both are);
    raises ValueError unless exactly two spans are bracketed.
    """
    ms = bracket_mentions(annotated)
    if len(ms) != 2:
        raise ValueError(f"expected two bracketed spans, found {len(ms)}")
    first, second = ms
    if first.text == pronoun_text and second.text != pronoun_text:
        first, second = second, first
    return (first.start, first.end), (second.start, second.end)


def locate(
    text: str, phrase: str, *, avoid: Sequence[Span] = (), start: int | None = None
) -> Span | None:
    """Span of ``phrase`` in ``text`` not overlapping ``avoid``; ``start`` pins a known offset.

    With ``start``, the span is the word run from ``start`` as long as ``phrase`` (or, when the
    text there is an inflected form, the word at ``start``).
    """
    if start is not None and 0 <= start < len(text):
        if text[start : start + len(phrase)].lower() == phrase.lower():
            return (start, start + len(phrase))
        end = start
        while end < len(text) and (text[end].isalnum() or text[end] in "-ʼ'’"):
            end += 1
        return (start, end) if end > start else None
    lowered, target = text.lower(), phrase.lower()
    pos = lowered.find(target)
    while pos >= 0:
        span = (pos, pos + len(phrase))
        if not any(overlaps(span, a) for a in avoid):
            return span
        pos = lowered.find(target, pos + 1)
    return None


def overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def pronoun_link(item: CorefItem, clusters: SpanClusters) -> str:
    """Which entity the resolver linked the pronoun to: target, distractor, both or none."""
    linked: set[str] = set()
    for cluster in clusters:
        if not any(tuple(m) == item.pronoun for m in cluster):
            continue
        for m in cluster:
            if tuple(m) == item.pronoun:
                continue
            for role, span in item.spans.items():
                if span is not None and overlaps(tuple(m), span):  # type: ignore[arg-type]
                    linked.add(role)
    if len(linked) == 2:
        return "both"
    return next(iter(linked)) if linked else "none"


def choice_clusters(item: CorefItem, request: Request, label: str | None) -> SpanClusters:
    """Clusters of a choice-answering backend: the pronoun joined to the chosen option's entity."""
    if label is None:
        return []
    opt = request.option(label)
    span = item.spans.get(opt.role) if opt is not None else None
    if span is None:
        return []
    return [[span, item.pronoun]]


def build_requests(
    items: Sequence[CorefItem], metas: Mapping[str, Mapping[str, Any]]
) -> list[Request]:
    """One ``coref`` request per document: the clean text and the two entities as options.

    The options (target, distractor; the distractor only where it occurs) let a choice-answering
    reference baseline act as a resolver; a real resolver reads only ``prompt``.
    """
    out = []
    for it in items:
        meta = dict(metas.get(it.doc_id, {}))
        options = []
        for label, role in zip(("A", "B"), ROLES, strict=True):
            span = it.spans.get(role)
            if span is not None:
                options.append(Option(label=label, text=it.text[span[0] : span[1]], role=role))
        meta.setdefault("sentence", it.text)
        meta["pronoun_span"] = list(it.pronoun)
        out.append(
            Request(
                request_id=it.doc_id,
                kind="coref",
                prompt=it.text,
                options=tuple(options),
                row_id=it.doc_id,
                item_id=it.item_id,
                meta=meta,
            )
        )
    return out


def response_clusters(item: CorefItem, request: Request, response: Response | None) -> SpanClusters:
    """Clusters from a response (resolver clusters, or a baseline's choice); [] when none."""
    if response is None or response.error is not None:
        return []
    if response.clusters is not None:
        return [[(int(s), int(e)) for s, e in c] for c in response.clusters]
    return choice_clusters(item, request, response.choice)


def _span_json(span: Span | None) -> str:
    return json.dumps(list(span) if span is not None else None)


GOLD_COLUMNS = (
    "doc_text",
    "gold_clusters",
    "pronoun_span",
    "target_span",
    "distractor_span",
    "referent_role",
)


def gold_frame(items: Sequence[CorefItem]) -> pd.DataFrame:
    """The standard gold columns, one row per item, in order."""
    return pd.DataFrame(
        {
            "doc_text": [it.text for it in items],
            "gold_clusters": [
                json.dumps([[list(m) for m in c] for c in it.gold_clusters]) for it in items
            ],
            "pronoun_span": [_span_json(it.pronoun) for it in items],
            "target_span": [_span_json(it.spans.get("target")) for it in items],
            "distractor_span": [_span_json(it.spans.get("distractor")) for it in items],
            "referent_role": [it.gold_role for it in items],
        },
        columns=list(GOLD_COLUMNS),
    )


def with_gold(table: pd.DataFrame, items: Sequence[CorefItem]) -> pd.DataFrame:
    """``table`` with the gold columns (re)computed from ``items`` (built from its rows, in order)."""
    if len(items) != len(table):
        raise ScoringError(f"{len(items)} gold documents for {len(table)} rows")
    out = table.reset_index(drop=True).drop(columns=[c for c in GOLD_COLUMNS if c in table.columns])
    return pd.concat([out, gold_frame(items)], axis=1)


def attach_predictions(
    table: pd.DataFrame,
    items: Sequence[CorefItem],
    requests: Sequence[Request],
    responses: Mapping[str, Response],
) -> pd.DataFrame:
    """The dataset table (whose rows ``items`` were built from, in order) with the standard
    gold columns, ``predicted_clusters`` and ``response_status`` added (see
    :func:`response_status`)."""
    by_id = {r.row_id: r for r in requests}
    predicted, status = [], []
    for it in items:
        req = by_id[it.doc_id]
        resp = responses.get(req.request_id)
        clusters = response_clusters(it, req, resp)
        predicted.append(json.dumps([[list(m) for m in c] for c in clusters]))
        status.append(response_status(resp))
    out = with_gold(table, items)
    return out.assign(predicted_clusters=predicted, response_status=status)


NO_ANSWER = ("error",)


def response_status(resp: Response | None) -> str:
    """``ok``; ``empty`` (a resolver's document present without clusters); ``missing`` (no
    answer for the document: a resolver output lacking it); ``error`` (a failed request).
    All three are scored as misses; ``error`` is counted as a missing response, ``empty`` and
    ``missing`` as no output (the system's output for that document is nothing)."""
    if resp is None:
        return "missing"
    if resp.error:
        return "error"
    if resp.clusters is None and resp.choice is None and resp.text is None:
        return "missing"
    if resp.clusters is not None and len(resp.clusters) == 0:
        return "empty"
    return "ok"


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
        item = CorefItem(
            doc_id=str(i),
            item_id=str(i),
            text="",
            pronoun=pron,
            spans={
                "target": _span(r["target_span"], i, "target_span", source),
                "distractor": _span(r["distractor_span"], i, "distractor_span", source),
            },
            gold_role=str(r["referent_role"]),
        )
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
        link = pronoun_link(item, resp)
        rec["pronoun_link"] = link
        rec["link_correct"] = link == item.gold_role
        rows.append(rec)
    return pd.DataFrame(rows, index=table.index)


def total_score(docs: pd.DataFrame) -> DocumentScore:
    """Summed counts of a document frame as a :class:`DocumentScore`."""
    from ..scoring.coref_metrics import Counts

    sums = docs.sum(numeric_only=True)

    def counts(prefix: str) -> Counts:
        return Counts(*(float(sums.get(f"{prefix}_{f}", 0.0)) for f in COUNT_FIELDS))

    return DocumentScore(
        muc=counts("muc"),
        bcub=counts("bcub"),
        ceafe=counts("ceafe"),
        ceafm=counts("ceafm"),
        mentions=counts("mentions"),
        blanc_coref=counts("blanc_coref"),
        blanc_noncoref=counts("blanc_noncoref"),
    )


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
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Tidy metrics per stratum and subset, with cluster-bootstrap CIs (resampling items).

    Metric names are ``{metric}_{subset}`` (``conll_f1_pro``); ``gaps`` adds
    ``(name, subset_a, subset_b)`` rows with conll_f1 of a minus b. ``split``/``type`` hold the
    first two stratum columns (``all`` when there are fewer); a ``macro`` row averages the strata.
    Returns (metrics, counts per stratum, counts per stratum and subset). Per stratum: ``rows``,
    ``scored`` (a response came back), ``invalid`` (a response with no clusters) and
    ``missing`` (no response); per subset also the pronoun links.
    """
    docs = document_frame(table, source)
    frame = pd.concat([table.reset_index(drop=True), docs.reset_index(drop=True)], axis=1)
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    count_rows: list[dict[str, Any]] = []
    stratum_rows: list[dict[str, Any]] = []
    per_stratum: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    point_by: dict[tuple[str, str], dict[str, float]] = {}
    groups = frame.groupby(list(strata), observed=True, sort=True) if strata else [((), frame)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        labels = [str(k) for k in key] + ["all"] * (2 - len(key))
        split, typ = labels[0], "/".join(labels[1:])
        items = part[list(item_columns)].astype(str).agg("/".join, axis=1)
        codes, uniques = pd.factorize(items)
        w_items = resample_weights(len(uniques), n_boot, rng) if n_boot > 0 else None
        w_docs = w_items[:, codes] if w_items is not None else None
        points: dict[str, float] = {}
        reps: dict[str, np.ndarray] = {}
        for sub in subsets:
            mask = sub.select(part).to_numpy(dtype=bool)
            sel = part[mask]
            val = subset_values(sel)
            boot = subset_values(sel, w_docs[:, mask]) if w_docs is not None else {}
            for m in metrics:
                points[f"{m}_{sub.name}"] = float(val[m])
                if boot:
                    reps[f"{m}_{sub.name}"] = np.asarray(boot[m], dtype=float)
            status = sel["response_status"] if "response_status" in sel else pd.Series(dtype=str)
            count_rows.append(
                {
                    "split": split,
                    "type": typ,
                    "subset": sub.name,
                    "documents": int(mask.sum()),
                    "items": int(pd.Series(codes[mask]).nunique()),
                    "no_output": int(
                        sum(1 for c in sel["predicted_clusters"] if c in ("[]", None))
                    ),
                    "missing_responses": int(status.isin(NO_ANSWER).sum()) if len(status) else 0,
                    **{f"link_{k}": int((sel["pronoun_link"] == k).sum()) for k in LINKS},
                }
            )
        status_all = part.get("response_status")
        no_output = part["predicted_clusters"].isin(["[]"]) | part["predicted_clusters"].isna()
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
        for name, a, b in gaps:
            points[name] = points[f"conll_f1_{a}"] - points[f"conll_f1_{b}"]
            if reps:
                reps[name] = reps[f"conll_f1_{a}"] - reps[f"conll_f1_{b}"]
        n_by = {sub.name: int(sub.select(part).sum()) for sub in subsets}
        for name, value in points.items():
            if np.isnan(value):
                continue  # an empty subset in this stratum (no cross controls in type2)
            if name in reps:  # for paired comparisons (``diff``), as ``metric_row`` does
                record_replicates(name, split, typ, reps[name])
            lo, hi = percentile_ci(reps[name]) if name in reps else (float("nan"), float("nan"))
            gap = next((g for g in gaps if g[0] == name), None)
            sub_name = next((s for s in n_by if name.endswith("_" + s)), None)
            if gap is not None:
                n = n_by[gap[1]] + n_by[gap[2]]
            else:
                n = n_by[sub_name] if sub_name else len(part)
            rows.append(
                {
                    "metric": name,
                    "split": split,
                    "type": typ,
                    "value": value,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n": n,
                    "n_strata": 1,
                }
            )
        per_stratum[(split, typ)] = reps
        point_by[(split, typ)] = points
    if len(point_by) > 1:
        names = list(next(iter(point_by.values())))
        for name in names:
            vals = [p[name] for p in point_by.values() if not np.isnan(p.get(name, np.nan))]
            ns = [r["n"] for r in rows if r["metric"] == name and r["split"] != "macro"]
            if not vals:
                continue
            stack = [r[name] for r in per_stratum.values() if name in r]
            lo, hi = float("nan"), float("nan")
            if stack:
                macro_reps = nanmean_rows(stack)
                record_replicates(name, "macro", "macro", macro_reps)
                lo, hi = percentile_ci(macro_reps)
            rows.append(
                {
                    "metric": name,
                    "split": "macro",
                    "type": "macro",
                    "value": float(np.mean(vals)),
                    "ci_low": lo,
                    "ci_high": hi,
                    "n": int(sum(ns)),  # rows, as in every task; the strata are n_strata
                    "n_strata": len(vals),
                }
            )
    metrics_frame = pd.DataFrame(rows, columns=METRIC_COLUMNS)
    return metrics_frame, pd.DataFrame(stratum_rows), pd.DataFrame(count_rows)
