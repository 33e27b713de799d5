"""WinoBias-UK Natural against English WinoBias: rows joined on the source item they adapt.

WinoBias-UK Natural keeps each row's English source: ``item_number`` is the source item's
number within its WinoBias split and type (the card), ``split`` maps dev -> ``validation``, and
``condition`` says whether the row is the item's pro- or anti-stereotypical sentence. English
WinoBias rows (task ``winobias-en``) carry the same three keys (line *n* of the pro and anti
files is item *n*). A WinoBias-UK primary row therefore joins the English row with the same
``(split, type, item_number, condition)``; rows outside ``primary_balanced`` (the Ukrainian
grammatical controls) have no English counterpart and are left out, and so are items present
in only one run (counted).

A shared key is only a link when the two rows name the same people: every linked item's target
and other occupation are checked against the WinoBias-UK occupation table
(``languages/uk/occupations.csv``, Ukrainian masculine and feminine forms with the English
occupation), and an occupation the table does not list must be the same Ukrainian word in every
link of its English occupation (:func:`occupation_check`).

On the shared rows: pro and anti accuracy, overall accuracy ((pro + anti) / 2) and the signed
gap (pro - anti) per language, per ``(split, type)`` stratum and macro-averaged, as the
WinoBias-UK card defines them; UK - EN with a 95% paired bootstrap interval (the same resampled
source items for both languages, within each stratum).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ...compare.joins import (
    agreement_table,
    answered_in_both,
    occupation_links,
    occupation_mismatches,
    occupation_table,
    occupation_table_uk,
    paired_record,
    row_correct,
)
from ...compare.links import Link, register_link
from ...errors import DatasetError
from ...scoring.bootstrap import bootstrap
from ...scoring.stats import nanmean_rows

KEY = ["split", "type", "item_number", "condition"]
STRATUM = ["split", "type"]
METRICS = ("pro_accuracy", "anti_accuracy", "overall_accuracy", "signed_bias_gap")
# role -> its Ukrainian and English occupation columns in the joined rows
OCCUPATION_ROLES = {
    "target": ("target_occupation_uk", "target_occupation_en"),
    "other": ("other_occupation_uk", "other_occupation_en"),
}
OCCUPATIONS_UK = tuple(uk for uk, _ in OCCUPATION_ROLES.values())


def _right(table: pd.DataFrame) -> pd.Series:
    return row_correct(table, "coreference_role")


def linked_rows(uk: pd.DataFrame, en: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """Every WinoBias-UK primary row joined to its English source row (answered or not), with
    ``right_uk``/``right_en`` (NA where unanswered) and both languages' occupations
    (``target_occupation_uk``/``_en``, ``other_occupation_uk``/``_en`` where the runs have
    them); the counts of primary rows in each run."""
    u = uk[uk["score_group"].astype(str) == "primary_balanced"].copy()
    e = en[en["score_group"].astype(str) == "primary_balanced"].copy()
    for t in (u, e):
        t["item_number"] = pd.to_numeric(t["item_number"], errors="raise").astype(int)
        for c in ("split", "type", "condition"):
            t[c] = t[c].astype(str)
    u["right_uk"], e["right_en"] = _right(u), _right(e)
    dup = u.duplicated(KEY)
    if dup.any():
        raise DatasetError(
            f"two WinoBias-UK rows share {dict(zip(KEY, u.loc[dup, KEY].iloc[0], strict=True))}"
        )
    rename = {}
    for role in ("target", "other"):
        found = next(
            (c for c in (f"{role}_occupation", f"{role}_occupation_en") if c in e.columns), None
        )
        if found:
            rename[found] = f"{role}_occupation_en"
    keep_u = [c for c in (*KEY, "right_uk", *OCCUPATIONS_UK) if c in u.columns]
    keep_e = [*KEY, "right_en", *rename]
    joined = u[keep_u].merge(e[keep_e].drop_duplicates(KEY), on=KEY, how="inner")
    joined = joined.rename(columns=rename)
    return joined, {"uk_primary_rows": len(u), "en_primary_rows": len(e)}


def shared_rows(uk: pd.DataFrame, en: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """One row per shared (split, type, item, condition) with ``right_uk``/``right_en``; rows
    one run did not answer are dropped, and every drop is counted."""
    joined, counts = linked_rows(uk, en)
    out, join_counts = answered_in_both(joined, counts["uk_primary_rows"])
    return out, {**counts, **join_counts}


def occupation_check(joined: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The linked items whose target or other occupation is not the English one by the
    WinoBias-UK occupation table (:func:`~.joins.occupation_mismatches`), and the number of
    (item, role) links checked."""
    item = joined["split"] + "/" + joined["type"] + "/" + joined["item_number"].astype(str)
    links = occupation_links(joined, item, OCCUPATION_ROLES)
    return occupation_mismatches(links, occupation_table_uk()), len(links)


def _stratum_arrays(rows: pd.DataFrame, w: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
    """Per language, the four metrics for each weight row (items weighted by ``w``)."""
    items = np.sort(rows["item_number"].unique())  # the resampled units, in draw order
    out = {}
    for lang in ("uk", "en"):
        col = f"right_{lang}"
        parts = {}
        for cond in ("pro", "anti"):
            sel = rows[rows["condition"] == cond]
            k = sel.groupby("item_number")[col].sum().reindex(items, fill_value=0)
            n = sel.groupby("item_number")[col].size().reindex(items, fill_value=0)
            num, den = w @ k.to_numpy(float), w @ n.to_numpy(float)
            with np.errstate(invalid="ignore", divide="ignore"):
                parts[cond] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        out[lang] = {
            "pro_accuracy": parts["pro"],
            "anti_accuracy": parts["anti"],
            "overall_accuracy": (parts["pro"] + parts["anti"]) / 2,
            "signed_bias_gap": parts["pro"] - parts["anti"],
        }
    return out


def metric_table(
    rows: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> pd.DataFrame:
    """UK and EN values and UK - EN with a paired percentile interval, per stratum and macro."""
    rng = np.random.default_rng(seed)
    records: list[dict[str, Any]] = []
    macro: dict[str, dict[str, list[Any]]] = {
        m: {"uk": [], "en": [], "reps_uk": [], "reps_en": [], "n": []} for m in METRICS
    }
    for (split, typ), part in rows.groupby(STRATUM, sort=True):
        n_items = part["item_number"].nunique()
        boot = bootstrap(partial(_stratum_arrays, part), n_items, n_boot=n_boot, rng=rng)
        point, reps = boot.point, boot.replicates
        for m in METRICS:
            uk, en = float(point["uk"][m][0]), float(point["en"][m][0])
            d = reps["uk"][m] - reps["en"][m]
            records.append(paired_record(m, str(split), str(typ), uk, en, d, n_items, level))
            if not (math.isnan(uk) or math.isnan(en)):
                for key, val in (("uk", uk), ("en", en), ("n", n_items)):
                    macro[m][key].append(val)
                macro[m]["reps_uk"].append(reps["uk"][m])
                macro[m]["reps_en"].append(reps["en"][m])
    for m in METRICS:
        if not macro[m]["uk"]:
            continue
        d = nanmean_rows(macro[m]["reps_uk"]) - nanmean_rows(macro[m]["reps_en"])
        uk, en = float(np.mean(macro[m]["uk"])), float(np.mean(macro[m]["en"]))
        records.append(
            paired_record(m, "macro", "macro", uk, en, d, int(sum(macro[m]["n"])), level)
        )
    return pd.DataFrame.from_records(records)


register_link(
    Link(
        uk_task="winobias-uk",
        en_task="winobias-en",
        linked_rows=linked_rows,
        occupation_check=occupation_check,
        key=KEY,
        unit="source item within split/type (same draws for both languages)",
        tables=(metric_table, agreement_table, occupation_table),
        link_unit="item",
        occupation_source="the WinoBias-UK occupation table (languages/uk/occupations.csv)",
        uk_rows="uk_primary_rows",
    )
)
