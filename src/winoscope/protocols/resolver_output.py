"""Reading a coreference resolver's output: jsonlines with character spans, or CoNLL-2012.

**jsonlines**: one JSON object per line, one per document (dataset row)::

    {"id": "validation/type1/1/mm", "clusters": [[[0, 9], [42, 45]]]}

``id`` (or ``doc_key``) is the row id the task gives the document (``winoscope coref-export``
lists them); ``clusters`` (or ``predicted_clusters``) lists entities, each a list of
``[start, end]`` character offsets into the clean sentence, end exclusive (Python slicing:
``text[start:end]``). An optional ``text`` (or ``sentence``) is checked against the sentence the
task gave. With ``sentences`` (lists of word tokens, as common coreference models write them)
the spans are instead ``[first token, last token]``, inclusive, over the tokens of all
sentences in order, and the tokens are aligned with the sentence::

    {"doc_key": "validation/type1/1/mm", "sentences": [["Розробник", "посперечався", ...]],
     "clusters": [[[0, 0], [6, 6]]]}

**CoNLL-2012**: one document per row, named ``#begin document (ROW_ID); part 000``; tokens are
aligned with the sentence in order (whitespace between tokens is free), and each mention becomes
the character span from its first token's start to its last token's end.

Documents the output lacks, or that have no clusters, are scored as misses. Malformed files raise
:class:`~winoscope.errors.DatasetError` naming the file, the line and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..datasets.conll import ConllDocument, read_conll, token_offsets
from ..errors import DatasetError

Span = tuple[int, int]
JSONL_SUFFIXES = {".jsonl", ".jsonlines", ".json", ".ndjson"}


@dataclass
class ResolverDocument:
    """One document of resolver output: clusters as character spans, or as CoNLL tokens."""

    doc_id: str
    file: str
    line: int
    clusters: list[list[Span]] | None = None
    conll: ConllDocument | None = None
    text: str | None = None
    tokens: list[str] | None = None

    def char_clusters(self, text: str) -> list[list[Span]]:
        """Clusters as character spans of ``text``, checked against it."""
        if self.text is not None and self.text != text:
            raise DatasetError(
                f"document {self.doc_id!r}: its text differs from the task's sentence "
                f"({self.text!r} vs {text!r})",
                file=self.file,
                line=self.line,
                field="text",
            )
        if self.conll is not None:
            return conll_char_clusters(self.conll, text)
        if self.tokens is not None:
            return self._token_char_clusters(text)
        out = []
        for cluster in self.clusters or []:
            for s, e in cluster:
                if not (0 <= s < e <= len(text)):
                    raise DatasetError(
                        f"document {self.doc_id!r}: span [{s}, {e}] is outside the sentence "
                        f"(length {len(text)})",
                        file=self.file,
                        line=self.line,
                        field="clusters",
                    )
            out.append(list(cluster))
        return out

    def _token_char_clusters(self, text: str) -> list[list[Span]]:
        tokens = self.tokens or []
        try:
            offsets = token_offsets(tokens, text)
        except ValueError as exc:
            raise DatasetError(
                f"document {self.doc_id!r}: {exc} ({text!r})",
                file=self.file,
                line=self.line,
                field="sentences",
            ) from None
        out = []
        for cluster in self.clusters or []:
            spans = []
            for s, e in cluster:
                if not (0 <= s <= e < len(tokens)):
                    raise DatasetError(
                        f"document {self.doc_id!r}: token span [{s}, {e}] is outside the "
                        f"{len(tokens)} tokens",
                        file=self.file,
                        line=self.line,
                        field="clusters",
                    )
                spans.append((offsets[s][0], offsets[e][1]))
            out.append(spans)
        return out


@dataclass
class ResolverOutput:
    """Every document found, by id."""

    documents: dict[str, ResolverDocument] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def add(self, doc: ResolverDocument) -> None:
        if doc.doc_id in self.documents:
            first = self.documents[doc.doc_id]
            raise DatasetError(
                f"document {doc.doc_id!r} appears twice (first in {first.file}, line {first.line})",
                file=doc.file,
                line=doc.line,
                field="id",
            )
        self.documents[doc.doc_id] = doc

    def get(self, doc_id: str) -> ResolverDocument | None:
        return self.documents.get(doc_id)


def conll_char_clusters(doc: ConllDocument, text: str) -> list[list[Span]]:
    """A CoNLL document's clusters as character spans of ``text``."""
    tokens = doc.tokens
    try:
        offsets = token_offsets(tokens, text)
    except ValueError as exc:
        # name the line of the first token that fails to align
        pos, line = 0, doc.lines[0] if doc.lines else None
        for i, tok in enumerate(tokens):
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if not text.startswith(tok, pos):
                line = doc.lines[i]
                break
            pos += len(tok)
        raise DatasetError(
            f"document {doc.doc_id!r}: {exc} ({text!r})", file=doc.file, line=line, field="word"
        ) from None
    return [[(offsets[s][0], offsets[e][1]) for s, e in cluster] for cluster in doc.clusters]


def _bad(file: str, line: int, fld: str, message: str) -> DatasetError:
    return DatasetError(message, file=file, line=line, field=fld)


def read_jsonlines(path: Path, out: ResolverOutput | None = None) -> ResolverOutput:
    """Read resolver output in jsonlines (see the module docstring)."""
    out = out or ResolverOutput()
    file = str(path)
    with path.open(encoding="utf-8") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise _bad(file, line_no, "json", f"not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise _bad(file, line_no, "json", "each line must be a JSON object")
            doc_id = obj.get("id", obj.get("doc_key"))
            if not isinstance(doc_id, str | int) or doc_id == "":
                raise _bad(file, line_no, "id", "missing document id ('id' or 'doc_key')")
            clusters = obj.get("clusters", obj.get("predicted_clusters", []))
            if clusters is None:
                clusters = []
            sentences = obj.get("sentences")
            tokens = None
            if sentences is not None:
                if not isinstance(sentences, list) or not all(
                    isinstance(sent, list) and all(isinstance(t, str) for t in sent)
                    for sent in sentences
                ):
                    raise _bad(file, line_no, "sentences", "expected a list of lists of tokens")
                tokens = [t for sent in sentences for t in sent]
            parsed = _parse_clusters(clusters, file, line_no, inclusive=tokens is not None)
            text = obj.get("text", obj.get("sentence"))
            if text is not None and not isinstance(text, str):
                raise _bad(file, line_no, "text", "must be a string")
            out.add(
                ResolverDocument(
                    str(doc_id), file, line_no, clusters=parsed, text=text, tokens=tokens
                )
            )
    out.files.append(file)
    return out


def _parse_clusters(
    value: object, file: str, line: int, *, inclusive: bool = False
) -> list[list[Span]]:
    msg = "expected a list of clusters, each a list of [start, end] integer pairs"
    if not isinstance(value, list):
        raise _bad(file, line, "clusters", msg)
    out = []
    for cluster in value:
        if not isinstance(cluster, list):
            raise _bad(file, line, "clusters", msg)
        spans = []
        for m in cluster:
            if (
                not isinstance(m, list | tuple)
                or len(m) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in m)
            ):
                raise _bad(file, line, "clusters", f"{msg}; got {m!r}")
            if m[0] < 0 or m[1] < m[0] or (m[1] == m[0] and not inclusive):
                need = "0 <= first <= last" if inclusive else "0 <= start < end"
                raise _bad(file, line, "clusters", f"span {list(m)} needs {need}")
            spans.append((int(m[0]), int(m[1])))
        if spans:
            out.append(spans)
    return out


def read_conll_output(path: Path, out: ResolverOutput | None = None) -> ResolverOutput:
    """Read resolver output in CoNLL-2012; documents are found by the name in parentheses."""
    out = out or ResolverOutput()
    for doc in read_conll(path):
        line = doc.lines[0] - 1 if doc.lines else 0
        out.add(ResolverDocument(doc.doc_id, str(path), line, conll=doc))
    out.files.append(str(path))
    return out


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in JSONL_SUFFIXES


def read_resolver_output(path: str | Path) -> ResolverOutput:
    """Read a file, or every jsonlines/CoNLL file of a directory, into one ResolverOutput."""
    p = Path(path)
    if p.is_dir():
        files = sorted(
            f for f in p.iterdir() if f.is_file() and (_is_jsonl(f) or "conll" in f.name.lower())
        )
        if not files:
            raise DatasetError("no jsonlines or CoNLL files in this directory", file=str(p))
    elif p.is_file():
        files = [p]
    else:
        raise DatasetError("no such file or directory", file=str(p))
    out = ResolverOutput()
    for f in files:
        try:
            if _is_jsonl(f):
                read_jsonlines(f, out)
            else:
                read_conll_output(f, out)
        except UnicodeDecodeError as exc:
            raise DatasetError(f"not UTF-8 text ({exc.reason})", file=str(f)) from None
    return out
