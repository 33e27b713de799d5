"""How many of a run's answers say anything: the invalid and failed rates beside its metrics,
and the warning for a degenerate run.

A run whose answers are all invalid still has metrics: WinoBias-UK scores an invalid answer as
wrong, so a model that answers ``B`` to every prompt gets pro and anti accuracy 0.000 with the
interval [0.000, 0.000], which reads like a result. ``answer_quality`` puts the two rates every
reader needs beside the headline numbers:

- ``invalid_rate``: invalid rows / scored rows (a row whose answers name no option, or whose two
  option orders disagree);
- ``failed_rate``: failed requests / requests (no answer after retries).

A run is **degenerate** when at least :data:`DEGENERATE_SHARE` (half) of its scored rows are
invalid: its metrics then describe the answer format, not the model's coreference. The warning
names the likely cause from the invalid rows' pattern
(:func:`winoscope.protocols.answer_pattern.invalid_pattern`): the same letter in both orders is
position bias; answers that name no option point to the prompt or the chat template; rows
with no answer at all, scored as wrong under ``--failed wrong``, are failed requests. Worked
example: 76 scored rows, all invalid, each with ``B`` in both orders ->
``invalid_rate`` 1.0, degenerate, cause ``position bias``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: a run with at least this share of its scored rows invalid is degenerate
DEGENERATE_SHARE = 0.5

POSITION_BIAS = "position bias"
UNPARSABLE = "unparsable answers"
FAILED_REQUESTS = "failed requests"


def count_totals(counts: Any) -> dict[str, int]:
    """Rows, scored, invalid and missing over a scorer's ``counts`` (rows or a frame): the
    whole-set row (``all``/``all``) where the scorer writes one beside its breakdowns, else the
    sum over the strata (which do not overlap)."""
    records: list[Mapping[str, Any]] = (
        counts.to_dict("records") if hasattr(counts, "to_dict") else list(counts or [])
    )
    whole = [c for c in records if str(c.get("split")) == "all" and str(c.get("type")) == "all"]
    use = whole[:1] if whole else records
    return {
        key: sum(int(c.get(key, 0) or 0) for c in use)
        for key in ("rows", "scored", "invalid", "missing")
        if use and key in use[0]
    }


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


def likely_cause(
    invalid: int, pattern: Mapping[str, Any] | None, failed_rows: int = 0
) -> tuple[str, str]:
    """(cause, the sentence naming it) for ``invalid`` rows with the given pattern, of which
    ``failed_rows`` are rows whose request failed, scored as wrong (``--failed wrong``)."""
    if failed_rows and invalid:
        p = pattern or {}
        same, unparsable = int(p.get("same_letter", 0)), int(p.get("unparsable", 0))
        if failed_rows >= max(same, unparsable, invalid - failed_rows - same - unparsable):
            return FAILED_REQUESTS, (
                f"failed requests: {failed_rows} of {invalid} invalid rows have no answer (a "
                "request failed after retries) and are scored as wrong (--failed wrong)"
            )
    if not pattern or not invalid:
        return "", "the answers name no option the protocol can score (ties, or unreadable)"
    same, unparsable = int(pattern.get("same_letter", 0)), int(pattern.get("unparsable", 0))
    letters = dict(pattern.get("letters") or {})
    top = max(letters, key=letters.__getitem__) if letters else "?"
    if same and same >= unparsable:
        return POSITION_BIAS, (
            f"position bias: the same letter in both option orders in {same} of {invalid} "
            f"invalid rows ({top} in {letters.get(top, 0)})"
        )
    if unparsable:
        every = pattern.get("unparsable_answers") == pattern.get("answers")
        return UNPARSABLE, (
            f"{'every answer' if every else f'{unparsable} of {invalid} invalid rows'} "
            "unparsable (no option letter or wording): check the prompt template or the chat "
            "template"
        )
    return "", "the two option orders chose different options"


def answer_quality(
    counts: Any,
    outcome: Mapping[str, Any] | None = None,
    pattern: Mapping[str, Any] | None = None,
    failed_rows: int = 0,
) -> dict[str, Any]:
    """The manifest's ``answer_quality`` entry from a scorer's counts, the run's outcome, the
    invalid rows' pattern (module doc) and the rows scored as wrong for a failed request."""
    totals = count_totals(counts)
    scored, invalid = totals.get("scored", 0), totals.get("invalid", 0)
    outcome = outcome or {}
    requests, failed = int(outcome.get("requests", 0) or 0), int(outcome.get("failed", 0) or 0)
    invalid_rate = _share(invalid, scored)
    entry: dict[str, Any] = {
        "scored": scored,
        "invalid": invalid,
        "invalid_rate": invalid_rate,
        "requests": requests,
        "failed": failed,
        "failed_rate": _share(failed, requests),
        "threshold": DEGENERATE_SHARE,
        "degenerate": invalid_rate is not None and invalid_rate >= DEGENERATE_SHARE,
    }
    if pattern is not None:
        entry["pattern"] = dict(pattern)
    if entry["degenerate"]:
        entry["cause"], entry["explanation"] = likely_cause(invalid, pattern, failed_rows)
    return entry


def quality_of(
    recorded: Any, outcome: Mapping[str, Any] | None, counts: Sequence[Any] = ()
) -> dict[str, Any]:
    """A run's ``answer_quality``: the one its record holds (``recorded``), or (runs written
    before it was recorded) worked out from the counts and the outcome, without a cause's
    pattern. :meth:`winoscope.results.record.RunRecord.quality` passes its record's."""
    if isinstance(recorded, Mapping):
        return dict(recorded)
    return answer_quality(counts, outcome)


def _percent(rate: Any) -> str:
    if rate is None or rate != rate:  # None or NaN: nothing scored
        return "–"
    return f"{100 * float(rate):.0f}%"


def quality_text(q: Mapping[str, Any]) -> str:
    """``invalid 100% (76 of 76 scored rows) · failed 0% (0 of 152 requests)``."""
    return (
        f"invalid {_percent(q.get('invalid_rate'))} ({q.get('invalid', 0)} of "
        f"{q.get('scored', 0)} scored rows) · failed {_percent(q.get('failed_rate'))} "
        f"({q.get('failed', 0)} of {q.get('requests', 0)} requests)"
    )


def invalid_share(q: Mapping[str, Any]) -> str:
    """``100% of its scored rows invalid``."""
    return f"{_percent(q.get('invalid_rate'))} of its scored rows invalid"


def short_text(q: Mapping[str, Any]) -> str:
    """``invalid 100%, failed 0%`` (a table cell), with ``DEGENERATE`` in front when it is."""
    text = f"invalid {_percent(q.get('invalid_rate'))}, failed {_percent(q.get('failed_rate'))}"
    return f"DEGENERATE: {text}" if q.get("degenerate") else text


def degenerate_warning(q: Mapping[str, Any]) -> str | None:
    """The warning for a degenerate run (None otherwise)."""
    if not q.get("degenerate"):
        return None
    threshold = float(q.get("threshold", DEGENERATE_SHARE))
    why = q.get("explanation") or likely_cause(int(q.get("invalid", 0)), q.get("pattern"))[1]
    return (
        f"degenerate run: {q.get('invalid', 0)} of {q.get('scored', 0)} scored rows "
        f"({_percent(q.get('invalid_rate'))}) are invalid (the threshold: at least "
        f"{_percent(threshold)}); likely cause: {why}. Its metrics describe the answer format, "
        "not the model's coreference"
    )


def short_warning(q: Mapping[str, Any]) -> str | None:
    """The warning in one short line: ``degenerate run (invalid 100% >= 50%): position bias:
    ...`` (None for a run that is not degenerate)."""
    if not q.get("degenerate"):
        return None
    why = q.get("explanation") or likely_cause(int(q.get("invalid", 0)), q.get("pattern"))[1]
    threshold = _percent(float(q.get("threshold", DEGENERATE_SHARE)))
    return f"degenerate run (invalid {_percent(q.get('invalid_rate'))} >= {threshold}): {why}"


def built_on_degenerate(labels: Sequence[str]) -> str:
    """The note a comparison built on degenerate runs carries: ``built on a degenerate run
    (B: invalid 100%)``."""
    return (
        f"built on {'a degenerate run' if len(labels) == 1 else 'degenerate runs'} "
        f"({'; '.join(labels)}): at least half of the scored rows are invalid, so the numbers "
        "describe the answer format, not a change in bias"
    )
