"""The coreference scorer's document frame summed back into one :class:`DocumentScore`: the
reference the tests hold the scorer's point values (its vectorised F1 of summed counts) to."""

from __future__ import annotations

import pandas as pd

from winoscope.scoring.coref import COUNT_FIELDS
from winoscope.scoring.coref_metrics import Counts, DocumentScore


def total_score(docs: pd.DataFrame) -> DocumentScore:
    """Summed counts of a document frame as a :class:`DocumentScore`."""
    sums = docs.sum(numeric_only=True)

    def counts(prefix: str) -> Counts:
        return Counts(*(float(sums.get(f"{prefix}_{f}", 0.0)) for f in COUNT_FIELDS))

    return DocumentScore(
        muc=counts("muc"),
        bcub=counts("bcub"),
        ceafe=counts("ceafe"),
        ceafm=counts("ceafm"),
        mentions=counts("mentions"),
        blanc_coref=counts("blanc_coref"),
        blanc_noncoref=counts("blanc_noncoref"),
    )
