"""Export a coreference task's documents: what a resolver reads, and the gold key.

``winoscope coref-export winobias-uk/coref --out DIR`` (:mod:`winoscope.cli.coref`) writes

- ``DIR/input.jsonl``: ``{"id": ROW_ID, "text": SENTENCE, "tokens": [...]}`` per document, the
  ids that ``file:PATH`` output must use;
- ``DIR/input.conll``: the same documents as CoNLL-2012 with an empty coreference column;
- ``DIR/key.conll`` and ``DIR/key.jsonl``: the gold key, as CoNLL-2012 (so the reference Perl
  scorer can be run on the same documents) and as character spans.

Tokens come from a plain word/punctuation split (a word keeps inner apostrophes and hyphens,
``пʼять``, ``well-known``) that is also cut at every gold mention boundary, so each gold span is
a whole number of tokens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..datasets.conll import ConllDocument, write_conll
from ..jsonio import atomic_path
from .coref import CorefItem, Span

_TOKEN = re.compile(r"\w+(?:[ʼ'’\-]\w+)*|[^\w\s]", re.UNICODE)


def tokenize(text: str, cuts: Iterable[int] = ()) -> list[Span]:
    """Character spans of the tokens of ``text``, also split at every offset in ``cuts``.

    >>> [("Лікарка, бо вона")[s:e] for s, e in tokenize("Лікарка, бо вона")]
    ['Лікарка', ',', 'бо', 'вона']
    """
    cut = sorted(set(cuts))
    spans: list[Span] = []
    for m in _TOKEN.finditer(text):
        start, end = m.start(), m.end()
        inner = [c for c in cut if start < c < end]
        for c in inner:
            spans.append((start, c))
            start = c
        spans.append((start, end))
    return spans


def token_clusters(item: CorefItem, tokens: Sequence[Span]) -> list[list[tuple[int, int]]]:
    """The gold clusters of ``item`` as (first token, last token) spans."""
    starts = {s: i for i, (s, _) in enumerate(tokens)}
    ends = {e: i for i, (_, e) in enumerate(tokens)}
    out = []
    for cluster in item.gold_clusters:
        spans = []
        for s, e in cluster:
            if s not in starts or e not in ends:
                raise ValueError(
                    f"document {item.doc_id}: gold span [{s}, {e}] is not whole tokens"
                )
            spans.append((starts[s], ends[e]))
        out.append(spans)
    return out


def export_documents(items: Sequence[CorefItem], out: Path) -> dict[str, Path]:
    """Write the resolver input and the gold key of ``items`` into ``out`` (see the module)."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "input_jsonl": out / "input.jsonl",
        "input_conll": out / "input.conll",
        "key_conll": out / "key.conll",
        "key_jsonl": out / "key.jsonl",
    }
    keys: list[ConllDocument] = []
    inputs: list[ConllDocument] = []
    with (
        atomic_path(paths["input_jsonl"]) as input_tmp,
        atomic_path(paths["key_jsonl"]) as key_tmp,
        input_tmp.open("w", encoding="utf-8") as fin,
        key_tmp.open("w", encoding="utf-8") as fkey,
    ):
        for it in items:
            cuts = [x for c in it.gold_clusters for m in c for x in m]
            tokens = tokenize(it.text, cuts)
            words = [it.text[s:e] for s, e in tokens]
            fin.write(
                json.dumps({"id": it.doc_id, "text": it.text, "tokens": words}, ensure_ascii=False)
                + "\n"
            )
            clusters = [[list(m) for m in c] for c in it.gold_clusters]
            fkey.write(json.dumps({"id": it.doc_id, "clusters": clusters}) + "\n")
            keys.append(
                ConllDocument(
                    name=it.doc_id, sentences=[words], clusters=token_clusters(it, tokens)
                )
            )
            inputs.append(ConllDocument(name=it.doc_id, sentences=[words], clusters=[]))
    write_conll(paths["key_conll"], keys)
    write_conll(paths["input_conll"], inputs)
    return paths
