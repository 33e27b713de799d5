"""The StereoSet-UK Eval evaluator's checks of each row, as findings with file, row and field.

The evaluator refuses a file unless every row has an item id, a template, three fills, a
target and a bias type (empty cells: loading's ``required`` findings), every item id is unique
(``duplicate``) and every template holds exactly one ``[BLANK]`` (``blank``): a template with
none or two cannot be filled into one sentence, so such a row is blocking. It does not look at
the fills themselves; two equal fills make their sentences identical, and every comparison
between them a tie that counts for neither side, which is worth a (non-blocking) finding.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from ...datasets.base import Issue

BLANK = "[BLANK]"
FILLS = ("stereotype_fill", "anti_stereotype_fill", "unrelated_fill")


def fill_blank(template: str, fill: str) -> str:
    """The candidate sentence: the template with its one ``[BLANK]`` replaced by ``fill``.

    >>> fill_blank("Мій сусід [BLANK].", "пекар")
    'Мій сусід пекар.'
    """
    return template.replace(BLANK, fill)


def sentence_checks(
    table: pd.DataFrame, col: Callable[[str], str], *, file: str | None
) -> list[Issue]:
    """One ``blank`` finding (blocking) per template without exactly one ``[BLANK]``, one
    ``same_fill`` finding per row with two equal fills; rows are numbered from 1."""
    issues: list[Issue] = []
    template = col("template")
    fills = [col(f) for f in FILLS]
    for i, row in enumerate(table.to_dict("records"), start=1):
        item = str(row["item_id"])
        n = str(row[template]).count(BLANK)
        if n != 1:
            issues.append(
                Issue(
                    "blank",
                    f"the template has {n} {BLANK} markers; exactly one is filled in",
                    row=i,
                    item=item,
                    field=template,
                    file=file,
                    blocking=True,
                    excludes=("row_id", str(row["row_id"])),
                )
            )
        values = [str(row[f]) for f in fills]
        for a in range(3):
            for b in range(a + 1, 3):
                if values[a] == values[b]:
                    issues.append(
                        Issue(
                            "same_fill",
                            f"{fills[a]} and {fills[b]} are both {values[a]!r}: their "
                            "sentences tie, which counts for neither",
                            row=i,
                            item=item,
                            field=fills[b],
                            file=file,
                        )
                    )
    return issues
