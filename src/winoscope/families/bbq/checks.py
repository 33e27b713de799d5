"""The checks the BBQ-UK evaluator makes, as findings naming file, row and field.

Rows: ``label``, ``unknown_answer_index`` and ``target_loc`` are answer indices 0-2; the
``source_revision`` is the BBQ commit the release was translated from; an ambiguous row's gold
answer is the unknown one and a disambiguated row's is not; a bias-score eligible row has a
``target_loc`` and it is not the unknown answer. Pairs: each ``pair_id`` has one ambiguous and
one disambiguated row, which agree on category, label type, question (index, polarity, text),
answers, unknown answer and eligibility. (The evaluator's row, pair and eligible counts and
the file's SHA-256 are the release's identity: :func:`.dataset.check_release_counts` and the
known-releases registry.)

A row whose indices cannot be read or whose eligible target is missing or unknown cannot be
scored: those findings are blocking (``--skip-bad-rows`` leaves the row out); the others are
reported and the rows scored as they are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...datasets.base import Issue

INDICES = ("label", "unknown_answer_index", "target_loc")


def check_rows(t: pd.DataFrame, lang: str, revision: str | None, file: str) -> list[Issue]:
    out: list[Issue] = []
    ids = t["item_id"].astype(str).to_numpy()

    def add(check: str, mask: np.ndarray, field: str, message: str, blocking: bool) -> None:
        for i in np.flatnonzero(mask):
            out.append(
                Issue(
                    check,
                    message.format(**{c: t[c].iloc[i] for c in (*INDICES, "source_revision")}),
                    row=int(i) + 1,
                    item=ids[i],
                    field=field,
                    file=file,
                    blocking=blocking,
                    excludes=("item_id", ids[i]) if blocking else None,
                )
            )

    label = t["label"].to_numpy()
    unknown = t["unknown_answer_index"].to_numpy()
    target = t["target_loc"]
    has_target = target.notna().to_numpy()
    tgt = target.fillna(-1).to_numpy(dtype=int)
    eligible = t["bias_score_eligible"].to_numpy(dtype=bool)
    ambig = t["context_condition"].astype(str).eq("ambig").to_numpy()
    disambig = t["context_condition"].astype(str).eq("disambig").to_numpy()
    bad_label = ~np.isin(label, (0, 1, 2))
    bad_unknown = ~np.isin(unknown, (0, 1, 2))
    bad_target = has_target & ~np.isin(tgt, (0, 1, 2))
    add("index", bad_label, "label", "label {label} is not an answer index (0, 1 or 2)", True)
    add(
        "index",
        bad_unknown,
        "unknown_answer_index",
        "unknown_answer_index {unknown_answer_index} is not an answer index (0, 1 or 2)",
        True,
    )
    add("index", bad_target, "target_loc", "target_loc {target_loc} is not 0, 1 or 2", True)
    if revision is not None:
        add(
            "source_revision",
            t["source_revision"].astype(str).str.strip().ne(revision).to_numpy(),
            "source_revision",
            "source_revision {source_revision} is not the BBQ commit the release names "
            f"({revision})",
            False,
        )
    ok = ~bad_label & ~bad_unknown
    add(
        "label",
        ok & ambig & (label != unknown),
        "label",
        "an ambiguous row's label ({label}) must be the unknown answer ({unknown_answer_index})",
        False,
    )
    add(
        "label",
        ok & disambig & (label == unknown),
        "label",
        "a disambiguated row's label ({label}) cannot be the unknown answer",
        False,
    )
    add(
        "target_loc",
        eligible & ~has_target,
        "target_loc",
        "a bias-score eligible row needs a target_loc",
        True,
    )
    add(
        "target_loc",
        eligible & has_target & ~bad_unknown & (tgt == unknown),
        "target_loc",
        "target_loc {target_loc} is the unknown answer; the target must be another answer",
        True,
    )
    return out


def check_pairs(t: pd.DataFrame, lang: str, file: str) -> list[Issue]:
    """Pair completeness and the fields the two rows of a pair share."""
    out: list[Issue] = []
    shared = [
        "category",
        "report_category",
        "question_index",
        "question_polarity",
        f"question_{lang}",
        f"ans0_{lang}",
        f"ans1_{lang}",
        f"ans2_{lang}",
        "unknown_answer_index",
        "bias_score_eligible",
    ]
    frame = t[["pair_id", "context_condition", *shared]].astype(str)
    frame["row"] = np.arange(1, len(t) + 1)
    counts = frame.groupby("pair_id", sort=False)["context_condition"].agg(["size", "nunique"])
    broken = counts[(counts["size"] != 2) | (counts["nunique"] != 2)]
    if len(broken):
        conds = frame[frame["pair_id"].isin(broken.index)].groupby("pair_id", sort=False)
        for pair_id, rows in conds:
            got = ", ".join(rows["context_condition"].tolist())
            out.append(
                Issue(
                    "pair",
                    f"pair {pair_id} needs one ambig and one disambig row; has {got}",
                    row=int(rows["row"].iloc[-1]),
                    item=str(pair_id),
                    field="context_condition",
                    file=file,
                )
            )
    firsts = frame.drop_duplicates("pair_id", keep="first").set_index("pair_id")
    later = frame[frame.duplicated("pair_id", keep="first")]
    ref = firsts.loc[later["pair_id"]]
    for col in shared:
        diff = later[col].to_numpy() != ref[col].to_numpy()
        for i in np.flatnonzero(diff):
            pair_id = later["pair_id"].iloc[i]
            out.append(
                Issue(
                    "pair",
                    f"the rows of pair {pair_id} disagree on {col} "
                    f"(row {int(ref['row'].iloc[i])}: {ref[col].iloc[i]!r}, this row: "
                    f"{later[col].iloc[i]!r})",
                    row=int(later["row"].iloc[i]),
                    item=str(pair_id),
                    field=col,
                    file=file,
                )
            )
    return out
