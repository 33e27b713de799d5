"""Validation findings as a run reports them: a count per check, the first rows, a JSON file.

``winoscope run`` and ``winoscope score`` run the task's checks before anything else. Failing
checks never pass silently: they are printed as a short summary, written to
``validation.json``, counted in the manifest and shown as a banner in the reports; with
``strict`` they stop the run (:class:`ValidationFailed`) before a model is asked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import WinoscopeError

if TYPE_CHECKING:  # only read here: importing this module (every command does) skips pandas
    from .base import Issue

EXAMPLES = 3


class ValidationFailed(WinoscopeError):
    """``strict`` validation found failing checks, or findings a run cannot score around
    (:data:`BLOCKING_HINT`); ``issues`` lists them all."""

    def __init__(
        self, issues: Sequence[Issue], where: str, reason: str = "strict mode stops here"
    ) -> None:
        self.issues = list(issues)
        lines = summary_lines(self.issues)
        super().__init__(
            f"{where}: {len(self.issues)} validation issue(s); {reason}\n" + "\n".join(lines)
        )


BLOCKING_HINT = (
    "rows that cannot be scored (lines that do not parse, duplicated ids, values outside the "
    "card's): fix them, or pass --skip-bad-rows to leave them out"
)


def blocking(issues: Sequence[Issue]) -> list[Issue]:
    """The findings a run cannot score around (see :class:`~winoscope.datasets.base.Issue`)."""
    return [i for i in issues if i.blocking]


def issue_record(issue: Issue) -> dict[str, Any]:
    record: dict[str, Any] = {
        "check": issue.check,
        "row": issue.row,
        "item": issue.item,
        "field": issue.field,
        "message": issue.message,
    }
    for key in ("file", "line"):  # only where the finding has one: older records stay alike
        if getattr(issue, key) is not None:
            record[key] = getattr(issue, key)
    if issue.blocking:
        record["blocking"] = True
    return record


def summarize(issues: Sequence[Issue], examples: int = EXAMPLES) -> dict[str, Any]:
    """``passed``, ``failed_checks`` (check -> count), ``n_issues`` and the first few per check."""
    counts = Counter(i.check for i in issues)
    first: dict[str, list[dict[str, Any]]] = {}
    for i in issues:
        bucket = first.setdefault(i.check, [])
        if len(bucket) < examples:
            bucket.append(issue_record(i))
    return {
        "passed": not issues,
        "failed_checks": dict(counts),
        "n_issues": len(issues),
        "examples": first,
    }


def manifest_entry(issues: Sequence[Issue]) -> dict[str, Any]:
    """What the manifest records: ``{passed, failed_checks, n_issues}``."""
    s = summarize(issues, examples=0)
    return {k: s[k] for k in ("passed", "failed_checks", "n_issues")}


def summary_lines(issues: Sequence[Issue], examples: int = EXAMPLES) -> list[str]:
    """``check: count`` per failing check, each followed by its first rows (indented)."""
    s = summarize(issues, examples)
    out = []
    by_check: dict[str, list[Issue]] = {}
    for i in issues:
        by_check.setdefault(i.check, []).append(i)
    for check, n in s["failed_checks"].items():
        out.append(f"  {check}: {n}")
        out += [f"    {i.format()}" for i in by_check[check][:examples]]
        if n > examples:
            out.append(f"    ... {n - examples} more in validation.json")
    return out


def write_validation_json(path: Path, issues: Sequence[Issue], *, task: str) -> Path:
    from ..jsonio import write_json

    s = summarize(issues)
    write_json(
        path,
        {
            "task": task,
            "passed": s["passed"],
            "n_issues": s["n_issues"],
            "failed_checks": s["failed_checks"],
            "issues": [issue_record(i) for i in issues],
        },
    )
    return path
