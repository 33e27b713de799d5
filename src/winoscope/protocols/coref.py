"""The resolver protocol: a coreference resolver reads the clean sentence and returns clusters.

Each dataset row is one document. Its gold key comes from the bracket annotation
(``[Лікар] найняв секретарку, бо [він] ...``): one entity made of the gold referent and the
pronoun, as character spans ``(start, end)`` (end exclusive) in the clean sentence. A resolver's
clusters are compared with it by CoNLL metrics and by the pronoun's link, in
:mod:`winoscope.scoring.coref`; this module builds the requests and turns responses into
predicted clusters.

The standard columns written by :func:`coref_answers` and read by
:func:`winoscope.scoring.coref.score_frame`:
``doc_text``, ``gold_clusters``, ``pronoun_span``, ``target_span``, ``distractor_span`` (JSON
lists of character offsets; a span is ``[start, end]``; ``null`` where an entity does not occur,
as in single-entity sentences), ``predicted_clusters`` (JSON, empty when the resolver returned
nothing) and ``referent_role`` (the role the pronoun refers to; a separate name, so a
dataset's own ``gold_role`` column is never overwritten).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from ..datasets.annotation import bracket_mentions
from ..errors import ScoringError
from ..records import Item, Mention, Option, Request, Response

Span = tuple[int, int]
SpanClusters = list[list[Span]]

ROLES = ("target", "distractor")
# response_status values that mean "no answer" (a failed request), counted as missing
NO_ANSWER = ("error",)


def overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


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
    ((0, 5), (28, 31))

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


def choice_clusters(item: CorefItem, request: Request, label: str | None) -> SpanClusters:
    """Clusters of a choice-answering backend: the pronoun joined to the chosen option's entity."""
    if label is None:
        return []
    opt = request.option(label)
    span = item.spans.get(opt.role) if opt is not None else None
    if span is None:
        return []
    return [[span, item.pronoun]]


def build_requests(items: Sequence[CorefItem], annotations: Mapping[str, Item]) -> list[Request]:
    """One ``coref`` request per document: the clean text and the two entities as options.

    The options (target, distractor; the distractor only where it occurs) let a choice-answering
    reference baseline act as a resolver; a real resolver reads only ``prompt``. Each request
    carries the document's typed item from ``annotations`` (by ``doc_id``) with its pronoun at
    the document's pronoun span; a document without one gets no item.
    """
    out = []
    for it in items:
        options = []
        for label, role in zip(("A", "B"), ROLES, strict=True):
            span = it.spans.get(role)
            if span is not None:
                options.append(Option(label=label, text=it.text[span[0] : span[1]], role=role))
        item = annotations.get(it.doc_id)
        if item is not None:
            start, end = it.pronoun
            pronoun = item.pronoun or Mention(it.text[start:end], start, end, role="pronoun")
            item = replace(item, pronoun=replace(pronoun, start=start, end=end))
        out.append(
            Request(
                request_id=it.doc_id,
                kind="coref",
                prompt=it.text,
                options=tuple(options),
                row_id=it.doc_id,
                item_id=it.item_id,
                item=item,
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


def coref_answers(
    items: Sequence[CorefItem],
    requests: Sequence[Request],
    responses: Mapping[str, Response],
    *,
    key: str = "row_id",
) -> pd.DataFrame:
    """Each gold document's standard gold columns, ``predicted_clusters`` and
    ``response_status`` (see :func:`response_status`), named in ``key`` by its ``doc_id``
    (the dataset's column the documents were built from)."""
    by_id = {r.row_id: r for r in requests}
    predicted, status = [], []
    for it in items:
        req = by_id[it.doc_id]
        resp = responses.get(req.request_id)
        clusters = response_clusters(it, req, resp)
        predicted.append(json.dumps([[list(m) for m in c] for c in clusters]))
        status.append(response_status(resp))
    out = gold_frame(items)
    out.insert(0, key, [it.doc_id for it in items])
    return out.assign(predicted_clusters=predicted, response_status=status)


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
