"""The WinoPron family's structural checks, for every language.

Sentences: the annotation gives the sentence and brackets exactly the gold span and the pronoun;
the gold span is (a form of) the entity ``gold_role`` names, not the other one;
the pronoun is a form of its set and type (where the adaptation lists the forms). Pairs: one
occupation- and one participant-reference sentence per pronoun set, one occupation group.
Prompts: option roles and letters agree with the gold role, each links to a sentence, and each
sentence has one prompt per option order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from ...datasets.annotation import annotation_problems, bracket_mentions, entity_named
from ...datasets.base import Issue

CONTEXTS = ("double", "single")
ROLES = ("occupation", "participant")
ORDERS = ("occupation_first", "participant_first")


def first_by(table: pd.DataFrame, key: str, columns: list[str]) -> dict[str, dict[str, object]]:
    """``{key value: {column: value}}`` of the first row with each key (a duplicated key is
    the ``duplicate`` check's finding, not a reason to fail here)."""
    first = table.drop_duplicates(key, keep="first")
    return first.set_index(key)[columns].to_dict("index")  # type: ignore[return-value]


def _cf(text: str) -> str:
    return text.strip().casefold()


def check_sentences(
    rows: pd.DataFrame,
    context: str,
    lang: str,
    forms: Mapping[str, Mapping[str, frozenset[str]]] | None,
) -> list[Issue]:
    issues: list[Issue] = []
    for i, row in enumerate(rows.to_dict("records"), start=1):
        where = f"{context}:{row['row_id']}"

        def add(check: str, msg: str, *, _i: int = i, _w: str = where) -> None:
            issues.append(Issue(check, msg, row=_i, item=_w))

        sent, ann = row[f"sentence_{lang}"], row[f"sentence_annotated_{lang}"]
        gold, pron = row[f"gold_span_{lang}"], row[f"pronoun_{lang}"]
        fields = (f"sentence_{lang}", f"sentence_annotated_{lang}")
        for problem in annotation_problems(sent, ann, gold, pron, fields=fields):
            add("annotation", problem)
        if gold not in sent:
            add("annotation", f"gold_span_{lang} '{gold}' does not occur in sentence_{lang}")
        _gold_role(row, ann, pron, lang, add)
        if forms is not None:
            allowed = forms[str(row["pronoun_type"])][str(row["pronoun_set"])]
            if _cf(pron) not in allowed:
                add(
                    "pronoun",
                    f"pronoun_{lang} '{pron}' is not a {row['pronoun_set']} {row['pronoun_type']} "
                    f"form (expected one of {', '.join(sorted(allowed))})",
                )
    return issues


def _gold_role(
    row: dict[str, object], annotated: str, pronoun: str, lang: str, add: Callable[[str, str], None]
) -> None:
    """``gold_role``: the bracketed gold span (the bracketed mention that is not the pronoun)
    is the entity ``gold_role`` names, not the other one (inflected forms count)."""
    try:
        spans = [m.text for m in bracket_mentions(annotated) if m.text != pronoun]
    except ValueError:
        return  # the annotation check reports it
    if len(spans) != 1:
        return
    entities = {r: str(row.get(f"{r}_{lang}", "")) for r in ROLES}
    named = entity_named(spans[0], entities)
    role = str(row["gold_role"])
    if named is not None and named != role:
        add(
            "gold_role",
            f"the bracketed gold span '{spans[0]}' is the {named} '{entities[named]}', but "
            f"gold_role is {role} ('{entities.get(role, '?')}')",
        )


def check_pairs(rows: pd.DataFrame, context: str) -> list[Issue]:
    issues: list[Issue] = []
    expected = {(r, s) for r in ROLES for s in sorted(set(rows["pronoun_set"].cat.categories))}
    for pair_id, group in rows.groupby("pair_id", sort=True):
        cells = list(
            zip(group["gold_role"].astype(str), group["pronoun_set"].astype(str), strict=True)
        )
        missing = sorted(expected - set(cells))
        dupes = sorted({c for c in cells if cells.count(c) > 1})
        if missing or dupes:
            parts = []
            if missing:
                parts.append("missing " + ", ".join(f"{r}/{s}" for r, s in missing))
            if dupes:
                parts.append("duplicated " + ", ".join(f"{r}/{s}" for r, s in dupes))
            issues.append(
                Issue(
                    "pair",
                    f"{context} pair needs one occupation- and one participant-reference sentence "
                    "per pronoun set: " + "; ".join(parts),
                    item=f"{context}:{pair_id}",
                )
            )
        group_col = [c for c in group.columns if c.startswith("occupation_group_")]
        if group_col and group[group_col[0]].nunique() > 1:
            vals = ", ".join(sorted(group[group_col[0]].unique()))
            issues.append(
                Issue(
                    "pair",
                    f"{group_col[0]} differs within the pair ({vals})",
                    item=f"{context}:{pair_id}",
                )
            )
    return issues


def check_prompts(sentences: pd.DataFrame, prompts: pd.DataFrame) -> list[Issue]:
    issues: list[Issue] = []
    # the released forced_choice.csv also carries each prompt's pronoun_type and pronoun_set,
    # which the authors' evaluator checks against the sentence's
    extra = [c for c in ("pronoun_type", "pronoun_set") if c in prompts.columns]
    by_key = first_by(sentences, "row_key", ["gold_role", "pair_id", *extra])
    orders: dict[str, list[str]] = {}
    for i, row in enumerate(prompts.to_dict("records"), start=1):
        where = f"forced_choice:{row['prompt_id']}"

        def add(check: str, msg: str, *, _i: int = i, _w: str = where) -> None:
            issues.append(Issue(check, msg, row=_i, item=_w))

        a, b = str(row["option_a_role"]), str(row["option_b_role"])
        if a == b:
            add("options", f"option_a_role and option_b_role are both '{a}'")
        first = str(row["option_order"]).removesuffix("_first")
        if a != first:
            add("options", f"option_order {row['option_order']} but option_a_role is {a}")
        gold_letter = "A" if a == row["gold_role"] else ("B" if b == row["gold_role"] else None)
        if gold_letter != row["gold_option"]:
            add(
                "options",
                f"gold_option {row['gold_option']} does not match gold_role {row['gold_role']} "
                f"(A = {a}, B = {b})",
            )
        sent = by_key.get(row["row_key"])
        if sent is None:
            add(
                "link",
                f"row_id {row['row_id']} is not a row of the {row['context']} configuration",
            )
            continue
        orders.setdefault(row["row_key"], []).append(str(row["option_order"]))
        if str(sent["gold_role"]) != str(row["gold_role"]):
            add("link", f"gold_role {row['gold_role']} but the sentence has {sent['gold_role']}")
        if str(sent["pair_id"]) != str(row["pair_id"]):
            add("link", f"pair_id {row['pair_id']} but the sentence has {sent['pair_id']}")
        for col in extra:
            if str(sent[col]) != str(row[col]):
                msg = f"{col} {row[col]} but the sentence has {sent[col]}"
                issues.append(Issue("link", msg, row=i, item=where, field=col))
    for key in dict.fromkeys(sentences["row_key"]):  # a duplicated row is reported once
        got = sorted(orders.get(key, []))
        if got != sorted(ORDERS):
            issues.append(
                Issue(
                    "order_balance",
                    "needs exactly one prompt per option order "
                    f"({', '.join(ORDERS)}); has {', '.join(got) or 'none'}",
                    item=key.replace("/", ":", 1),
                )
            )
    return issues
