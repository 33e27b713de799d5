"""Real run pairs for ``crosslingual``: the bundled WinoBias-UK sample and English WinoBias.

The sample is the project's own text: each of its items adapts one English WinoBias item (the
same type, condition, target and other occupation by the WinoBias-UK occupation table) but
numbers it afresh, so the real English run links the sample's keys to other items.
:func:`matched_english` copies an English run and renumbers, for each sample item, the English
item it adapts to the sample's split and item number (the other English rows dropped): a run
pair whose every link is a translation, made from real runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from winoscope.compare.joins import english_key, occupation_table_uk


def matched_english(uk_run: Path, en_run: Path, out: Path) -> Path:
    """``en_run`` copied to ``out`` with only the English items the sample adapts, each under
    the sample item's split and number."""
    table = {k: english_key(v) for k, v in occupation_table_uk().items()}
    uk = pd.read_parquet(uk_run / "predictions.parquet")
    en = pd.read_parquet(en_run / "predictions.parquet")
    uk = uk[uk["score_group"] == "primary_balanced"].drop_duplicates(
        ["split", "type", "item_number"]
    )
    en = en[en["score_group"] == "primary_balanced"]
    parts = []
    for r in uk.itertuples(index=False):
        target = table[str(r.target_occupation_uk).casefold()]
        other = table[str(r.other_occupation_uk).casefold()]
        same = en[
            (en["type"] == r.type)
            & (en["target_occupation_en"].map(english_key) == target)
            & (en["other_occupation_en"].map(english_key) == other)
        ]
        first = same.iloc[0]
        rows = same[
            (same["split"] == first["split"]) & (same["item_number"] == first["item_number"])
        ]
        assert sorted(rows["condition"]) == ["anti", "pro"], (r, rows)
        parts.append(rows.assign(split=r.split, item_number=r.item_number))
    shutil.copytree(en_run, out)
    pd.concat(parts).to_parquet(out / "predictions.parquet", index=False)
    return out
