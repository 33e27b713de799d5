"""Pairing two runs' rows: data identity, row alignment, row correctness and McNemar.

Two runs can be compared row by row only when they were made on the same table: the manifests'
canonical table hash (``dataset.table_sha256``) decides when both record it, else the hub
revision or file sha256 (:func:`check_same_data`), and the rows are matched by their id
(:func:`align_rows`). Row correctness is ``prediction == gold`` for the tasks with one gold label
per row (WinoBias, WinoPron, SweWinogender); for the coreference tasks it is the pronoun link
of each document: right when the resolver linked the pronoun to the gold referent only
(``link_correct`` of :func:`~winoscope.scoring.coref.document_frame`, the per-document part of
``link_accuracy``). CoNLL F1 has no per-row correctness (it sums counts over documents); its
differences get the paired bootstrap only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import DatasetError, ScoringError
from ..results.record import RunRecord
from ..results.rundir import RunDir
from ..scoring.paired import holm
from ..scoring.stats import mcnemar_exact

MCNEMAR_COLUMNS = [
    "split",
    "type",
    "rows",
    "both_right",
    "only_a_right",
    "only_b_right",
    "both_wrong",
    "p_value",
    "p_holm",
]
ROW_KEYS = ("row_id", "row_key", "idx")
# prediction column -> gold columns tried in order (the first present is the gold label)
GOLD_COLUMNS = {
    "prediction_role": ("coreference_role", "gold_role", "gold_referent"),
    "prediction": ("label",),
}
ALIASES = {"prediction": {"contradiction": "neutral"}}


def data_identity(record: RunRecord) -> dict[str, str]:
    """What identifies a run's data, strongest first: the canonical table hash, the hub
    revision, the file sha256."""
    ds, src = record.dataset or {}, record.source
    out: dict[str, str] = {}
    if ds.get("table_sha256"):
        out["dataset.table_sha256"] = str(ds["table_sha256"])
    for key in ("revision", "sha256"):
        if src.get(key):
            out[f"dataset.source.{key}"] = str(src[key])
    return out


def check_same_data(a: RunDir, b: RunDir) -> str:
    """The identity both runs share (``field=value``), else a DatasetError naming what differs."""
    ia, ib = data_identity(a.record), data_identity(b.record)
    shared = [k for k in ia if k in ib]
    if not shared:
        raise DatasetError(
            "cannot tell whether the two runs used the same data: "
            f"{a.path.name} records {', '.join(ia) or 'no dataset hash'}, "
            f"{b.path.name} records {', '.join(ib) or 'no dataset hash'}",
            file=str(b.path / "manifest.json"),
        )
    key = shared[0]  # the strongest identity both record
    if ia[key] != ib[key]:
        raise DatasetError(
            f"the runs used different data: {key} is {ia[key]} in {a.path.name} "
            f"and {ib[key]} in {b.path.name}",
            file=str(b.path / "manifest.json"),
            field=key,
        )
    return f"{key}={ia[key]}"


def _row_key(pa: pd.DataFrame, pb: pd.DataFrame) -> str:
    for k in ROW_KEYS:
        if k in pa.columns and k in pb.columns:
            return k
    raise ScoringError(f"the predictions have no row id column ({', '.join(ROW_KEYS)})")


def align_rows(pa: pd.DataFrame, pb: pd.DataFrame, a: RunDir, b: RunDir) -> pd.DataFrame:
    """B's rows in A's order; a DatasetError listing rows only one run has."""
    key = _row_key(pa, pb)
    ka, kb = pa[key].astype(str), pb[key].astype(str)
    for k, path in ((ka, a.path), (kb, b.path)):
        dup = k[k.duplicated()]
        if len(dup):
            raise DatasetError(
                f"row id {dup.iloc[0]!r} appears twice",
                file=str(path / "predictions.parquet"),
                field=key,
            )
    only_a, only_b = sorted(set(ka) - set(kb)), sorted(set(kb) - set(ka))
    if only_a or only_b:
        raise DatasetError(
            f"the runs cover different rows ({len(only_a)} only in {a.path.name}, e.g. "
            f"{only_a[:3]}; {len(only_b)} only in {b.path.name}, e.g. {only_b[:3]})",
            file=str(b.path / "predictions.parquet"),
            field=key,
        )
    return pb.set_index(kb.to_numpy()).loc[ka.to_numpy()].reset_index(drop=True)


def answered(col: pd.Series) -> pd.Series:
    """Rows with an answer (non-empty after stripping)."""
    text = col.astype("string").str.strip()
    return text.notna() & text.ne("")


COREF_COLUMN = "predicted_clusters"


def answered_rows(table: pd.DataFrame, prediction_column: str) -> pd.Series:
    """Rows with an answer. A resolver that returned no clusters for a document has answered
    (nothing: a miss, scored as such); only a failed request (``response_status`` ``error``)
    leaves a coreference row unanswered."""
    if prediction_column == COREF_COLUMN and "response_status" in table.columns:
        from ..protocols.coref import NO_ANSWER

        return ~table["response_status"].astype("string").isin(NO_ANSWER).fillna(False)
    return answered(table[prediction_column])


def coref_link_correctness(table: pd.DataFrame, source: str = "predictions") -> pd.Series:
    """Per document: the pronoun linked to the gold referent only (bool; NA where the
    prediction was blanked as unanswered). Needs the standard coreference columns, which a
    resolver run's predictions carry."""
    from ..scoring.coref import document_frame

    right = document_frame(table, source)["link_correct"].astype("boolean")
    blank = table[COREF_COLUMN].isna()
    return right.mask(blank.to_numpy(), pd.NA)


def row_correctness(table: pd.DataFrame, prediction_column: str) -> pd.Series | None:
    """Row correctness (bool, NA where unanswered), or None when the task has no gold label per
    row. Coreference rows: the pronoun link (:func:`coref_link_correctness`)."""
    if prediction_column == COREF_COLUMN:
        return coref_link_correctness(table) if COREF_COLUMN in table.columns else None
    gold = next((g for g in GOLD_COLUMNS.get(prediction_column, ()) if g in table.columns), None)
    if gold is None or prediction_column not in table.columns:
        return None
    pred = table[prediction_column].astype("string").str.strip().str.lower()
    pred = pred.replace(ALIASES.get(prediction_column, {}))
    right = pred.eq(table[gold].astype("string").str.strip().str.lower())
    return right.astype("boolean").mask(~answered(table[prediction_column]), pd.NA)


def _mcnemar_strata(table: pd.DataFrame) -> list[str]:
    if {"split", "type"} <= set(table.columns):
        return ["split", "type"]
    for c in ("context", "pronoun"):
        if c in table.columns:
            return [c]
    return []


def mcnemar_table(table: pd.DataFrame, right_a: pd.Series, right_b: pd.Series) -> pd.DataFrame:
    """Exact McNemar on row correctness per stratum and over all rows, Holm across strata."""
    both = right_a.notna() & right_b.notna()
    ra, rb = right_a.fillna(False).astype(bool), right_b.fillna(False).astype(bool)
    cols = _mcnemar_strata(table)
    records = []

    def one(split: str, typ: str, mask: pd.Series) -> None:
        m = mask & both
        b = int((m & ra & ~rb).sum())
        c = int((m & ~ra & rb).sum())
        records.append(
            {
                "split": split,
                "type": typ,
                "rows": int(m.sum()),
                "both_right": int((m & ra & rb).sum()),
                "only_a_right": b,
                "only_b_right": c,
                "both_wrong": int((m & ~ra & ~rb).sum()),
                "p_value": mcnemar_exact(b, c),
            }
        )

    if cols:
        keys = table[cols].astype(str)
        for values in keys.drop_duplicates().sort_values(cols).itertuples(index=False):
            mask = (keys == pd.Series(list(values), index=cols)).all(axis=1)
            labels = [str(v) for v in values] + ["all"] * (2 - len(cols))
            one(labels[0], labels[1], mask)
    one("all", "all", pd.Series(True, index=table.index))
    frame = pd.DataFrame.from_records(records)
    strata_only = frame["split"] != "all"
    frame["p_holm"] = np.nan
    if strata_only.any():
        frame.loc[strata_only, "p_holm"] = holm(frame.loc[strata_only, "p_value"].tolist())
    frame.loc[~strata_only, "p_holm"] = frame.loc[~strata_only, "p_value"]
    return frame[MCNEMAR_COLUMNS]
