"""What a non-200 answer means: retried (with the server's ``Retry-After`` where it gives one)
or a failure of that request alone. Answers that stop the whole run (401, 403, 404, 407, no
chat template) are decided by the backend first, since their message names its settings."""

from __future__ import annotations

from collections.abc import Mapping

from .parse import RequestFailed, RetryableError, parse_retry_after

FATAL_STATUS = {401: "unauthorised", 403: "forbidden", 404: "not found",
                407: "proxy authentication required"}  # fmt: skip
RETRY_STATUS = {408, 409, 425, 429}
WAIT_STATUS = {429, 503}  # statuses whose Retry-After is honoured


def raise_for_status(
    status: int, detail: str, headers: Mapping[str, str], retry_after_cap: float
) -> None:
    """:class:`RetryableError` for 5xx, 408, 409, 425 and 429, else :class:`RequestFailed`."""
    if status >= 500 or status in RETRY_STATUS:
        wait = None
        if status in WAIT_STATUS:
            wait = parse_retry_after(headers.get("retry-after"))
            if wait is not None:
                wait = min(wait, retry_after_cap)
        raise RetryableError(f"HTTP {status}: {detail}", wait)
    raise RequestFailed(f"HTTP {status}: {detail}", signature=f"HTTP {status}")
