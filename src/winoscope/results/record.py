"""A run's record: what ``manifest.json`` (and a prompt-sensitivity run's ``sensitivity.json``)
holds, as typed fields instead of a dict indexed by string.

:class:`RunRecord` has one field per top-level key the package writes; the model and the
outcome are typed blocks (:class:`ModelInfo`, :class:`Outcome`), the other nested blocks stay
mappings as written. :meth:`RunRecord.from_json` reads any manifest, old or new, and
:meth:`RunRecord.to_json` gives it back unchanged (``to_json(from_json(m)) == m``):

- a key the record does not know (a plugin's, a later version's) is kept in ``extra``;
- ``keys`` holds the keys read, in their order, so a key is written back exactly when it was
  read (``null`` included) and in the same place; a record built by the package has no
  ``keys`` and writes its fields in field order, leaving out those at their default (absent),
  except :data:`ALWAYS_WRITTEN`, which a run writes even when ``null``;
- ``schema_version`` is written into new manifests (:data:`SCHEMA_VERSION`); a manifest
  without one reads as version 1.

A field set with :func:`dataclasses.replace` after reading is written back in its field-order
place after the keys read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Self

#: the version of the record a new manifest is written with (manifests before it: 1)
SCHEMA_VERSION = 2

#: the keys every run's manifest has, even when ``null`` (``prompt_template`` of a run without
#: a template); the others are left out when there is nothing to say (``partial``: a full run)
ALWAYS_WRITTEN = frozenset(
    {
        *("winoscope_version", "created", "duration_s", "task", "protocol", "dataset"),
        *("review_status", "model", "prompt_template", "seed", "bootstrap", "requests"),
        *("request_errors", "python", "environment", "tags", "responses", "outcome"),
        *("answer_quality", "validation", "failed_requests"),
    }
)

_BOOK = ("extra", "keys")  # bookkeeping fields, not keys of the JSON object


class _Block:
    """``from_json``/``to_json`` for a frozen dataclass whose fields are JSON keys, with
    ``extra`` (unknown keys) and ``keys`` (the keys read, in order)."""

    #: field -> the block class its JSON object is read into
    NESTED: ClassVar[dict[str, type[_Block]]] = {}
    #: fields written even at their default when the record was built, not read
    WRITTEN: ClassVar[frozenset[str]] = frozenset()

    extra: Mapping[str, Any]
    keys: tuple[str, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The block of a JSON object; a nested block's value that is not an object (``null``
        in a damaged file) stays in ``extra`` and the field keeps its default."""
        known = {f.name for f in fields(cls)} - set(_BOOK)  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in data.items():
            nested = cls.NESTED.get(key)
            if key not in known or (nested is not None and not isinstance(value, Mapping)):
                extra[key] = value
            else:
                values[key] = nested.from_json(value) if nested is not None else value
        return cls(**values, extra=extra, keys=tuple(data))  # type: ignore[call-arg]

    def to_json(self) -> dict[str, Any]:
        """The JSON object: the keys read in their order, then the fields set since in field
        order, then unknown keys added since."""
        own = [f for f in fields(self) if f.name not in _BOOK]  # type: ignore[arg-type]
        by_name = {f.name: f for f in own}
        order = list(self.keys)
        order += [f.name for f in own if f.name not in self.keys]
        order += [k for k in self.extra if k not in self.keys]
        out: dict[str, Any] = {}
        for key in order:
            if key in self.extra:
                out[key] = self.extra[key]
                continue
            f = by_name.get(key)
            if f is None:  # a key read, since removed from extra
                continue
            value = getattr(self, key)
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            read = key in self.keys
            if read or value != default or (not self.keys and key in self.WRITTEN):
                out[key] = value.to_json() if isinstance(value, _Block) else value
        return out


@dataclass(frozen=True)
class ModelInfo(_Block):
    """The model block: the spec it was given as, its backend kind and name, the parameters
    that identify it (part of the store's key) and how the work was spread (``runtime``)."""

    spec: str | None = None
    kind: str | None = None
    name: str | None = None
    params: Mapping[str, Any] | None = None
    runtime: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)
    keys: tuple[str, ...] = field(default=(), repr=False, compare=False)

    WRITTEN: ClassVar[frozenset[str]] = frozenset({"spec", "kind", "name", "params", "runtime"})

    @property
    def display(self) -> str:
        """The spec with the PEFT adapter put on it (``hf:base + peft:out/lora``)."""
        adapter = (self.runtime or {}).get("adapter_path")
        spec = str(self.spec) if self.spec is not None else "?"
        return f"{spec} + peft:{adapter}" if adapter else spec

    @property
    def mode(self) -> Any:
        """The backend's ``mode`` parameter (``logprob``, ``generate`` ...), None without one."""
        return (self.params or {}).get("mode")


@dataclass(frozen=True)
class Outcome(_Block):
    """Requests asked, answered and failed, the status and whether the run succeeded
    (:func:`winoscope.runs.outcome.run_outcome`); every field None for runs written before
    the outcome was recorded."""

    requests: int | None = None
    answered: int | None = None
    failed: int | None = None
    failed_share: float | None = None
    max_failed_share: float | None = None
    status: str | None = None
    success: bool | None = None
    finish_reasons: Mapping[str, int] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)
    keys: tuple[str, ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class RunRecord(_Block):
    """A run's manifest, typed (the module's docstring says how it reads and writes).

    The fields in field order are a run's manifest keys in the order a run writes them;
    ``kind``, ``prompt_templates``, ``spread`` and ``runs`` belong to a prompt-sensitivity
    run's record (:mod:`winoscope.studies.sensitivity`)."""

    NESTED: ClassVar[dict[str, type[_Block]]] = {"model": ModelInfo, "outcome": Outcome}
    WRITTEN: ClassVar[frozenset[str]] = ALWAYS_WRITTEN

    schema_version: int = 1
    winoscope_version: str | None = None
    kind: str | None = None
    created: str | None = None
    duration_s: float | None = None
    task: str | None = None
    protocol: str | None = None
    dataset: Mapping[str, Any] | None = None
    review_status: str | None = None
    model: ModelInfo = field(default_factory=ModelInfo)
    prompt_template: Mapping[str, Any] | None = None
    prompt_templates: list[Mapping[str, Any]] | None = None
    seed: int | None = None
    bootstrap: Mapping[str, Any] | None = None
    spread: Mapping[str, Any] | None = None
    runs: list[Mapping[str, Any]] | None = None
    requests: int | None = None
    request_errors: int | None = None
    python: str | None = None
    environment: Mapping[str, Any] | None = None
    tags: Mapping[str, Any] | None = None
    responses: Mapping[str, Any] | None = None
    letter_mass: Mapping[str, Any] | None = None
    outcome: Outcome = field(default_factory=Outcome)
    answer_quality: Mapping[str, Any] | None = None
    transport: Mapping[str, Any] | None = None
    protocol_notes: list[str] | None = None
    validation: Mapping[str, Any] | None = None
    partial: Mapping[str, Any] | None = None
    left_out: Mapping[str, Any] | None = None
    failed_requests: Mapping[str, Any] | None = None
    conventions: Mapping[str, Any] | None = None
    resolver_output: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)
    keys: tuple[str, ...] = field(default=(), repr=False, compare=False)

    # --- what the pages and comparisons read, for old runs as for new ------------------------

    @property
    def source(self) -> Mapping[str, Any]:
        """The dataset's ``source`` block (empty when not recorded)."""
        return (self.dataset or {}).get("source") or {}

    @property
    def dataset_name(self) -> str | None:
        name = (self.dataset or {}).get("name")
        return None if name is None else str(name)

    @property
    def is_sample(self) -> bool:
        """Whether the run is on a bundled sample (not the dataset)."""
        return bool((self.dataset or {}).get("is_sample")) or self.source.get("kind") == "sample"

    @property
    def tag_map(self) -> dict[str, Any]:
        """What the run was tagged with (``--tag``, ``tags=``); empty for untagged runs."""
        return dict(self.tags) if isinstance(self.tags, Mapping) else {}

    @property
    def dataset_key(self) -> str:
        """What identifies the data: hub revision, else file sha256, else location."""
        src = self.source
        for key in ("revision", "commit", "sha256"):
            if src.get(key):
                return f"{key}:{src[key]}"
        version = (self.dataset or {}).get("version")
        return f"version:{version}" if version else f"location:{src.get('location', '?')}"

    @property
    def table_key(self) -> str:
        """The sha256 of the loaded canonical table (``unrecorded`` for older runs)."""
        digest = (self.dataset or {}).get("table_sha256")
        return f"table:{digest}" if digest else "unrecorded"

    @property
    def prompt_key(self) -> str:
        """The template's name and a short hash of its text (same name, edited text: differs)."""
        tmpl = self.prompt_template
        if not tmpl:
            return "none"
        digest = hashlib.sha256(str(tmpl.get("text", "")).encode("utf-8")).hexdigest()[:10]
        return f"{tmpl.get('name', '?')}@{digest}"

    @property
    def succeeded(self) -> bool:
        """The outcome's ``success`` (True for runs written before the outcome was recorded)."""
        return bool(self.outcome.success) if self.outcome.success is not None else True

    def quality(self, counts: Any = ()) -> dict[str, Any]:
        """Invalid and failed rates, and whether the run is degenerate: the recorded
        ``answer_quality``, or (older runs) worked out from ``counts`` and the outcome."""
        from ..scoring.answer_quality import quality_of

        outcome = self.outcome.to_json() if self.outcome.keys or self.outcome != Outcome() else None
        return quality_of(self.answer_quality, outcome, counts)
