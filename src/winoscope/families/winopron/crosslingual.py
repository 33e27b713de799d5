"""WinoPron-UK against English WinoPron: rows joined on the source template they translate.

The WinoPron-UK card gives each sentence ``template_number``, "source WinoPron template
number", and builds every template in three pronoun sets (masculine, feminine, plural) and two
contexts (double, single). The English task ``winopron-en`` numbers the templates of WinoPron's
``new_templates.tsv`` by their data line (1-based, the header excluded), and builds each in
he / she / singular they. A Ukrainian row therefore joins the English row with the same
``(context, template_number)`` and the corresponding pronoun set: ``male`` - ``male``,
``female`` - ``female``, ``plural`` - ``neutral`` (Ukrainian grammatical plural against English
singular *they*: the same slot of the template, not the same grammar).

The card does not spell out the numbering (which file, from 0 or 1), so every link is checked:
a linked template must have the same gold role (occupation or participant) and the same
pronoun type in both languages (Ukrainian ``oblique`` is English ``accusative``). Any conflict
means the numbers do not follow this convention, and the join is refused with the templates
that conflict, rather than comparing sentences that are not translations of each other. The
occupations are checked too: the project ships no WinoPron occupation table, so every template
of an English occupation must link to the same Ukrainian occupation group
(:func:`occupation_check`).

On the shared rows: per language, double-context accuracy, single-context accuracy, male,
female and plural/they accuracy (double context, as the card's recommended results), and the
card's signed gap female - male; UK - EN with a paired bootstrap interval over the template
pairs (both templates of an occupation and pronoun type resampled together, the same draws for
both languages); the per-row agreement with an exact McNemar test per context; and the
occupations whose accuracy differs most.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...compare.joins import agreement_table as by_condition
from ...compare.joins import (
    answered_in_both,
    occupation_links,
    occupation_mismatches,
    paired_record,
    row_correct,
)
from ...compare.joins import occupation_table as by_occupation
from ...compare.links import Link, register_link
from ...errors import DatasetError
from ...scoring.bootstrap import bootstrap

KEY = ["context", "template_number", "pronoun_set"]
SET_EN = {"male": "male", "female": "female", "plural": "neutral"}
TYPE_EN = {"nominative": "nominative", "oblique": "accusative", "possessive": "possessive"}
# metric -> (context, pronoun set or None for all)
METRICS: dict[str, tuple[str, str | None]] = {
    "double_accuracy": ("double", None),
    "single_accuracy": ("single", None),
    "male_accuracy": ("double", "male"),
    "female_accuracy": ("double", "female"),
    "plural_accuracy": ("double", "plural"),
}
GAP = ("gender_gap", "female_accuracy", "male_accuracy")  # the card: female - male
OCCUPATION_ROLES = {"occupation": ("occupation_group_uk", "occupation_group_en")}


def _right(t: pd.DataFrame) -> pd.Series:
    return row_correct(t, "gold_role")


def _prepared(t: pd.DataFrame, lang: str) -> pd.DataFrame:
    out = t.copy()
    missing = [
        c for c in ("context", "template_number", "pronoun_set", "gold_role", "pronoun_type",
                    "prediction_role") if c not in out.columns
    ]  # fmt: skip
    if missing:
        raise DatasetError(f"the {lang.upper()} run's predictions lack {', '.join(missing)}")
    out["template_number"] = pd.to_numeric(out["template_number"], errors="raise").astype(int)
    for c in ("context", "pronoun_set", "gold_role", "pronoun_type"):
        out[c] = out[c].astype(str)
    out[f"right_{lang}"] = _right(out)
    return out


def linked_rows(uk: pd.DataFrame, en: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every row of a linked (context, template, pronoun set), answered or not, with
    ``right_uk``/``right_en`` (NA where unanswered) and the occupation groups; a DatasetError
    when a linked template's gold role or pronoun type differs between the languages."""
    u, e = _prepared(uk, "uk"), _prepared(en, "en")
    u["pronoun_set"] = u["pronoun_set"].map(SET_EN).fillna(u["pronoun_set"])
    for t, name in ((u, "WinoPron-UK"), (e, "WinoPron-EN")):
        dup = t.duplicated(KEY)
        if dup.any():
            raise DatasetError(
                f"two {name} rows share {dict(zip(KEY, t.loc[dup, KEY].iloc[0], strict=True))}"
            )
    tu = u.drop_duplicates("template_number").set_index("template_number")
    te = e.drop_duplicates("template_number").set_index("template_number")
    linked = tu.index.intersection(te.index)
    role_ok = tu.loc[linked, "gold_role"].eq(te.loc[linked, "gold_role"])
    type_ok = tu.loc[linked, "pronoun_type"].map(TYPE_EN).eq(te.loc[linked, "pronoun_type"])
    bad = linked[~(role_ok & type_ok).to_numpy()]
    if len(bad):
        shown = "; ".join(
            f"template {n}: UK {tu.at[n, 'gold_role']}/{tu.at[n, 'pronoun_type']}, "
            f"EN {te.at[n, 'gold_role']}/{te.at[n, 'pronoun_type']}"
            for n in bad[:3]
        )
        raise DatasetError(
            f"{len(bad)} of {len(linked)} linked template numbers name a different gold role or "
            f"pronoun type in the two languages ({shown}), so the Ukrainian template_number does "
            "not follow the English numbering (data line of new_templates.tsv, from 1); "
            "refusing to compare sentences that are not translations of each other"
        )
    if "pair_id" not in u.columns:
        raise DatasetError("the UK run's predictions lack pair_id (the resampling unit)")
    keep_u = [c for c in (*KEY, "pair_id", "occupation_group_uk", "right_uk") if c in u.columns]
    keep_e = [c for c in (*KEY, "occupation_group_en", "right_en") if c in e.columns]
    joined = u[keep_u].merge(e[keep_e], on=KEY, how="inner")
    joined["pronoun_set"] = joined["pronoun_set"].map({v: k for k, v in SET_EN.items()})
    counts: dict[str, Any] = {"uk_rows": len(u), "en_rows": len(e), "linked_templates": len(linked)}
    return joined, counts


def shared_rows(uk: pd.DataFrame, en: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One row per shared (context, template, pronoun set) with ``right_uk``/``right_en``.

    A DatasetError when a linked template's gold role or pronoun type differs between the
    languages (the numbers do not link translations); rows one run did not answer are dropped
    and counted.
    """
    joined, counts = linked_rows(uk, en)
    out, join_counts = answered_in_both(joined, counts["uk_rows"])
    return out, {**counts, **join_counts}


def occupation_check(joined: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The linked templates whose Ukrainian occupation group is not the one the other links of
    their English occupation name (:func:`~.joins.occupation_mismatches`; the project ships
    no WinoPron occupation table), and the number of template links checked."""
    item = "template " + joined["template_number"].astype(str)
    links = occupation_links(joined, item, OCCUPATION_ROLES)
    return occupation_mismatches(links, None), len(links)


def _values(rows: pd.DataFrame, w: np.ndarray, codes: np.ndarray, n_units: int) -> dict:
    """Per language, each metric for every weight row (units weighted by ``w``)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for lang in ("uk", "en"):
        col = rows[f"right_{lang}"].to_numpy(float)
        vals = {}
        for m, (context, pset) in METRICS.items():
            sel = (rows["context"] == context).to_numpy()
            if pset is not None:
                sel = sel & (rows["pronoun_set"] == pset).to_numpy()
            k = np.bincount(codes[sel], weights=col[sel], minlength=n_units)
            n = np.bincount(codes[sel], minlength=n_units).astype(float)
            num, den = w @ k, w @ n
            with np.errstate(invalid="ignore", divide="ignore"):
                vals[m] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        vals[GAP[0]] = vals[GAP[1]] - vals[GAP[2]]
        out[lang] = vals
    return out


def metric_table(
    rows: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> pd.DataFrame:
    """UK and EN values and UK - EN with a paired interval over template pairs (``macro`` rows:
    the whole shared set)."""
    codes, units = pd.factorize(rows["pair_id"].astype(str), sort=True)
    n_units = len(units)
    boot = bootstrap(lambda w: _values(rows, w, codes, n_units), n_units, n_boot=n_boot, rng=seed)
    point, reps = boot.point, boot.replicates
    records = []
    for m in (*METRICS, GAP[0]):
        uk, en = float(point["uk"][m][0]), float(point["en"][m][0])
        context, pset = METRICS.get(m, ("double", None))
        sel = rows["context"] == context
        if pset is not None:
            sel &= rows["pronoun_set"] == pset
        elif m == GAP[0]:
            sel &= rows["pronoun_set"].isin(["male", "female"])
        n = int(pd.Series(codes[sel.to_numpy()]).nunique())
        records.append(
            paired_record(m, "macro", "macro", uk, en, reps["uk"][m] - reps["en"][m], n, level)
        )
    return pd.DataFrame.from_records(records)


def agreement_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per context and overall (in the ``condition`` column, as for WinoBias)."""
    return by_condition(rows.assign(condition=rows["context"]))


def occupation_table(rows: pd.DataFrame, limit: int = 10) -> pd.DataFrame:
    """Occupations (English, Ukrainian beside) by |UK - EN| accuracy, largest first."""
    renamed = rows.rename(
        columns={"occupation_group_en": "target_occupation_en",
                 "occupation_group_uk": "target_occupation_uk"}
    )  # fmt: skip
    if "target_occupation_uk" not in renamed.columns:
        renamed["target_occupation_uk"] = ""
    return by_occupation(renamed, limit)


register_link(
    Link(
        uk_task="winopron-uk",
        en_task="winopron-en",
        linked_rows=linked_rows,
        occupation_check=occupation_check,
        key=KEY,
        unit="template pair (pair_id; same draws for both languages)",
        tables=(metric_table, agreement_table, occupation_table),
        link_unit="template",
        occupation_source="their English occupation's other templates",
        uk_rows="uk_rows",
    )
)
