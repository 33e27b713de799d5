"""``file:PATH``: a coreference resolver's saved output, answered per ``coref`` request.

``PATH`` is a jsonlines or CoNLL-2012 file, or a directory of them (see
:mod:`winoscope.protocols.resolver_output`). Each request is answered with the clusters of the
document whose id is the request's row id, as character spans of the request's text. A document
the output lacks gets empty clusters (scored as a miss); a malformed file stops the run with an
error naming the file, line and field.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BackendError
from ..protocols.resolver_output import ResolverOutput, read_resolver_output
from ..records import Request, Response
from .base import backend, reject_unknown


@dataclass
class ResolverFileBackend:
    model: str
    output: ResolverOutput
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "file"
    cacheable: bool = False

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        for req in requests:
            if req.kind != "coref":
                raise BackendError(
                    f"file:{self.model} holds resolver output and answers only coreference "
                    f"tasks (request {req.request_id} is '{req.kind}')"
                )
            doc = self.output.get(req.row_id)
            clusters: tuple[tuple[tuple[int, int], ...], ...] = ()
            if doc is not None:
                clusters = tuple(
                    tuple((int(s), int(e)) for s, e in c) for c in doc.char_clusters(req.prompt)
                )
            yield Response(
                request_id=req.request_id, backend=self.kind, model=self.model, clusters=clusters
            )


FILE_OPTIONS = ("seed",)


@backend("file")
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
