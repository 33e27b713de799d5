"""What a run records beside its metrics: the outcome (answered, failed, exit status), the
failed requests' examples and the dataset's entry in the run's record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import TaskError
from ..records import Response

if TYPE_CHECKING:
    from ..datasets.base import Dataset


def check_failed_share(share: float) -> None:
    if not 0.0 <= share <= 1.0:
        raise TaskError(f"max_failed_share={share!r}: expected a share from 0 to 1")


def check_statistics(n_boot: int, seed: int, least: int = 0) -> None:
    """Bootstrap replicates (at least ``least``; 0: no intervals) and a seed, both whole
    numbers from 0: refused before a model is asked (numpy refuses them after)."""
    for name, value, low in (("n_boot (--bootstrap)", n_boot, least), ("seed (--seed)", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise TaskError(f"{name}={value!r}: expected a whole number, at least {low}")


def run_outcome(
    responses: Mapping[str, Response], n_requests: int, max_failed_share: float = 0.0
) -> dict[str, Any]:
    """The run's outcome for the manifest, the report and the exit status.

    ``status`` is ``ok`` (every request answered), ``partial`` or ``failed`` (none answered);
    ``success`` holds when some request was answered and the failed share is at most
    ``max_failed_share``. ``finish_reasons`` counts the servers' reasons (``length``: cut off
    by the token limit) among answers and failures.
    """
    failed = sum(1 for r in responses.values() if r.error is not None)
    answered = n_requests - failed
    share = failed / n_requests if n_requests else 0.0
    status = "ok" if failed == 0 else ("failed" if answered == 0 else "partial")
    reasons: dict[str, int] = {}
    for r in responses.values():
        if r.finish_reason is not None:
            reasons[r.finish_reason] = reasons.get(r.finish_reason, 0) + 1
    return {
        "requests": n_requests,
        "answered": answered,
        "failed": failed,
        "failed_share": round(share, 6),
        "max_failed_share": max_failed_share,
        "status": status,
        "success": n_requests == 0 or (answered > 0 and share <= max_failed_share),
        "finish_reasons": dict(sorted(reasons.items())),
    }


def error_summary(responses: Mapping[str, Response], limit: int = 5) -> list[dict[str, Any]]:
    errs = [r for r in responses.values() if r.error is not None]
    return [{"request_id": r.request_id, "error": r.error} for r in errs[:limit]] + (
        [{"more": len(errs) - limit}] if len(errs) > limit else []
    )


def dataset_record(task: str, ds: Dataset) -> dict[str, Any]:
    """The dataset as the manifest records it, with its release where the task has known
    releases (:func:`~winoscope.datasets.releases.release_record`)."""
    from ..datasets.releases import release_record

    record = ds.describe()
    release = release_record(task, record.get("source") or {})
    if release is not None:
        record["release"] = release
    return record
