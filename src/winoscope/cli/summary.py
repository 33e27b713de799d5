"""What ``run`` and ``score`` print after a run: the summary table, validation, failed requests,
conventions, and the exit status a run's outcome calls for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.table import Table

from .common import err_console, out_console

if TYPE_CHECKING:
    from ..results.record import Outcome, RunRecord


def summary_order(names: list[str]) -> list[str]:
    """The order ``run`` and ``show`` both list metrics in: headline metrics first (in their
    declared order), then the rest as the scorer wrote them."""
    from ..scoring.metric import headline_metrics

    return list(dict.fromkeys(headline_metrics(names, limit=len(names)) + names))


def print_summary(metrics, title: str, record: RunRecord | None = None) -> None:  # type: ignore[no-untyped-def]
    """The summary table; with the run's record its invalid and failed rates under it."""
    macro = metrics[metrics["split"] == "macro"]
    if macro.empty:  # families without macro averages: whole-set rows, then the breakdowns
        macro = metrics.assign(
            metric=[
                m if s == "all" else f"{m} ({t})"
                for m, s, t in zip(
                    metrics["metric"], metrics["split"], metrics["type"], strict=True
                )
            ]
        )
    else:
        rank = {m: i for i, m in enumerate(summary_order(list(macro["metric"].astype(str))))}
        macro = macro.iloc[
            sorted(range(len(macro)), key=lambda i: rank[str(macro["metric"].iloc[i])])
        ]
    table = Table("metric", "value", "95% CI", "n", title=title)
    for r in macro.itertuples(index=False):
        ci = "–" if r.ci_low != r.ci_low else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        table.add_row(r.metric, "–" if r.value != r.value else f"{r.value:.3f}", ci, str(r.n))
    out_console.print(table)
    if record is not None:
        from ..scoring.answer_quality import quality_text

        out_console.print(quality_text(record.quality()), highlight=False, soft_wrap=True)


def outcome_fails(outcome: Outcome) -> bool:
    """Whether :func:`exit_on_outcome` ends the command with exit status 3."""
    return outcome.success is not None and not outcome.success


def warn_degenerate(
    record: RunRecord | Mapping[str, Any],
    strict: bool = False,
    label: str = "",
    written: str = "the run directory is written",
    failed: bool = False,
) -> bool:
    """The degenerate-run warning on stderr; True when ``strict`` makes it an error, exit
    status 1 unless the failed requests (``failed``) give the command exit status 3.
    ``record`` is a run's record or an ``answer_quality`` entry (``score``'s); ``written``
    says what is written before that exit ("" for nothing)."""
    from ..scoring.answer_quality import degenerate_warning

    warning = degenerate_warning(record if isinstance(record, Mapping) else record.quality())
    if warning is None:
        return False
    where = f" ({escape(label)})" if label else ""
    err_console.print(
        f"[bold yellow]warning{where}:[/] {escape(warning)}", highlight=False, soft_wrap=True
    )
    if strict:
        status = ", but requests failed too: exit status 3" if failed else "; exit status 1"
        after = f" ({written})" if written else ""
        err_console.print(
            f"--strict: a degenerate run is an error{status}{after}",
            highlight=False,
            soft_wrap=True,
        )
    return strict


def unanswered_metrics(policy: str) -> str:
    """What the metrics of a run (or scores) with no answer at all are, under ``--failed``."""
    if policy == "wrong":
        return "the metrics score every unanswered row as wrong (--failed wrong)"
    return "the metrics are empty"


def exit_on_outcome(outcome: Outcome, policy: str = "exclude") -> None:
    """Exit 3 (after the run directory is written) when the run is not a success; ``policy``
    is the run's ``--failed`` (``wrong``: its metrics score the unanswered rows as wrong)."""
    reasons = outcome.finish_reasons or {}
    if reasons.get("length"):
        err_console.print(
            f"[yellow]{reasons['length']} answer(s) cut off by the token limit[/] "
            "(finish_reason=length)",
            highlight=False,
            soft_wrap=True,
        )
    if outcome.success is None or outcome.success:  # None: written before outcomes were
        return
    if outcome.status == "failed":
        err_console.print(
            f"[bold red]no request was answered[/] ({outcome.failed} failed): "
            f"{unanswered_metrics(policy)}; exit status 3",
            highlight=False,
            soft_wrap=True,
        )
    else:
        err_console.print(
            f"[red]{outcome.failed} of {outcome.requests} request(s) failed[/] "
            f"({outcome.failed_share:.1%}, more than --max-failed-share "
            f"{outcome.max_failed_share:g}): exit status 3",
            highlight=False,
            soft_wrap=True,
        )
    raise typer.Exit(3)


def report_validation(issues: list, notes: list[str]) -> None:  # type: ignore[type-arg]
    """The validation summary (count per check, first rows) and the scorer's notes."""
    from ..datasets.validation import summary_lines

    if issues:
        err_console.print(
            f"[yellow]validation: {len(issues)} issue(s)[/] (all in validation.json; --strict "
            "makes them an error):",
            highlight=False,
        )
        for line in summary_lines(issues):
            err_console.print(line, highlight=False, markup=False, soft_wrap=True)
    for note in notes:
        err_console.print(note, highlight=False, markup=False, soft_wrap=True)


def convention_lines(
    conventions: Mapping[str, Any] | None, resolver_output: Mapping[str, Any] | None
) -> list[str]:
    """Scoring conventions that change numbers: the SweWinogender labels, alpha's invalid (a
    run's record or a scorer's settings hold both)."""
    out = [f"convention: {k} = {v}" for k, v in (conventions or {}).items()]
    ro = resolver_output or {}
    if ro.get("unmatched"):
        out.append(
            f"resolver output: {ro['unmatched']} of {ro['documents']} document(s) match no key "
            f"document, e.g. {', '.join(ro['unmatched_ids'][:5])}"
        )
    if ro.get("missing"):
        out.append(
            f"resolver output: {ro['missing']} key document(s) absent (scored as misses), "
            f"e.g. {', '.join(ro['missing_ids'][:5])}"
        )
    return out


def report_request_errors(record: RunRecord, examples: list[dict[str, Any]]) -> None:
    """Failed requests: how many, and a few examples (they are excluded, not scored wrong)."""
    answers = record.responses or {}
    if answers.get("cached"):
        err_console.print(
            f"{answers['cached']} answers reused from the run directory's store, "
            f"{answers.get('asked', 0)} asked",
            highlight=False,
        )
    for line in convention_lines(record.conventions, record.resolver_output):
        err_console.print(line, highlight=False, markup=False, soft_wrap=True)
    n = record.request_errors or 0
    if not n:
        return
    policy = (record.failed_requests or {}).get("policy", "exclude")
    fate = "scored as wrong (--failed wrong)" if policy == "wrong" else "excluded from scoring"
    err_console.print(
        f"[yellow]{n} request(s) failed after retries[/] and their rows are {fate}; "
        "rerun the same command to retry them. Examples:",
        highlight=False,
    )
    for ex in examples:
        if "request_id" in ex:
            err_console.print(f"  {ex['request_id']}: {ex['error']}", highlight=False, markup=False)


def run_notes(left_out: Mapping[str, Any] | None, partial: Mapping[str, Any] | None) -> list[str]:
    """What makes a run's numbers not the whole dataset's: rows left out (``--skip-bad-rows``),
    a --limit run (a run's record or a scorer's settings hold both)."""
    from ..limit import partial_note

    out = []
    left = left_out or {}
    if left:
        checks = ", ".join(f"{k}: {v}" for k, v in (left.get("checks") or {}).items())
        out.append(
            f"left out (--skip-bad-rows): {left.get('findings', 0)} finding(s) ({checks}); "
            f"{left.get('rows', 0)} row(s) removed from the table"
        )
    note = partial_note(partial)
    if note:
        out.append(note)
    return out


def print_run_notes(left_out: Mapping[str, Any] | None, partial: Mapping[str, Any] | None) -> None:
    for line in run_notes(left_out, partial):
        err_console.print(f"[bold yellow]{escape(line)}[/]", highlight=False, soft_wrap=True)
