"""The model's identity and the run's tags as people read them (reports, ``show``, pages).

The manifest keeps the whole record (``model.params``); these lines say what a reviewer asks:
which weights (fingerprint), which adapter, which hooks were on the model, whether answers
were stored, and what the experimenter tagged the run with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..tags import format_tags

if TYPE_CHECKING:
    from ..results.record import RunRecord


def _short(digest: Any, n: int = 12) -> str:
    return str(digest)[:n] if digest else "–"


def identity_lines(record: RunRecord) -> list[str]:
    """One line per part of the model's identity beyond its spec (empty for a plain spec)."""
    params = record.model.params or {}
    runtime = record.model.runtime or {}
    lines: list[str] = []
    if runtime.get("source") == "in memory":
        label = params.get("label")
        lines.append(
            f"model held in Python ({runtime.get('model_class', '?')}), "
            + (f"label `{label}`" if label else "no label: answers not stored")
        )
    config = params.get("config")
    if isinstance(config, Mapping):
        lines.append(
            f"config {config.get('model_type') or '?'} sha256 {_short(config.get('sha256'))}"
        )
    if (
        params.get("weights")
        and isinstance(params.get("weights"), str)
        and "weights_check" in params
    ):
        lines.append(f"weights fingerprint {_short(params['weights'])} ({params['weights_check']})")
    if params.get("weights_modified"):
        lines.append(
            f"weights changed in place since loading: fingerprint {_short(params['weights_modified'])}"
        )
    adapter = params.get("adapter")
    if isinstance(adapter, Mapping):
        where = runtime.get("adapter_path")
        lines.append(
            f"PEFT adapter fingerprint {_short(adapter.get('fingerprint'))}"
            + (f" ({where})" if where else "")
        )
    adapters = params.get("adapters")
    if isinstance(adapters, Mapping):
        for name, a in (adapters.get("adapters") or {}).items():
            lines.append(
                f"adapter {name} ({a.get('peft_type') or '?'}): config {_short(a.get('config_sha256'))}, "
                f"weights {_short(a.get('weights'))}"
            )
        state = (
            "disabled"
            if adapters.get("disabled")
            else "active " + ", ".join(adapters.get("active") or [])
        )
        lines.append(f"adapters {state}; scaling {_short(adapters.get('scaling_sha256'))}")
    for hook in params.get("hooks") or ():
        lines.append(
            f"hook {hook.get('kind')} on {hook.get('module')}: {hook.get('callable')} "
            f"(state {hook.get('state_sha256')})"
        )
    return lines


def tags_text(record: RunRecord) -> str:
    """``alpha=4 method=steer``, or empty when the run has no tags."""
    return format_tags(record.tags or {})


def store_note(record: RunRecord) -> str | None:
    """Why answers were not stored, when they were not (a live model without a label ...)."""
    responses = record.responses or {}
    note = responses.get("not_stored")
    return str(note) if note else None
