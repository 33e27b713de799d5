"""``file:PATH``: a coreference resolver's saved output, answered per ``coref`` request.

``PATH`` is a jsonlines or CoNLL-2012 file, or a directory of them (see
:mod:`winoscope.protocols.resolver_output`). Each request is answered with the clusters of the
document whose id is the request's row id, as character spans of the request's text. A document
the output lacks is answered with no clusters at all (``clusters=None``: the per-row output's
``response_status`` says ``missing``), one that is present without clusters with an empty
tuple (``empty``); both are scored as misses. Documents of the output whose ids match no
request are counted and listed (:meth:`ResolverFileBackend.output_report`, the manifest's
``resolver_output``); when no id matches at all, the run stops with an error naming a few ids
of each side (the usual cause: ids from another task, split or naming scheme). A malformed file
stops the run with an error naming the file, line and field.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..errors import BackendError
from ..protocols.resolver_output import ResolverOutput, read_resolver_output
from ..records import NO_MODES, Request, Response
from .base import Description, backend, reject_unknown


@dataclass
class ResolverFileBackend:
    model: str
    output: ResolverOutput
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "file"
    cacheable: bool = False

    report: dict[str, Any] = field(default_factory=dict)
    protocols: frozenset[str] = frozenset({"coref"})
    mode: ClassVar[str | None] = None  # no mode option
    modes: ClassVar[Mapping[str, frozenset[str]]] = NO_MODES

    def describe(self) -> Description:
        """The output file's match against the key documents (after answering)."""
        return Description(output=self.output_report())

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        for req in requests:
            if req.kind != "coref":
                raise BackendError(
                    f"file:{self.model} holds resolver output and answers only coreference "
                    f"tasks (request {req.request_id} is '{req.kind}')"
                )
        self.report = self._match(requests)
        for req in requests:
            doc = self.output.get(req.row_id)
            clusters: tuple[tuple[tuple[int, int], ...], ...] | None = None
            if doc is not None:
                clusters = tuple(
                    tuple((int(s), int(e)) for s, e in c) for c in doc.char_clusters(req.prompt)
                )
            yield Response(
                request_id=req.request_id, backend=self.kind, model=self.model, clusters=clusters
            )

    def _match(self, requests: Sequence[Request]) -> dict[str, Any]:
        """Which output documents match a key document (a request), which do not."""
        keys = list(dict.fromkeys(r.row_id for r in requests))
        wanted = set(keys)
        have = list(self.output.documents)
        matched = [d for d in have if d in wanted]
        if keys and not matched:
            raise BackendError(
                f"file:{self.model}: none of its {len(have)} document id(s) matches a document "
                f"of the task ({len(keys)}); output ids: {_few(have)}; task ids: {_few(keys)} "
                "(`winoscope coref-export TASK` writes the ids the task expects)"
            )
        unmatched = [d for d in have if d not in wanted]
        lacking = [k for k in keys if k not in self.output.documents]
        return {
            "documents": len(have),
            "matched": len(matched),
            "unmatched": len(unmatched),
            "unmatched_ids": unmatched[:10],
            "missing": len(lacking),
            "missing_ids": lacking[:10],
        }

    def output_report(self) -> dict[str, Any]:
        """The last run's match of output documents to key documents (see the module doc)."""
        return dict(self.report)


def _few(ids: Sequence[str], k: int = 3) -> str:
    shown = ", ".join(repr(i) for i in ids[:k])
    return (shown + (f" ... ({len(ids)} in all)" if len(ids) > k else "")) or "(none)"


FILE_OPTIONS = ("seed",)


@backend("file", FILE_OPTIONS)
def make_resolver_file(name: str, *, seed: int = 0, **unknown: Any) -> ResolverFileBackend:
    """``file:PATH``; it takes no options (``seed`` is accepted and unused: the output is fixed)."""
    del seed
    reject_unknown("file", unknown, FILE_OPTIONS)
    output = read_resolver_output(name)
    return ResolverFileBackend(
        model=Path(name).name,
        output=output,
        params={"path": str(Path(name).resolve()), "files": output.files},
    )
