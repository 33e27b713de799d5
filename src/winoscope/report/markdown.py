"""The Markdown report: a quick, terminal-friendly view of one run."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from .identity import identity_lines, store_note, tags_text

if TYPE_CHECKING:
    from ..results.record import RunRecord
    from ..results.run import RunResult


def fmt(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}"


def metric_table(metrics: pd.DataFrame) -> str:
    """Metrics as rows, strata as columns: 'value [ci_low, ci_high]'."""
    if metrics.empty:
        return "_no metrics_\n"
    m = metrics.copy()
    m["stratum"] = m["split"].astype(str) + "/" + m["type"].astype(str)
    m.loc[m["split"] == "macro", "stratum"] = "macro"
    m["cell"] = [
        f"{fmt(v)} [{fmt(lo)}, {fmt(hi)}] (n={n})"
        if not (isinstance(v, float) and math.isnan(v))
        else "–"
        for v, lo, hi, n in zip(m["value"], m["ci_low"], m["ci_high"], m["n"], strict=True)
    ]
    strata = list(dict.fromkeys(m["stratum"]))
    wide = m.pivot(index="metric", columns="stratum", values="cell").reindex(columns=strata)
    wide = wide.reindex([x for x in dict.fromkeys(m["metric"])])
    header = "| metric | " + " | ".join(strata) + " |\n"
    header += "|---|" + "---|" * len(strata) + "\n"
    body = "".join(
        f"| {metric} | " + " | ".join("–" if pd.isna(c) else str(c) for c in row) + " |\n"
        for metric, row in zip(wide.index, wide.to_numpy(), strict=True)
    )
    return header + body


def validation_banner(record: RunRecord) -> str | None:
    """One warning line when the task's checks failed on the data (None when they passed);
    after ``--skip-bad-rows`` it says how many rows were left out and why."""
    v = record.validation
    if not v or v.get("passed", True):
        left = numbers_basis(record)
        return None if left is None else f"**{left}**"
    checks = ", ".join(f"{k}: {n}" for k, n in v.get("failed_checks", {}).items())
    return (
        f"**Validation failed**: {v['n_issues']} issue(s) in the data ({checks}); every "
        "failing row is listed in [validation.json](validation.json). "
        + (numbers_basis(record) or "The numbers below are computed on these rows as they are.")
    )


def numbers_basis(record: RunRecord) -> str | None:
    """The rows ``--skip-bad-rows`` left out, as the validation banners state them (None when
    none were)."""
    from ..datasets.base import left_out_note

    left = left_out_note(record.left_out)
    return None if left is None else f"{left}, and on the other rows as they are."


def bootstrap_text(b: Mapping[str, Any]) -> str:
    """``2000 replicates, resampling unit: pair, 95% percentile intervals``."""
    unit = b.get("resampling_unit", "source item")
    within = f" (within each {b['stratified_by']} stratum)" if b.get("stratified_by") else ""
    level = round(float(b.get("level", 0.95)) * 100)
    return (
        f"{b.get('replicates', '?')} replicates, resampling unit: {unit}{within}, "
        f"{level}% percentile intervals"
    )


def conventions_lines(record: RunRecord) -> list[str]:
    """Report lines stating the conventions that change numbers: what a failed request counts
    as, SweWinogender's label convention, a resolver output's unmatched documents."""
    out = []
    f = record.failed_requests
    if f:
        fate = (
            "scored as wrong answers (invalid)"
            if f.get("policy") == "wrong"
            else "left out of every denominator"
        )
        out.append(
            f"- **Failed requests** (`--failed {f.get('policy')}`): {f.get('requests', 0)} "
            f"request(s), {f.get('rows', 0)} row(s) without an answer, {fate}"
        )
    for key, value in (record.conventions or {}).items():
        out.append(f"- **Convention** `{key}`: {value}")
    ro = record.resolver_output
    if ro:
        out.append(
            f"- **Resolver output**: {ro.get('documents', 0)} document(s), "
            f"{ro.get('matched', 0)} matched, {ro.get('unmatched', 0)} with no key document"
            + (f" (e.g. {', '.join(ro['unmatched_ids'])})" if ro.get("unmatched_ids") else "")
        )
    return out


def outcome_lines(outcome: Mapping[str, Any] | None, policy: str = "exclude") -> list[str]:
    """The run's outcome when it is not plain success: no answer at all, or too many failures
    (``policy``: the run's ``--failed``, which says what the metrics make of them)."""
    if not outcome or outcome.get("status") == "ok":
        return []
    if outcome.get("status") == "failed":
        metrics = (
            "the metrics below score every unanswered row as wrong (`--failed wrong`)"
            if policy == "wrong"
            else "the metrics below are empty"
        )
        return [
            f"- **Outcome**: FAILED: none of the {outcome['requests']} requests was answered; "
            + metrics
        ]
    verdict = "within" if outcome.get("success") else "above"
    return [
        f"- **Outcome**: partial: {outcome['failed']} of {outcome['requests']} requests failed "
        f"({outcome['failed_share']:.1%}, {verdict} the allowed share "
        f"{outcome['max_failed_share']:g})"
    ]


def answers_line(record: RunRecord, quality: dict[str, Any]) -> str:
    """``invalid 100% (76 of 76 scored rows) · failed 0% (0 of 152 requests) · 0 reused from
    the run directory's store, 152 asked``."""
    from ..scoring.answer_quality import quality_text

    r = record.responses or {}
    reuse = (
        f" · {r.get('cached', 0)} reused from the run directory's store, {r.get('asked', 0)} asked"
        if "cached" in r or "asked" in r
        else ""
    )
    return quality_text(quality) + reuse


def render_markdown(rr: RunResult) -> str:
    from ..limit import partial_note
    from ..protocols.forced_choice import letter_mass_lines
    from ..scoring.answer_quality import degenerate_warning

    man = rr.record
    ds = man.dataset or {}
    src = ds["source"]
    lines = [
        f"# {rr.task.name} · {man.model.display}",
        "",
    ]
    partial = partial_note(man.partial)
    if partial:
        lines += [f"> ⚠ {partial}", ""]
    banner = validation_banner(man)
    if banner:
        lines += [f"> ⚠ {banner}", ""]
    quality = man.quality(rr.result.counts)
    warning = degenerate_warning(quality)
    if warning:
        lines += [f"> ⚠ **{warning[0].upper() + warning[1:]}.**", ""]
    for note in rr.result.notes:
        lines += [f"> {note}", ""]
    lines += [
        f"- **Dataset**: {ds['name']} ({src.get('kind')}: `{src.get('location')}`"
        + (f", revision `{src['revision']}`" if src.get("revision") else "")
        + (f", sha256 `{src['sha256'][:16]}…`" if src.get("sha256") else "")
        + (f", commit `{src['commit']}`" if src.get("commit") else "")
        + (f", table sha256 `{ds['table_sha256'][:16]}…`" if ds.get("table_sha256") else "")
        + ")",
        f"- **Review status**: {man.review_status}",
    ]
    from ..datasets.releases import release_line

    release = release_line(ds.get("release"))
    if release:
        lines.append(f"- **Release**: {release}")
    if ds.get("is_sample"):
        lines.append(
            "- **Note**: bundled sample written for winoscope, not the real dataset; numbers check the pipeline only."
        )
    lines += [
        f"- **Protocol**: {man.protocol}"
        + (f" (template `{man.prompt_template['name']}`)" if man.prompt_template else ""),
        *(f"- **Protocol note**: {pn}" for pn in man.protocol_notes or ()),
        f"- **Model**: `{man.model.spec}` params {compact_params(man.model.params or {})}",
        *(f"- **Model identity**: {line}" for line in identity_lines(man)),
        *([f"- **Tags**: {tags_text(man)}"] if tags_text(man) else []),
        *([f"- **Answers not stored**: {store_note(man)}"] if store_note(man) else []),
        f"- **Seed**: {man.seed} · bootstrap: {bootstrap_text(man.bootstrap or {})}",
        f"- **Requests**: {man.requests} ({man.request_errors} failed)",
        f"- **Answers**: {answers_line(man, quality)}",
        *outcome_lines(
            man.outcome.to_json() or None, (man.failed_requests or {}).get("policy", "exclude")
        ),
        *letter_mass_lines(man.letter_mass),
        *conventions_lines(man),
        f"- **winoscope** {man.winoscope_version}",
        "- **Full report**: [report.html](report.html) (plots, tables, rows to read; figures in `plots/`)",
        "",
        "## Metrics",
        "",
        *column_lines(rr.result.settings.get("columns")),
        metric_table(rr.metrics),
    ]
    if rr.result.tests and not all("pro_only_correct" in t for t in rr.result.tests):
        keys = list(dict.fromkeys(k for t in rr.result.tests for k in t))
        lines += ["## Significance tests", "", "| " + " | ".join(keys) + " |"]
        lines.append("|" + "---|" * len(keys))
        for t in rr.result.tests:
            cells = [
                fmt(t[k], 4) if isinstance(t.get(k), float) else str(t.get(k, "")) for k in keys
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    elif rr.result.tests:
        lines += [
            "## Pro vs anti on paired items (exact McNemar)",
            "",
            "| split/type | pairs | pro only correct | anti only correct | p |",
            "|---|---|---|---|---|",
        ]
        for t in rr.result.tests:
            lines.append(
                f"| {t['split']}/{t['type']} | {t['pairs']} | {t['pro_only_correct']} | {t['anti_only_correct']} | {fmt(t['p_value'], 4)} |"
            )
        lines.append("")
    if not rr.result.counts.empty:
        lines += [
            "## Counts",
            "",
            "| split/type | rows | scored | invalid | missing (no answer) |",
            "|---|---|---|---|---|",
        ]
        for c in rr.result.counts.to_dict("records"):
            lines.append(
                f"| {c['split']}/{c['type']} | {c['rows']} | {c['scored']} | {c['invalid']} | {c['missing']} |"
            )
        lines.append("")
    if rr.errors:
        lines += ["## Request errors (first few)", ""]
        for e in rr.errors:
            lines.append(f"- {e}")
        lines.append("")
    if man.prompt_template:
        lines += ["## Prompt template", "", "```", man.prompt_template["text"], "```", ""]
    return "\n".join(lines)


def column_lines(columns: Any) -> list[str]:
    """The scorer's explanation of its columns (SweWinogender's NLI view), as paragraphs."""
    return [line for text in columns or () for line in (str(text), "")]


def compact_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters without the identity parts shown on their own lines (hooks, adapters)."""
    return {k: v for k, v in params.items() if k not in ("hooks", "adapters", "config")}
