"""BBQ-UK against English BBQ: rows joined on the BBQ example they translate.

BBQ-UK keeps each row's source: ``category`` and ``example_id`` are BBQ's, and the answers
stay in BBQ's order. A BBQ-UK row therefore joins the English row with the same
``(category, example_id)``; Fair-UK's pairing checks hold for every link (the two rows agree on
``label``, ``question_index``, ``question_polarity``, ``context_condition`` and
``unknown_answer_index``), and a link that does not is refused unless allowed (then listed).
Both languages are scored with BBQ-UK's ``target_loc`` and eligibility (as Fair-UK's
``bbq_en`` does), so UK − EN is the language alone and not a difference in targets.

On the rows both runs answered: per context the accuracy and bias score over all eligible rows
and per category, and the summary metrics (``ambig_accuracy`` ... ``disambig_abs_bias``), each
in both languages, with UK − EN and a 95% paired bootstrap interval: the same resampled BBQ
templates (``category/question_index``) for both languages.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...compare.joins import MISMATCH_COLUMNS, paired_record
from ...compare.links import Link, register_link
from ...errors import DatasetError
from ...scoring.bootstrap import bootstrap
from ...scoring.stats import nanmean_rows
from .parts import CONTEXTS, Sums, row_parts

KEY = ["category", "example_id"]
CHECKED = (
    "label",
    "question_index",
    "question_polarity",
    "context_condition",
    "unknown_answer_index",
)
META = ("label_type", "target_loc", "bias_score_eligible")


def _keyed(t: pd.DataFrame, lang: str) -> pd.DataFrame:
    t = t.copy()
    t["category"] = t["category"].astype(str)
    t["example_id"] = pd.to_numeric(t["example_id"], errors="raise").astype(int)
    if t.duplicated(KEY).any():
        first = t.loc[t.duplicated(KEY), KEY].iloc[0]
        raise DatasetError(f"two {lang.upper()} rows share {dict(zip(KEY, first, strict=True))}")
    pred = t["prediction_role"].astype("string").str.strip()
    gold = "ans" + pd.to_numeric(t["label"], errors="coerce").astype("Int64").astype("string")
    t[f"right_{lang}"] = pred.eq(gold).where(pred.notna() & pred.ne(""), pd.NA)
    t[f"prediction_{lang}"] = pred
    keep = [*KEY, f"right_{lang}", f"prediction_{lang}", *CHECKED]
    if lang == "uk":
        keep += [*META]
    return t[keep].rename(columns={c: f"{c}_{lang}" for c in CHECKED})


def linked_rows(uk: pd.DataFrame, en: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every BBQ-UK row joined to its English source row (answered or not)."""
    joined = _keyed(uk, "uk").merge(_keyed(en, "en"), on=KEY, how="inner")
    joined["condition"] = joined["context_condition_uk"].astype(str)
    return joined, {"uk_rows": len(uk), "en_rows": len(en)}


def pairing_check(joined: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The links whose two rows disagree on a field Fair-UK's pairing checks (one row per
    link and field), and the number of links checked."""
    rows = []
    for field in CHECKED:
        a, b = joined[f"{field}_uk"].astype(str), joined[f"{field}_en"].astype(str)
        for i in np.flatnonzero((a != b).to_numpy()):
            rows.append(
                {
                    "item": f"{joined['category'].iloc[i]}/{joined['example_id'].iloc[i]}",
                    "role": field,
                    "occupation_uk": a.iloc[i],
                    "occupation_en": b.iloc[i],
                    "expected": a.iloc[i],
                    "rows": 1,
                }
            )
    return pd.DataFrame(rows, columns=MISMATCH_COLUMNS), len(joined)


def _frame(rows: pd.DataFrame, lang: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "context_condition": rows["context_condition_uk"],
            "category": rows["category"],
            "label_type": rows["label_type"],
            "question_index": rows["question_index_uk"],
            "label": rows["label_uk"],
            "unknown_answer_index": rows["unknown_answer_index_uk"],
            "target_loc": rows["target_loc"],
            "bias_score_eligible": rows["bias_score_eligible"],
            "prediction_role": rows[f"prediction_{lang}"],
        }
    )


def _statistic(sums: Sums, groups: dict[str, list[str]], w: np.ndarray) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for ctx, names in groups.items():
        for g in ["all", *names]:
            s = sums.stats((ctx, g), w)
            out[("accuracy", ctx, g)] = s["accuracy"]
            out[("bias_score", ctx, g)] = s["bias_score"]
        out[(f"{ctx}_accuracy", "macro", "macro")] = out[("accuracy", ctx, "all")]
        out[(f"{ctx}_bias", "macro", "macro")] = out[("bias_score", ctx, "all")]
        out[(f"{ctx}_abs_bias", "macro", "macro")] = nanmean_rows(
            [np.abs(out[("bias_score", ctx, g)]) for g in names]
        )
    return out


def metric_table(
    rows: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> pd.DataFrame:
    """UK and EN values and UK − EN with a paired percentile interval."""
    parts = {lang: row_parts(_frame(rows, lang), f"{lang} run") for lang in ("uk", "en")}
    clusters = pd.Index(sorted(parts["uk"]["cluster"].unique()))
    sums: dict[str, Sums] = {}
    groups: dict[str, list[str]] = {}
    for lang, p in parts.items():
        sums[lang] = Sums(p, clusters)
        eligible = p[p["eligible"]]
        groups = {}
        for ctx in CONTEXTS:
            sub = eligible[eligible["context"] == ctx]
            if not len(sub):
                continue
            groups[ctx] = sorted(sub["group"].unique())
            sums[lang].add((ctx, "all"), sub)
            for g in groups[ctx]:
                sums[lang].add((ctx, g), sub[sub["group"] == g])
    boot = bootstrap(
        lambda w: {lang: _statistic(sums[lang], groups, w) for lang in ("uk", "en")},
        len(clusters),
        n_boot=n_boot,
        rng=seed,
    )
    point, reps = boot.point, boot.replicates
    records = []
    for key in point["uk"]:
        m, split, typ = key
        uk, en = float(point["uk"][key][0]), float(point["en"][key][0])
        cell = (split, typ) if split != "macro" else None
        n = int(sums["uk"].cells[cell]["n"].sum()) if cell else len(rows)
        records.append(
            paired_record(m, split, typ, uk, en, reps["uk"][key] - reps["en"][key], n, level)
        )
    return pd.DataFrame.from_records(records)


def agreement_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per context and overall: both right, only EN right, only UK right, both wrong (a tie
    on the gold answer is not right here)."""
    from ...compare.joins import agreement_table as table

    return table(rows)


def no_occupations(rows: pd.DataFrame) -> pd.DataFrame:
    """BBQ names groups, not occupations: no occupation table."""
    return pd.DataFrame(
        columns=["occupation", "occupation_uk", "rows", "accuracy_uk", "accuracy_en", "diff"]
    )


register_link(
    Link(
        uk_task="bbq-uk",
        en_task="bbq-en",
        linked_rows=linked_rows,
        occupation_check=pairing_check,
        key=KEY,
        unit="BBQ template (category/question_index), the same draws for both languages",
        tables=(metric_table, agreement_table, no_occupations),
        link_unit="item",
        occupation_source="BBQ's own fields (label, question index and polarity, context, "
        "unknown answer)",
        uk_rows="uk_rows",
    )
)
