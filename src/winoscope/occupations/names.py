"""Joining occupation names across tables: NFC-normalised, case-folded, spaces collapsed."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import pandas as pd

from ..errors import DatasetError


def occupation_key(name: object) -> str:
    """The join key of an occupation name: NFC, case-folded, inner spaces collapsed.

    >>> occupation_key(" La\u0308kare ") == occupation_key("LÄKARE") == "läkare"
    True
    """
    text = unicodedata.normalize("NFC", str(name))
    return " ".join(text.casefold().split())


def key_series(names: pd.Series) -> pd.Series:
    return pd.Series([occupation_key(x) for x in names], index=names.index, dtype=object)


def join_report(
    wanted: Iterable[str], available: Iterable[str], *, what: str, where: str
) -> list[str]:
    """The wanted occupations that ``available`` lacks (by :func:`occupation_key`).

    None matching at all is a DatasetError naming a few names of each side (``what`` names the
    wanted side, ``where`` the statistics file)."""
    want = list(dict.fromkeys(str(w) for w in wanted))
    have = list(dict.fromkeys(str(a) for a in available))
    keys = {occupation_key(a) for a in have}
    missing = [w for w in want if occupation_key(w) not in keys]
    if want and len(missing) == len(want):
        raise DatasetError(
            f"no occupation of the statistics matches the {what} (compared case- and "
            f"Unicode-normalised): {what}: {', '.join(want[:4])}; statistics: "
            f"{', '.join(have[:4]) or '(none)'} (a --mapping from official categories to "
            "occupations may be needed)",
            file=where,
            field="occupation",
        )
    return missing
