"""What makes two runs of one task not comparable, said once for ``diff`` and ``compare``.

Runs compared side by side should differ in the model (or its intervention) only. Every other
difference is noted: protocol (forced choice against cloze), prompt template (name and text),
the backend's mode, the data (canonical table hash, hub revision or file hash), a partial run
(``--limit``) and the seed. Only real differences: a run whose backend reads no prompt (a
reference baseline, a resolver's output file) never "differs" in prompt, and a mode is compared
only between runs that have one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..results.rundir import RunDir

#: backends that answer from the items, not from the prompt
PROMPTLESS_KINDS = ("baseline", "nli-baseline", "file")


def reads_prompt(run: RunDir) -> bool:
    kind = run.record.model.kind
    return str("" if kind is None else kind) not in PROMPTLESS_KINDS


def _protocol(r: RunDir) -> str | None:
    return str(r.record.protocol or "") or None


def _prompt(r: RunDir) -> str | None:
    return r.prompt_key if reads_prompt(r) and r.prompt_key != "none" else None


def _mode(r: RunDir) -> str | None:
    mode = r.record.model.mode
    return None if mode is None else str(mode)


def _data(r: RunDir) -> str | None:
    key = r.table_key
    return None if key == "unrecorded" else key[:22] + "…"


def _limit(r: RunDir) -> str | None:
    partial = r.record.partial or {}
    return f"--limit {partial.get('limit')}" if partial else "full"


def _seed(r: RunDir) -> str | None:
    seed = r.record.seed
    return None if seed is None else str(seed)


def _version(r: RunDir) -> str | None:
    return r.dataset_key


ASPECTS: tuple[tuple[str, Callable[[RunDir], str | None]], ...] = (
    ("protocols", _protocol),
    ("prompt templates", _prompt),
    ("modes", _mode),
    ("dataset versions", _version),
    ("loaded tables (sha256 of the canonical table)", _data),
    ("partial runs", _limit),
    ("seeds", _seed),
)


def differences(
    runs: Sequence[RunDir], skip: Sequence[str] = (), names: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One entry per aspect in which the runs (of one task) differ: the aspect, the value of
    each run that has one, and a sentence naming the runs (by ``names``, else by folder)."""
    names = list(names) if names is not None else [r.path.name for r in runs]
    out = []
    for aspect, read in ASPECTS:
        if aspect in skip:
            continue
        values = {i: read(r) for i, r in enumerate(runs)}
        known = {i: v for i, v in values.items() if v is not None}
        if len(set(known.values())) <= 1:
            continue
        groups: dict[str, list[str]] = {}
        for i, v in known.items():
            groups.setdefault(v, []).append(names[i])
        detail = "; ".join(f"{v}: {', '.join(names)}" for v, names in groups.items())
        out.append(
            {
                "aspect": aspect,
                "runs": sorted(known),
                "values": {names[i]: v for i, v in known.items()},
                "note": f"{runs[0].task}: runs use different {aspect} ({detail})",
            }
        )
    return out


def partial_mismatch(a: RunDir, b: RunDir) -> str | None:
    """Why a paired comparison of ``a`` and ``b`` is refused: one is partial and the other is
    not (or both are, with different limits); None when their parts match."""
    pa, pb = a.record.partial or {}, b.record.partial or {}
    if not pa and not pb:
        return None
    if pa.get("limit") == pb.get("limit"):
        return None

    def what(r: RunDir, p: Mapping[str, Any]) -> str:
        if not p:
            return f"{r.path.name} is a full run"
        return (
            f"{r.path.name} is a partial run (--limit {p.get('limit')}: {p.get('rows')} of "
            f"{p.get('rows_total')} rows)"
        )

    return (
        f"{what(a, pa)} and {what(b, pb)}: a paired comparison needs the same items; rerun "
        "both with the same --limit, or both in full"
    )
