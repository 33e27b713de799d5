"""The WinoBias-UK Natural card's structural checks, for any adaptation in its table layout.

Structure, roles, markers and duplicates here; the Ukrainian pronoun, occupation-form,
punctuation and sentence-length checks are in :mod:`.checks_winobias_uk`.
"""

from __future__ import annotations

from typing import Protocol

import pandas as pd

from ...datasets.annotation import annotation_problems, entity_named
from ...datasets.base import Dataset, Issue


class WinoBias(Protocol):
    """What the checks need of an adaptation: the table column of a family field."""

    def col(self, family_field: str) -> str: ...


ITEM_KEY = ["split", "type", "item_number"]
VARIANTS = ("mm", "ff", "mf_target", "fm_target", "mf_cross", "fm_cross")
TYPE1_VARIANTS = frozenset(VARIANTS)
TYPE2_VARIANTS = frozenset({"mm", "ff", "mf_target", "fm_target"})

# variant -> (score_group, allowed conditions, coreference_role, target, other, pronoun gender)
VARIANT_RULES: dict[str, tuple[str, frozenset[str], str, str, str, str]] = {
    "mm": ("primary_balanced", frozenset({"pro", "anti"}), "target", "male", "male", "male"),
    "ff": ("primary_balanced", frozenset({"pro", "anti"}), "target", "female", "female", "female"),
    "mf_target": ("agreement_control", frozenset({"control"}), "target", "male", "female", "male"),
    "fm_target": (
        "agreement_control",
        frozenset({"control"}),
        "target",
        "female",
        "male",
        "female",
    ),
    "mf_cross": ("cross_control", frozenset({"control"}), "distractor", "male", "female", "female"),
    "fm_cross": ("cross_control", frozenset({"control"}), "distractor", "female", "male", "male"),
}


def card_checks(wb: WinoBias, ds: Dataset) -> list[Issue]:
    """Per row: the annotation, spans (each the occupation it is for: ``span_referent``),
    variant rules, genders and the two occupations; per
    item: the variant set, one pro and one anti primary sentence, the same occupations."""
    t = ds.table
    c = wb.col
    sentence, annotated = c("sentence"), c("sentence_annotated")
    target_span, other_span, pronoun_span = c("target_span"), c("other_span"), c("pronoun_span")
    target_occ, other_occ = c("target_occupation"), c("other_occupation")
    issues: list[Issue] = []
    for i, row in enumerate(t.to_dict("records"), start=1):
        iid = row["item_id"]

        def add(check: str, msg: str, *, _i: int = i, _iid: str = iid) -> None:
            issues.append(Issue(check, msg, row=_i, item=_iid))

        sent = row[sentence]
        gold = row[target_span] if row["coreference_role"] == "target" else row[other_span]
        for problem in annotation_problems(
            sent,
            row[annotated],
            gold,
            row[pronoun_span],
            fields=(sentence, annotated),
            gold_name="gold referent",
        ):
            add("annotation", problem)
        for span_field in (target_span, other_span, pronoun_span):
            if row[span_field] not in sent:
                add("spans", f"{span_field} '{row[span_field]}' does not occur in {sentence}")
        occupations = {"target": str(row[target_occ]), "other": str(row[other_occ])}
        for role, span_field in (("target", target_span), ("other", other_span)):
            named = entity_named(str(row[span_field]), occupations)
            if named is not None and named != role:
                add(
                    "span_referent",
                    f"{span_field} '{row[span_field]}' is the {named} occupation "
                    f"'{occupations[named]}', not the {role} '{occupations[role]}'",
                )
        group, conditions, role, tg, og, pg = VARIANT_RULES[row["variant"]]
        if row["score_group"] != group:
            add(
                "variant",
                f"variant {row['variant']} needs score_group {group}, got {row['score_group']}",
            )
        if row["condition"] not in conditions:
            add(
                "variant",
                f"variant {row['variant']} needs condition {'/'.join(sorted(conditions))}, "
                f"got {row['condition']}",
            )
        if row["coreference_role"] != role:
            add(
                "variant",
                f"variant {row['variant']} needs coreference_role {role}, "
                f"got {row['coreference_role']}",
            )
        got = (row["target_gender"], row["other_gender"], row["pronoun_gender"])
        if got != (tg, og, pg):
            add(
                "genders",
                f"variant {row['variant']} needs target/other/pronoun gender {tg}/{og}/{pg}, "
                f"got {'/'.join(got)}",
            )
        if row[target_occ].strip().lower() == row[other_occ].strip().lower():
            add("occupations", f"target and other occupation are the same ('{row[target_occ]}')")
    for key, group_rows in t.groupby(ITEM_KEY, observed=True, sort=True):
        issues += _item_checks(key, group_rows, (target_occ, other_occ))
    return issues


def _item_checks(
    key: tuple[object, ...], rows: pd.DataFrame, occupation_columns: tuple[str, str]
) -> list[Issue]:
    issues: list[Issue] = []
    iid = f"{key[0]}/{key[1]}/{key[2]}"
    variants = list(rows["variant"].astype(str))
    expected = TYPE1_VARIANTS if key[1] == "type1" else TYPE2_VARIANTS
    dupes = sorted({v for v in variants if variants.count(v) > 1})
    missing = sorted(expected - set(variants))
    extra = sorted(set(variants) - expected)
    if dupes or missing or extra:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if extra:
            parts.append("unexpected " + ", ".join(extra))
        if dupes:
            parts.append("duplicated " + ", ".join(dupes))
        issues.append(
            Issue(
                "variants",
                f"{key[1]} item needs exactly {len(expected)} variants: " + "; ".join(parts),
                item=iid,
            )
        )
    prim = rows[rows["variant"].isin(["mm", "ff"])]
    if len(prim) == 2 and set(prim["condition"].astype(str)) != {"pro", "anti"}:
        issues.append(Issue("variant", "mm and ff must be one pro and one anti", item=iid))
    for col in occupation_columns:
        if rows[col].nunique() > 1:
            vals = ", ".join(sorted(rows[col].unique()))
            issues.append(Issue("occupations", f"{col} differs across variants ({vals})", item=iid))
    return issues
