"""WinoBias-UK Controlled's checks, as findings with file, row and field.

The group's evaluator refuses a file unless every row's ids and texts are present (loading's
``required`` findings), ``gold_candidate`` is A or B (``enum``), the sentence holds exactly one
bracketed pronoun (``pronoun``), ids are unique (``duplicate``) and every item has exactly one
pro and one anti row (``pair``): each of those is blocking here. Two candidates with the same
text (``candidates``) leave nothing to choose between; the evaluator scores such a row anyway
(by the letters alone), so it is reported without being blocking.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

from ...datasets.base import Issue

ITEM_KEY = ["split", "type", "item_number"]
_BRACKETED = re.compile(r"\[([^\]]+)\]")


def bracketed(sentence: str) -> list[str]:
    """The bracketed words of a sentence, as the evaluator finds them.

    >>> bracketed("Лікар найняв секретарку, бо [він] мав багато роботи.")
    ['він']
    """
    return _BRACKETED.findall(sentence)


def row_checks(table: pd.DataFrame, col: Callable[[str], str], *, file: str | None) -> list[Issue]:
    """The per-row checks (pronoun, candidates), then the per-item pair check."""
    issues: list[Issue] = []
    sentence, a, b = col("sentence"), col("candidate_a"), col("candidate_b")
    for i, row in enumerate(table.to_dict("records"), start=1):
        found = bracketed(str(row[sentence]))
        if len(found) != 1:
            issues.append(
                Issue(
                    "pronoun",
                    f"{len(found)} bracketed words; the sentence needs exactly one [pronoun]",
                    row=i,
                    item=str(row["row_id"]),
                    field=sentence,
                    file=file,
                    blocking=True,
                    excludes=("item_id", str(row["item_id"])),
                )
            )
        if str(row[a]).strip().casefold() == str(row[b]).strip().casefold():
            issues.append(
                Issue(
                    "candidates",
                    f"both candidates are {str(row[a]).strip()!r}: only the letters differ",
                    row=i,
                    item=str(row["row_id"]),
                    field=b,
                    file=file,
                )
            )
    for iid, group in table.groupby("item_id", sort=False):
        conditions = sorted(group["condition"].astype(str))
        if conditions != ["anti", "pro"]:
            issues.append(
                Issue(
                    "pair",
                    f"an item needs one pro and one anti row, it has {conditions}",
                    row=int(group.index[0]) + 1,  # the item's first row
                    item=str(iid),
                    field="condition",
                    file=file,
                    blocking=True,
                    excludes=("item_id", str(iid)),
                )
            )
    return issues
