"""What every cross-lingual join shares: row correctness, the answered-in-both filter and the
tables built on the joined rows (UK - EN records, per-row agreement, occupations).

A joined frame has one row per shared source row with ``right_uk`` and ``right_en``; the
families' cross-lingual modules (``winoscope.families.winobias.crosslingual`` and
``winoscope.families.winopron.crosslingual``) build it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..scoring.bootstrap import interval
from ..scoring.paired import bootstrap_p
from ..scoring.stats import mcnemar_exact


def row_correct(table: pd.DataFrame, gold: str) -> pd.Series:
    """Whether each row's ``prediction_role`` is its ``gold`` role; NA where unanswered."""
    pred = table["prediction_role"].astype("string").str.strip().str.lower()
    answered = pred.notna() & pred.ne("")
    right = pred.eq(table[gold].astype("string").str.strip().str.lower())
    return right.astype("boolean").mask(~answered, pd.NA)


def answered_in_both(joined: pd.DataFrame, uk_rows: int) -> tuple[pd.DataFrame, dict[str, int]]:
    """The joined rows both languages answered (``right_uk``/``right_en`` as bools), and the
    counts of the join: shared rows, Ukrainian rows (of ``uk_rows``) without an English
    counterpart, and shared rows left out for want of an answer."""
    both = joined["right_uk"].notna() & joined["right_en"].notna()
    out = joined[both].copy()
    out["right_uk"] = out["right_uk"].astype(bool)
    out["right_en"] = out["right_en"].astype(bool)
    counts = {
        "shared_rows": len(joined),
        "uk_rows_without_en": uk_rows - len(joined),
        "unanswered_shared_rows": int((~both).sum()),
    }
    return out.reset_index(drop=True), counts


def paired_record(
    m: str, split: str, typ: str, uk: float, en: float, d: np.ndarray, n: int, level: float
) -> dict[str, Any]:
    """One metric row: UK and EN values, UK - EN with the percentile interval and bootstrap p
    of its replicates ``d`` (NaN when either value is)."""
    diff = uk - en
    lo, hi = interval(diff, d, level)
    return {
        "metric": m,
        "split": split,
        "type": typ,
        "uk": uk,
        "en": en,
        "diff": diff,
        "ci_low": lo,
        "ci_high": hi,
        "p_boot": math.nan if math.isnan(diff) else bootstrap_p(d),
        "n_items": n,
    }


def agreement_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per condition and overall: both right, only EN right, only UK right, both wrong."""
    records = []
    for cond, part in [*rows.groupby("condition", sort=True), ("all", rows)]:
        u, e = part["right_uk"], part["right_en"]
        only_en, only_uk = int((e & ~u).sum()), int((u & ~e).sum())
        records.append(
            {
                "condition": cond,
                "rows": len(part),
                "both_right": int((u & e).sum()),
                "only_en_right": only_en,
                "only_uk_right": only_uk,
                "both_wrong": int((~u & ~e).sum()),
                "mcnemar_p": mcnemar_exact(only_en, only_uk),
            }
        )
    return pd.DataFrame.from_records(records)


def occupation_table(rows: pd.DataFrame, limit: int = 10) -> pd.DataFrame:
    """Occupations (English target, Ukrainian beside) by |UK - EN| accuracy, largest first."""
    by = (
        "target_occupation_en" if "target_occupation_en" in rows.columns else "target_occupation_uk"
    )
    g = rows.groupby(by, sort=True)
    out = pd.DataFrame(
        {
            "occupation_uk": g["target_occupation_uk"].agg(lambda s: "; ".join(sorted(set(s)))),
            "rows": g.size(),
            "accuracy_uk": g["right_uk"].mean(),
            "accuracy_en": g["right_en"].mean(),
        }
    )
    out["diff"] = out["accuracy_uk"] - out["accuracy_en"]
    out = out.reset_index().rename(columns={by: "occupation"})
    order = out["diff"].abs().sort_values(ascending=False, kind="stable").index
    return out.loc[order].head(limit).reset_index(drop=True)


# --- do the linked rows name the same occupations? ------------------------------------------

MISMATCH_COLUMNS = ["item", "role", "occupation_uk", "occupation_en", "expected", "rows"]


def english_key(name: Any) -> str:
    """An English occupation as compared: casefolded, without a leading article."""
    text = " ".join(str(name).split()).casefold()
    return text[4:] if text.startswith("the ") else text


def occupation_table_uk() -> dict[str, str]:
    """The WinoBias-UK occupation table (``languages/uk/occupations.csv``): either Ukrainian form,
    casefolded, to its English occupation."""
    from ..languages.word_tables import occupation_lexicon

    table: dict[str, str] = {}
    for row in occupation_lexicon("uk"):
        for form in (row.get("occupation_uk"), row.get("feminine_uk")):
            if form and row.get("occupation_en"):
                table[form.casefold()] = row["occupation_en"]
    return table


def occupation_links(
    rows: pd.DataFrame, item: pd.Series, roles: dict[str, tuple[str, str]]
) -> pd.DataFrame:
    """One row per linked (item, role, Ukrainian occupation, English occupation) with the
    number of joined rows behind it; ``roles`` maps a role to its (UK, EN) occupation columns
    (roles whose columns the rows lack are left out)."""
    parts = []
    for role, (uk_col, en_col) in roles.items():
        if uk_col not in rows.columns or en_col not in rows.columns:
            continue
        parts.append(
            pd.DataFrame(
                {
                    "item": item.astype(str).to_numpy(),
                    "role": role,
                    "occupation_uk": rows[uk_col].astype(str).to_numpy(),
                    "occupation_en": rows[en_col].astype(str).to_numpy(),
                }
            )
        )
    if not parts:
        return pd.DataFrame(columns=["item", "role", "occupation_uk", "occupation_en", "rows"])
    links = pd.concat(parts, ignore_index=True)
    keys = ["item", "role", "occupation_uk", "occupation_en"]
    return links.groupby(keys, sort=False).size().rename("rows").reset_index()


def occupation_mismatches(links: pd.DataFrame, table: dict[str, str] | None) -> pd.DataFrame:
    """The links whose occupations do not correspond (:data:`MISMATCH_COLUMNS`).

    A Ukrainian occupation in ``table`` (casefolded form -> English) must name the English
    occupation the table gives; one outside it (or every one, without a table) must agree with
    the other links of its English occupation: an English occupation is one Ukrainian
    occupation throughout, the one most of its links (rows) name; without a majority every link
    of that English occupation is listed.
    """
    if links.empty:
        return pd.DataFrame(columns=MISMATCH_COLUMNS)
    uk_key = links["occupation_uk"].str.strip().str.casefold()
    en_key = links["occupation_en"].map(english_key)
    listed = uk_key.isin(table.keys()) if table else pd.Series(False, index=links.index)
    expected = pd.Series("", index=links.index, dtype=object)
    bad = pd.Series(False, index=links.index)
    if table:
        want = uk_key[listed].map(table)
        expected[listed] = want
        bad[listed] = want.map(english_key).ne(en_key[listed])
    rest = links[~listed].assign(en_key=en_key[~listed], uk_key=uk_key[~listed])
    for (_, en_name), group in rest.groupby(["role", "en_key"], sort=False):
        weight = group.groupby("uk_key")["rows"].sum()
        if len(weight) < 2:
            continue
        top = weight[weight == weight.max()].index
        if len(top) == 1:  # the majority is the link; the others are off it
            off = group.index[group["uk_key"].ne(top[0])]
            name = group.loc[group["uk_key"].eq(top[0]), "occupation_uk"].iloc[0]
            expected[off] = f"{name}, as {en_name}'s other links"
        else:  # no majority: every link of the English occupation is in doubt
            off = group.index
            names = ", ".join(sorted(set(group["occupation_uk"])))
            expected[off] = f"one Ukrainian occupation for {en_name}, not {names}"
        bad[off] = True
    out = links[bad].assign(expected=expected[bad])
    return out[MISMATCH_COLUMNS].reset_index(drop=True)


def mismatch_text(mismatches: pd.DataFrame, limit: int = 3) -> str:
    """The first few mismatched links as ``item role: UK vs EN (expected X)``."""
    return "; ".join(
        f"{m.item} {m.role}: {m.occupation_uk} vs {m.occupation_en} (expected {m.expected})"
        for m in mismatches.head(limit).itertuples(index=False)
    )
