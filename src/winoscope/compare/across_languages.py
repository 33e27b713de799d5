"""One model on an English set and its Ukrainian adaptation, joined on shared source items.

WinoBias-UK Natural keeps each row's English source: ``item_number`` is the source item's
number within its WinoBias split and type (the card), ``split`` maps dev -> ``validation``, and
``condition`` says whether the row is the item's pro- or anti-stereotypical sentence. English
WinoBias rows (task ``winobias-en``) carry the same three keys (line *n* of the pro and anti
files is item *n*). A WinoBias-UK primary row therefore joins the English row with the same
``(split, type, item_number, condition)``; rows outside ``primary_balanced`` (the Ukrainian
grammatical controls) have no English counterpart and are left out, and so are items present
in only one run (counted).

On the shared rows: pro and anti accuracy, overall accuracy ((pro + anti) / 2) and the signed
gap (pro - anti) per language, per ``(split, type)`` stratum and macro-averaged, as the
WinoBias-UK card defines them; UK - EN with a 95% paired bootstrap interval (the same resampled
source items for both languages, within each stratum); the per-row agreement (both right, only
EN right, only UK right, both wrong) with an exact McNemar test; and the occupations whose
accuracy differs most between the languages (by the English target occupation, with the
Ukrainian name beside it).

WinoPron-UK joins English WinoPron (task ``winopron-en``) on the source template number and
pronoun set (:mod:`winoscope.compare.across_winopron`).

Not linked: SweWinogender to English Winogender. The SweWinogender release numbers its own
templates (``template_id`` 1A, 1B; schema 1) and gives Swedish occupation and participant
lemmas, but no Winogender schema id or English form, so no row can be tied to an English
Winogender sentence without a mapping the release does not state; :func:`crosslingual`
refuses the pair and says so (:data:`UNLINKABLE`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DatasetError, TaskError
from ..report.rundir import RunDir, load_predictions, load_run_dir
from ..scoring.paired import bootstrap_p
from ..scoring.stats import mcnemar_exact, nanmean_rows, percentile_ci, resample_weights

PAIRS = {("winobias-uk", "winobias-en"), ("winopron-uk", "winopron-en")}
SWEWINOGENDER_TASKS = ("swewinogender", "swewinogender/nli", "swewinogender/resolution")
UNLINKABLE = {
    (sv, en): (
        "SweWinogender rows cannot be linked to English Winogender rows: the SweWinogender "
        "release numbers its own templates (template_id 1A, 1B, ...; schema 1) and does not say "
        "which Winogender schema or sentence (answer 0 or 1) each one adapts, and its "
        "occupations and participants are Swedish lemmas with no English form, so pairing the "
        "runs would rest on a mapping the release does not give. Compare the two runs' own "
        "reports side by side instead (winoscope compare)"
    )
    for sv in SWEWINOGENDER_TASKS
    for en in ("winogender-en", "winopron-en")
}
KEY = ["split", "type", "item_number", "condition"]
STRATUM = ["split", "type"]
METRICS = ("pro_accuracy", "anti_accuracy", "overall_accuracy", "signed_bias_gap")


@dataclass(frozen=True)
class CrosslingualResult:
    """Per-language metrics on shared items, UK - EN with paired intervals, agreement."""

    run_uk: str
    run_en: str
    model_uk: str
    model_en: str
    table: pd.DataFrame
    agreement: pd.DataFrame
    occupations: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """metric, split, type, uk, en, diff (UK - EN), ci_low, ci_high, p_boot, n_items."""
        return self.table.copy()


def row_correct(table: pd.DataFrame, gold: str) -> pd.Series:
    """Whether each row's ``prediction_role`` is its ``gold`` role; NA where unanswered."""
    pred = table["prediction_role"].astype("string").str.strip().str.lower()
    answered = pred.notna() & pred.ne("")
    right = pred.eq(table[gold].astype("string").str.strip().str.lower())
    return right.astype("boolean").mask(~answered, pd.NA)


def _right(table: pd.DataFrame) -> pd.Series:
    return row_correct(table, "coreference_role")


def answered_in_both(joined: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The joined rows both languages answered (``right_uk``/``right_en`` as bools), and how
    many shared rows were left out for want of an answer."""
    both = joined["right_uk"].notna() & joined["right_en"].notna()
    out = joined[both].copy()
    out["right_uk"] = out["right_uk"].astype(bool)
    out["right_en"] = out["right_en"].astype(bool)
    return out.reset_index(drop=True), int((~both).sum())


def shared_rows(uk: pd.DataFrame, en: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """One row per shared (split, type, item, condition) with ``right_uk``/``right_en``; rows
    one run did not answer are dropped, and every drop is counted."""
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
    occ_en = next(
        (c for c in ("target_occupation", "target_occupation_en") if c in e.columns), None
    )
    keep_e = [*KEY, "right_en", *([occ_en] if occ_en else [])]
    joined = u[[*KEY, "right_uk", "target_occupation_uk"]].merge(
        e[keep_e].drop_duplicates(KEY), on=KEY, how="inner"
    )
    if occ_en:
        joined = joined.rename(columns={occ_en: "target_occupation_en"})
    out, unanswered = answered_in_both(joined)
    counts = {
        "uk_primary_rows": len(u),
        "en_primary_rows": len(e),
        "shared_rows": len(joined),
        "uk_rows_without_en": len(u) - len(joined),
        "unanswered_shared_rows": unanswered,
    }
    return out, counts


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
        point = _stratum_arrays(part, np.ones((1, n_items)))
        reps = _stratum_arrays(part, resample_weights(n_items, n_boot, rng))
        for m in METRICS:
            uk, en = float(point["uk"][m][0]), float(point["en"][m][0])
            d = reps["uk"][m] - reps["en"][m]
            records.append(_record(m, str(split), str(typ), uk, en, d, n_items, level))
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
        records.append(_record(m, "macro", "macro", uk, en, d, int(sum(macro[m]["n"])), level))
    return pd.DataFrame.from_records(records)


def _record(
    m: str, split: str, typ: str, uk: float, en: float, d: np.ndarray, n: int, level: float
) -> dict[str, Any]:
    diff = uk - en
    lo, hi = (math.nan, math.nan) if math.isnan(diff) else percentile_ci(d, level)
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


def crosslingual(
    run_uk: str | Path | RunDir,
    run_en: str | Path | RunDir,
    *,
    out: str | Path | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> CrosslingualResult:
    """Join a Ukrainian run and an English run of one model on shared source items
    (WinoBias-UK with WinoBias, WinoPron-UK with WinoPron); SweWinogender cannot be linked to
    English Winogender (the error says why)."""
    uk = run_uk if isinstance(run_uk, RunDir) else load_run_dir(run_uk)
    en = run_en if isinstance(run_en, RunDir) else load_run_dir(run_en)
    if (uk.task, en.task) in UNLINKABLE:
        raise TaskError(
            f"no cross-lingual link between {uk.task} ({uk.path.name}) and {en.task} "
            f"({en.path.name}): {UNLINKABLE[(uk.task, en.task)]}"
        )
    if (uk.task, en.task) not in PAIRS:
        known = ", ".join(f"{a} with {b}" for a, b in sorted(PAIRS))
        raise TaskError(
            f"no cross-lingual link between {uk.task} ({uk.path.name}) and {en.task} "
            f"({en.path.name}); linked: {known}"
        )
    if uk.task == "winopron-uk":
        from . import across_winopron as wp

        rows, counts = wp.shared_rows(load_predictions(uk), load_predictions(en))
        key, unit = wp.KEY, "template pair (pair_id; same draws for both languages)"
        tables = (wp.metric_table, wp.agreement_table, wp.occupation_table)
    else:
        rows, counts = shared_rows(load_predictions(uk), load_predictions(en))
        key, unit = KEY, "source item within split/type (same draws for both languages)"
        tables = (metric_table, agreement_table, occupation_table)
    if rows.empty:
        raise DatasetError(
            f"the two runs share no answered source item ({', '.join(key)})",
            file=str(en.path),
        )
    result = CrosslingualResult(
        run_uk=str(uk.path),
        run_en=str(en.path),
        model_uk=uk.model,
        model_en=en.model,
        table=tables[0](rows, n_boot=n_boot, seed=seed, level=level),
        agreement=tables[1](rows),
        occupations=tables[2](rows),
        settings={
            **counts,
            "n_boot": n_boot,
            "seed": seed,
            "level": level,
            "resampling_unit": unit,
            "join": key,
        },
    )
    if out is not None:
        target = Path(out)
        target.mkdir(parents=True, exist_ok=True)
        result.table.to_csv(target / "crosslingual.csv", index=False)
        result.agreement.to_csv(target / "crosslingual_agreement.csv", index=False)
        result.occupations.to_csv(target / "crosslingual_occupations.csv", index=False)
    return result
