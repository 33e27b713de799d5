"""Joining the answers of ``sequence`` requests back to the rows they ask about.

Each response holds the options' mean token log-probabilities. An option wins when its mean is
strictly the highest; an exact tie picks nothing (``tie``), as the leaderboard's evaluators
count it (half credit where they give it, never an attempt). :func:`combine_sequences` makes one
record per row with, per option order the row was asked in, the role picked (``pick_<order>``:
a role, ``tie``, or NA when the request failed) and every option's mean and token count
(``mean_<order>_<label>``, ``tokens_<order>_<label>``, ``role_<order>_<label>``); a family's
predict turns those into the column its scorer reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..errors import TaskError
from ..records import Request, Response

TIE = "tie"


def pick(request: Request, response: Response | None) -> str | None:
    """The role a response picks: the option with the strictly highest mean, ``tie`` when two
    share it, None when the request has no answer."""
    if response is None or not response.ok or response.option_logprobs is None:
        return None
    means = response.option_logprobs
    if len(means) != len(request.options):
        raise TaskError(
            f"request {request.request_id}: {len(means)} scores for {len(request.options)} options"
        )
    best = max(means)
    winners = [i for i, m in enumerate(means) if m == best]
    return request.options[winners[0]].role if len(winners) == 1 else TIE


def combine_sequences(
    requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    """One record per row (see the module doc); ``failed_requests`` counts the row's requests
    without an answer and ``orders`` lists its orders in the order asked."""
    per_row: dict[str, dict[str, Any]] = {}
    for req in requests:
        if req.kind != "sequence":
            raise TaskError(f"request {req.request_id} is a {req.kind} request, not a sequence")
        resp = responses.get(req.request_id)
        order = req.order or "single"
        rec = per_row.setdefault(req.row_id, {"row_id": req.row_id, "orders": []})
        if order in rec["orders"]:
            raise TaskError(f"row {req.row_id} is asked twice in order {order}")
        rec["orders"].append(order)
        chosen = pick(req, resp)
        rec[f"pick_{order}"] = chosen if chosen is not None else pd.NA
        ok = resp is not None and resp.ok and resp.option_logprobs is not None
        counts = resp.option_token_counts if ok and resp is not None else None
        for i, opt in enumerate(req.options):
            rec[f"role_{order}_{opt.label}"] = opt.role
            rec[f"mean_{order}_{opt.label}"] = (
                float(resp.option_logprobs[i]) if ok and resp and resp.option_logprobs else None
            )
            rec[f"tokens_{order}_{opt.label}"] = int(counts[i]) if counts else None
        rec["failed_requests"] = rec.get("failed_requests", 0) + (0 if ok else 1)
    records = []
    for rec in per_row.values():
        rec["orders"] = "|".join(rec["orders"])
        records.append(rec)
    return pd.DataFrame.from_records(records)


def picks(frame: pd.DataFrame, orders: Sequence[str]) -> pd.DataFrame:
    """The ``pick_<order>`` columns of ``orders`` (NA where a row lacks one)."""
    return pd.DataFrame(
        {o: frame[f"pick_{o}"] if f"pick_{o}" in frame.columns else pd.NA for o in orders},
        index=frame.index,
    )
