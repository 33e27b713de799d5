"""CoNLL-2011/2012 coreference files: reading and writing.

A file holds documents between ``#begin document (NAME); part NNN`` and ``#end document``; each
token is one line of whitespace-separated columns whose last column carries the coreference
annotation: ``-`` (none), ``(7`` (a mention of entity 7 starts), ``7)`` (it ends), ``(7)`` (a
one-token mention), several joined by ``|``. Blank lines separate sentences. Tokens are numbered
from 0 across the whole document, and a mention is the pair (first token, last token), as in
the reference scorer, which also reads the annotation in this order: one-token mentions, then
openings, then closings (each closing pairs with the latest open mention of its entity).

Example (``WinoBias``)::

    #begin document (nw/dev_type1/stereotype//0); part 000
    nw/dev_type1/stereotype//0  0  0  The        ...  (1
    nw/dev_type1/stereotype//0  0  1  developer  ...  1)
    ...
    nw/dev_type1/stereotype//0  0  7  he         ...  (1)
    #end document

gives one entity with the mentions (0, 1) and (7, 7).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..errors import DatasetError

_BEGIN = re.compile(r"^#\s*begin document (.*?)$")
_END = re.compile(r"#\s*end document")
_NAME = re.compile(r"^\((.*)\); part (\d+)$")
_DOUBLE = re.compile(r"\((\d+\+\d)\)")
_SINGLE = re.compile(r"\((\d+)\)")
_OPEN = re.compile(r"\((\d+)")
_CLOSE = re.compile(r"(\d+)\)")
_LEFTOVER = re.compile(r"^[|\-_\s]*$")

FIELD = "coreference"

TokenSpan = tuple[int, int]


@dataclass
class ConllDocument:
    """One ``#begin document`` ... ``#end document`` block.

    ``name`` is everything after ``#begin document`` (the reference scorer's document key, e.g.
    ``(nw/x//0); part 000``); ``doc_id`` is the part in parentheses when the name has the usual
    shape. ``clusters`` lists entities in order of first appearance of their number, each a list
    of (first token, last token) spans in order of closing. ``lines[i]`` is the file line of
    token ``i`` (1-based), for error messages.
    """

    name: str
    sentences: list[list[str]] = field(default_factory=list)
    clusters: list[list[TokenSpan]] = field(default_factory=list)
    entity_numbers: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    file: str = ""

    @property
    def doc_id(self) -> str:
        m = _NAME.match(self.name)
        return m.group(1) if m else self.name

    @property
    def part(self) -> str:
        m = _NAME.match(self.name)
        return m.group(2) if m else "000"

    @property
    def tokens(self) -> list[str]:
        return [t for s in self.sentences for t in s]


def _columns(line: str) -> list[str]:
    if "\t" in line:
        cols = line.split("\t")
        while cols and cols[-1].strip() == "":
            cols.pop()
        return [c.strip() for c in cols]
    return line.split()


class _DocumentBuilder:
    def __init__(self, name: str, file: str) -> None:
        self.doc = ConllDocument(name=name, file=file)
        self.index: dict[str, int] = {}
        self.open: dict[int, list[tuple[int, int]]] = {}
        self.n_tokens = 0
        self.new_sentence = True

    def _entity(self, number: str) -> int:
        if number not in self.index:
            self.index[number] = len(self.index)
            self.doc.clusters.append([])
            self.doc.entity_numbers.append(number)
        return self.index[number]

    def add_token(self, word: str, annotation: str, line_no: int) -> None:
        if self.new_sentence:
            self.doc.sentences.append([])
            self.new_sentence = False
        self.doc.sentences[-1].append(word)
        self.doc.lines.append(line_no)
        tok = self.n_tokens
        self.n_tokens += 1
        if annotation == "_":
            return
        info = annotation
        while (m := _DOUBLE.search(info)) is not None:
            info = info[: m.start()] + info[m.end() :]
        while (m := _SINGLE.search(info)) is not None:
            info = info[: m.start()] + info[m.end() :]
            self.doc.clusters[self._entity(m.group(1))].append((tok, tok))
        while (m := _OPEN.search(info)) is not None:
            info = info[: m.start()] + info[m.end() :]
            self.open.setdefault(self._entity(m.group(1)), []).append((tok, line_no))
        while (m := _CLOSE.search(info)) is not None:
            info = info[: m.start()] + info[m.end() :]
            e = self._entity(m.group(1))
            stack = self.open.get(e)
            if not stack:
                raise DatasetError(
                    f"mention of entity {m.group(1)} ends here but never started "
                    f"(annotation {annotation!r})",
                    file=self.doc.file,
                    line=line_no,
                    field=FIELD,
                )
            start, _ = stack.pop()
            self.doc.clusters[e].append((start, tok))
        if not _LEFTOVER.match(info):
            raise DatasetError(
                f"unrecognised coreference annotation {annotation!r} (expected '-', '(N', "
                "'N)' or '(N)' joined by '|')",
                file=self.doc.file,
                line=line_no,
                field=FIELD,
            )

    def finish(self, line_no: int) -> ConllDocument:
        for e, stack in self.open.items():
            if stack:
                _, started = stack[-1]
                raise DatasetError(
                    f"mention of entity {self.doc.entity_numbers[e]} opened on line {started} "
                    f"is never closed in document {self.doc.name!r}",
                    file=self.doc.file,
                    line=line_no,
                    field=FIELD,
                )
        return self.doc


def parse_conll(lines: Iterable[str], *, file: str = "<string>") -> list[ConllDocument]:
    """Documents in CoNLL-2012 text; malformed input raises DatasetError naming file and line.

    ``line`` in the error is the 1-based line number of the file.
    """
    docs: list[ConllDocument] = []
    seen: set[str] = set()
    current: _DocumentBuilder | None = None
    line_no = 0
    for line_no, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        begin = _BEGIN.match(line.rstrip("\r"))
        if begin:
            if current is not None:
                raise DatasetError(
                    f"'#begin document' inside document {current.doc.name!r} "
                    "(missing '#end document')",
                    file=file,
                    line=line_no,
                )
            name = begin.group(1)
            if name in seen:
                raise DatasetError(f"document {name!r} appears twice", file=file, line=line_no)
            seen.add(name)
            current = _DocumentBuilder(name, file)
            continue
        if _END.search(line) and line.lstrip().startswith("#"):
            if current is None:
                raise DatasetError(
                    "'#end document' without '#begin document'", file=file, line=line_no
                )
            docs.append(current.finish(line_no))
            current = None
            continue
        if line.strip() == "":
            if current is not None:
                current.new_sentence = True
            continue
        if line.startswith("#"):
            continue
        if current is None:
            raise DatasetError(
                "token line outside a '#begin document' ... '#end document' block",
                file=file,
                line=line_no,
            )
        cols = _columns(line)
        word = cols[3] if len(cols) >= 5 else (cols[0] if len(cols) == 1 else "")
        current.add_token(word, cols[-1], line_no)
    if current is not None:
        raise DatasetError(
            f"document {current.doc.name!r} is not closed with '#end document'",
            file=file,
            line=line_no,
        )
    return docs


def read_conll(path: str | Path) -> list[ConllDocument]:
    """Read a CoNLL-2012 file (UTF-8)."""
    p = Path(path)
    try:
        with p.open(encoding="utf-8") as fh:
            return parse_conll(fh, file=str(p))
    except FileNotFoundError:
        raise DatasetError("no such file", file=str(p)) from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"not UTF-8 text ({exc.reason})", file=str(p)) from None


def annotation_column(n_tokens: int, clusters: Sequence[Sequence[TokenSpan]]) -> list[str]:
    """The coreference column for ``n_tokens`` tokens; entity ``i`` is written as number ``i``.

    On each token, openings come first (the longest mention first), then one-token mentions,
    then closings (the shortest first), so nested mentions read back as written.
    """
    opens: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    singles: list[list[str]] = [[] for _ in range(n_tokens)]
    closes: list[list[tuple[int, str]]] = [[] for _ in range(n_tokens)]
    for number, cluster in enumerate(clusters):
        for start, end in cluster:
            if not (0 <= start <= end < n_tokens):
                raise ValueError(f"mention ({start}, {end}) outside 0..{n_tokens - 1}")
            if start == end:
                singles[start].append(f"({number})")
            else:
                opens[start].append((end, f"({number}"))
                closes[end].append((start, f"{number})"))
    col = []
    for i in range(n_tokens):
        parts = [p for _, p in sorted(opens[i], key=lambda x: -x[0])]
        parts += singles[i]
        parts += [p for _, p in sorted(closes[i], key=lambda x: -x[0])]
        col.append("|".join(parts) if parts else "-")
    return col


def write_conll(out: TextIO | str | Path, docs: Sequence[ConllDocument]) -> None:
    """Write documents as CoNLL-2012 (12 columns; unknown annotation layers are ``-``/``*``)."""
    if not hasattr(out, "write"):
        from ..jsonio import atomic_path

        with atomic_path(Path(str(out))) as tmp, tmp.open("w", encoding="utf-8") as fh:
            write_conll(fh, docs)
        return
    stream: TextIO = out  # type: ignore[assignment]
    for doc in docs:
        n = sum(len(s) for s in doc.sentences)
        col = annotation_column(n, doc.clusters)
        name = doc.name if _NAME.match(doc.name) else f"({doc.name}); part 000"
        doc_id = _NAME.match(name).group(1)  # type: ignore[union-attr]
        part = str(int(_NAME.match(name).group(2)))  # type: ignore[union-attr]
        stream.write(f"#begin document {name}\n")
        k = 0
        for sentence in doc.sentences:
            for i, word in enumerate(sentence):
                stream.write(
                    "\t".join(
                        [doc_id, part, str(i), word, "-", "-", "-", "-", "-", "-", "*", col[k]]
                    )
                    + "\n"
                )
                k += 1
            stream.write("\n")
        stream.write("#end document\n")


def token_offsets(tokens: Iterable[str], text: str) -> list[tuple[int, int]]:
    """Character span of each token in ``text``, in order; None-free or ValueError."""
    spans = []
    pos = 0
    for tok in tokens:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if text.startswith(tok, pos):
            spans.append((pos, pos + len(tok)))
            pos += len(tok)
            continue
        raise ValueError(f"token {tok!r} does not continue the sentence at offset {pos}")
    return spans
