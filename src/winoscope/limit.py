"""Partial runs (``--limit N``): the first N source items of every stratum, for a smoke test.

Before a long job one wants to see a model answer a handful of requests of each kind end to
end. ``limit_run`` keeps, in every stratum, the first ``N`` source items (in the data's order)
with all their rows (variants) and all their requests (both option orders), and drops the rest
from the dataset table and the request list, so every metric is computed on exactly what was
asked. A *source item* is the requests' ``item_id`` (what the bootstrap resamples). A *stratum*
is the combination of the family's stratum columns (WinoBias: ``split`` x ``type``; WinoPron and
Winogender: ``context`` x ``pronoun_type``; SweWinogender has none: the whole set is one
stratum; each task declares them, ``Task.strata``); an item whose rows span several values of a column belongs to the stratum named by
all of them. The manifest's ``partial`` entry records the limit and what was kept of what, and
every report marks the run as partial (:func:`partial_note`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .datasets.base import Dataset
from .errors import TaskError
from .records import Request

# the table column holding the requests' ``row_id`` (WinoPron-style tables key rows by row_key)
ROW_KEYS = ("row_id", "row_key")


def check_limit(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise TaskError(f"limit={limit!r}: expected a whole number of source items, at least 1")


def limit_run(
    ds: Dataset, requests: Sequence[Request], limit: int, stratum_columns: Sequence[str] = ()
) -> tuple[Dataset, list[Request], dict[str, Any]]:
    """The dataset and requests of the first ``limit`` items per stratum (the combinations of
    the ``stratum_columns``), and the manifest entry."""
    check_limit(limit)
    table = ds.table
    key = _row_key_column(ds, requests)
    columns = tuple(c for c in stratum_columns if c in table.columns)
    row_ids = table[key].astype(str).tolist()
    column_values = [table[c].astype(str).tolist() for c in columns]
    item_of_row: dict[str, str] = {}
    for req in requests:
        item_of_row.setdefault(req.row_id, req.item_id)
    # each item's values of the stratum columns, over its rows, in the data's order
    values: dict[str, list[set[str]]] = {}
    for pos, rid in enumerate(row_ids):
        item = item_of_row.get(rid)
        if item is None:
            continue
        seen = values.setdefault(item, [set() for _ in columns])
        for j, col_values in enumerate(column_values):
            seen[j].add(col_values[pos])
    strata: dict[str, list[str]] = {}  # stratum label -> its items in order
    for item, seen in values.items():
        label = "/".join("|".join(sorted(s)) for s in seen) or "all"
        strata.setdefault(label, []).append(item)
    kept_items = {item for items in strata.values() for item in items[:limit]}
    kept_requests = [r for r in requests if r.item_id in kept_items]
    kept_rows = {r.row_id for r in kept_requests}
    mask = [rid in kept_rows for rid in row_ids]
    sub = dataclasses.replace(ds, table=table[mask].reset_index(drop=True))
    entry = {
        "limit": limit,
        "unit": "source item (item_id) per stratum",
        "strata_columns": list(columns),
        "items": len(kept_items),
        "items_total": len(values),
        "rows": int(sum(mask)),
        "rows_total": len(table),
        "requests": len(kept_requests),
        "requests_total": len(requests),
        "strata": [
            {"stratum": label, "items": min(limit, len(items)), "items_total": len(items)}
            for label, items in strata.items()
        ],
    }
    return sub, kept_requests, entry


def _row_key_column(ds: Dataset, requests: Sequence[Request]) -> str:
    """The column of ``ds.table`` whose values are the requests' row ids."""
    wanted = {r.row_id for r in requests}
    for col in ROW_KEYS:
        if col in ds.table.columns and wanted <= set(ds.table[col].astype(str)):
            return col
    raise TaskError(
        f"--limit: no column of the {ds.family} table ({', '.join(ROW_KEYS)}) holds the "
        "requests' row ids"
    )


def partial_note(p: Mapping[str, Any] | None) -> str | None:
    """One line for every report of a partial run, from its record's ``partial`` block (None
    for a full run)."""
    if not p:
        return None
    per = " x ".join(p.get("strata_columns") or ()) or "the whole set"
    return (
        f"Partial run (--limit {p['limit']}): the first {p['limit']} source item(s) of each "
        f"stratum ({per}): {p['items']} of {p['items_total']} items, {p['rows']} of "
        f"{p['rows_total']} rows, {p['requests']} of {p['requests_total']} requests; "
        "a smoke test, not a result."
    )
