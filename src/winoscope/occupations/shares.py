"""Shares of women per occupation: reading them from table columns, and their three zones.

Every statistics reader (:mod:`.official_tables`, :mod:`.stats`) turns a column of numbers
(percentages or fractions, decimal comma allowed) into shares of women in [0, 1] with
:func:`parse_numbers` and :func:`to_share`, and puts each share in one of the paper's zones
with :func:`classify`: male-dominated (< 1/3 women), neutral, female-dominated (> 2/3).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from ..errors import DatasetError

MALE_DOMINATED = "male-dominated"
NEUTRAL = "neutral"
FEMALE_DOMINATED = "female-dominated"
ZONES = (MALE_DOMINATED, NEUTRAL, FEMALE_DOMINATED)
LOWER, UPPER = 1 / 3, 2 / 3
Scale = Literal["percent", "fraction"]


def classify(share: float) -> str | None:
    """The zone of a share of women: < 1/3 male-dominated, > 2/3 female-dominated, else neutral.

    The bounds themselves are neutral ("between one third and two thirds"); NaN gives None.

    >>> classify(0.2), classify(1 / 3), classify(0.9)
    ('male-dominated', 'neutral', 'female-dominated')
    """
    if share is None or (isinstance(share, float) and np.isnan(share)):
        return None
    if share < LOWER:
        return MALE_DOMINATED
    if share > UPPER:
        return FEMALE_DOMINATED
    return NEUTRAL


def classify_series(shares: pd.Series) -> pd.Series:
    return pd.Series([classify(float(x)) for x in shares], index=shares.index, dtype=object)


def statistic_columns(frame: pd.DataFrame) -> list[str]:
    """The share columns of a statistics frame (``attrs`` or every numeric non-count column)."""
    cols = frame.attrs.get("statistics")
    if cols:
        return [c for c in cols if c in frame.columns]
    skip = {"women", "men", "year", "bls_year"}
    return [
        c
        for c in frame.columns
        if c != "occupation" and c not in skip and pd.api.types.is_numeric_dtype(frame[c])
    ]


def parse_numbers(
    frame: pd.DataFrame, column: str, *, source: str, low: float, high: float | None
) -> pd.Series:
    """``frame[column]`` as floats in ``[low, high]``; the first bad cell is an error naming
    its row and column."""
    text = frame[column].astype("string").str.strip().str.replace(",", ".", regex=False)
    values = pd.to_numeric(text, errors="coerce")
    bad = values.isna() | (values < low) | ((values > high) if high is not None else False)
    if bool(bad.any()):
        i = int(bad.to_numpy().nonzero()[0][0])
        rng = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise DatasetError(
            f"expected a number {rng}, got {frame[column].iloc[i]!r}",
            file=source,
            row=i + 1,
            field=column,
        )
    return values.astype(float)


def to_share(values: pd.Series, scale: Scale, *, source: str, column: str) -> pd.Series:
    """Percentages (``scale="percent"``) or fractions as fractions; percentages that are all
    at most 1 are refused as probable fractions."""
    if scale == "fraction":
        return values
    if len(values) > 1 and bool((values <= 1).all()) and bool((values > 0).any()):
        raise DatasetError(
            "every value is at most 1: these look like fractions, not percentages "
            "(if they are, name the column female_share, which holds fractions)",
            file=source,
            field=column,
        )
    return values / 100.0
