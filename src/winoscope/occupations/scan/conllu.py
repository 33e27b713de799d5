"""CoNLL-U corpus files as blocks of sentences, one sentence per line.

A ``.conllu`` file (also ``.conllu.gz``/``.conllu.zst``) becomes one line per sentence, made
of its ``# text =`` comment (``text``), its word forms (``form``) or its lemmas (``lemma``).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any, cast

from ...errors import DatasetError
from .streams import BLOCK_SIZE, Consumed, Progress, compression, decompress_errors, open_blocks

CONLLU_FIELDS = ("text", "form", "lemma")


def read_conllu(
    path: str,
    field: str = "text",
    block_size: int = BLOCK_SIZE,
    progress: Progress | None = None,
) -> Iterator[bytes]:
    """Blocks of sentences of a CoNLL-U file, one sentence per line.

    ``text`` uses the ``# text =`` comment (the word forms joined by spaces when it is
    missing), ``form`` the word forms and ``lemma`` the lemmas, joined by spaces. Multiword
    tokens (``1-2``) give their surface form to ``text``/``form``; their words give lemmas.
    """
    out: list[bytes] = []
    size = 0
    text: str | None = None
    forms: list[str] = []
    lemmas: list[str] = []
    skip_until = 0
    line_no = 0

    def sentence() -> bytes:
        if field == "lemma":
            s = " ".join(lemmas)
        elif field == "text" and text is not None:
            s = text
        else:
            s = " ".join(forms)
        return s.replace("\n", " ").encode("utf-8") + b"\n"

    fh, raw = open_blocks(path)
    if compression(path) == "zst":
        fh = io.BufferedReader(cast(Any, fh), buffer_size=1 << 20)
    consumed = Consumed(raw, progress)
    with fh, raw:
        stream = io.TextIOWrapper(cast(Any, fh), encoding="utf-8", errors="strict", newline="\n")
        try:
            for line in stream:
                line_no += 1
                line = line.rstrip("\n").rstrip("\r")
                if not line:
                    if forms or lemmas or text is not None:
                        out.append(sentence())
                        size += len(out[-1])
                    text, forms, lemmas, skip_until = None, [], [], 0
                    if size >= block_size:
                        yield b"".join(out)
                        out, size = [], 0
                        consumed()
                    continue
                if line.startswith("#"):
                    if line.startswith("# text =") or line.startswith("# text="):
                        text = line.split("=", 1)[1].strip()
                    continue
                cols = line.split("\t")
                if len(cols) != 10:
                    raise DatasetError(
                        f"a CoNLL-U word line has 10 tab-separated columns, found {len(cols)}",
                        file=path, row=line_no, field="ID",
                    )  # fmt: skip
                tid = cols[0]
                if "." in tid:  # empty node
                    continue
                if "-" in tid:
                    first, last = tid.split("-", 1)
                    if not (first.isdigit() and last.isdigit()):
                        raise DatasetError(
                            f"bad token range {tid!r}", file=path, row=line_no, field="ID"
                        )
                    forms.append(cols[1])
                    skip_until = int(last)
                    continue
                if not tid.isdigit():
                    raise DatasetError(f"bad token id {tid!r}", file=path, row=line_no, field="ID")
                if int(tid) > skip_until:
                    forms.append(cols[1])
                lemmas.append(cols[2])
        except UnicodeDecodeError as exc:
            raise DatasetError(f"not UTF-8: {exc.reason}", file=path, row=line_no + 1) from None
        except decompress_errors() as exc:
            raise DatasetError(f"cannot decompress: {exc}", file=path) from None
    if forms or lemmas or text is not None:
        out.append(sentence())
    if out:
        yield b"".join(out)
    consumed.finish()
