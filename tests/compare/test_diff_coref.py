"""``winoscope diff`` on coreference (resolver) runs.

The coreference scorer resamples source items within each split/type stratum and sums each
subset's MUC, B-cubed and CEAF-e counts over the documents drawn. The paired replicates of the
diff are checked against a rescoring written here: the same item draws, each resample's
documents listed with their repeats, counts summed and F1 computed by hand from the sums.
McNemar's row correctness is the pronoun link per document, recomputed here from the spans.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import winoscope
from winoscope.compare import diff
from winoscope.scoring.coref import document_frame

N_BOOT = 300
SUBSETS = {
    "pro": lambda t: (t["score_group"] == "primary_balanced") & (t["condition"] == "pro"),
    "anti": lambda t: (t["score_group"] == "primary_balanced") & (t["condition"] == "anti"),
    "agreement_control": lambda t: t["score_group"] == "agreement_control",
    "cross_control": lambda t: t["score_group"] == "cross_control",
}


@pytest.fixture(scope="module")
def resolver_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("coref_runs")
    for model in ("agreement", "first"):
        winoscope.run("winobias-uk/coref", f"baseline:{model}", out=root / model, n_boot=N_BOOT)
    return root / "agreement", root / "first"


def _f1(rn: float, rd: float, pn: float, pd_: float) -> float:
    r = rn / rd if rd > 0 else 0.0
    p = pn / pd_ if pd_ > 0 else 0.0
    return 2 * r * p / (r + p) if r + p > 0 else 0.0


def _value(docs: pd.DataFrame, metric: str) -> float:
    """One metric of a listed (possibly repeated) set of documents, by hand."""
    if len(docs) == 0:
        return float("nan")
    if metric == "link_accuracy":
        return float(docs["link_correct"].astype(float).mean())
    parts = ["muc", "bcub", "ceafe"] if metric == "conll_f1" else [metric.removesuffix("_f1")]
    f1s = []
    for m in parts:
        s = [float(docs[f"{m}_{f}"].sum()) for f in ("recall_num", "recall_den")]
        s += [float(docs[f"{m}_{f}"].sum()) for f in ("precision_num", "precision_den")]
        f1s.append(_f1(*s))
    return float(np.mean(f1s))


def _rescored(pred: pd.DataFrame, draws: dict, metric: str, subset: str) -> np.ndarray:
    """Macro (mean over strata where defined) of ``metric`` on ``subset``, per resample."""
    frame = pd.concat([pred.reset_index(drop=True), document_frame(pred)], axis=1)
    per_stratum = []
    for (split, typ), counts in draws.items():
        part = frame[(frame["split"] == split) & (frame["type"] == typ)]
        items = part["split"] + "/" + part["type"] + "/" + part["item_number"].astype(str)
        codes, _ = pd.factorize(items)  # the units in order of first appearance
        sel = SUBSETS[subset](part).to_numpy()
        vals = []
        for c in counts:  # one resample: each item's documents repeated c[item] times
            rows = np.repeat(np.flatnonzero(sel), c[codes[sel]].astype(int))
            vals.append(_value(part.iloc[rows], metric))
        per_stratum.append(vals)
    arr = np.array(per_stratum, dtype=float)
    with warnings.catch_warnings():  # a resample with the subset in no stratum: NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(arr, axis=0)


def _draws(pred: pd.DataFrame) -> dict[tuple[str, str], np.ndarray]:
    """The scorer's draws: seed 0, multinomial item counts per stratum, the strata in the
    dataset's split order (validation before test, as the loader's categorical has it)."""
    rng = np.random.default_rng(0)
    out = {}
    for split in ("validation", "test"):
        for typ in ("type1", "type2"):
            g = pred[(pred["split"] == split) & (pred["type"] == typ)]
            n = g["item_number"].nunique()
            out[(split, typ)] = rng.multinomial(n, np.full(n, 1.0 / n), size=N_BOOT)
    return out


@pytest.mark.parametrize(
    ("metric", "subset"),
    [
        ("conll_f1", "cross_control"),
        ("muc_f1", "agreement_control"),
        ("link_accuracy", "agreement_control"),
        ("conll_f1", "pro"),
    ],
)
def test_paired_replicates_match_a_rescoring_on_the_same_resamples(
    resolver_runs: tuple[Path, Path], metric: str, subset: str
) -> None:
    a, b = resolver_runs
    d = diff(a, b)
    pa = pd.read_parquet(a / "predictions.parquet")
    pb = pd.read_parquet(b / "predictions.parquet")
    draws = _draws(pa)
    mine = _rescored(pb, draws, metric, subset) - _rescored(pa, draws, metric, subset)
    name = f"{metric}_{subset}"
    np.testing.assert_allclose(d.replicates[(name, "macro", "macro", "B - A")], mine, atol=1e-12)
    row = d.table[
        (d.table["metric"] == name)
        & (d.table["split"] == "macro")
        & (d.table["measure"] == "B - A")
    ].iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        tuple(np.quantile(mine, [0.025, 0.975])), abs=1e-12
    )


def test_gap_verdict_and_mcnemar_on_pronoun_links(
    resolver_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = resolver_runs
    d = diff(a, b, out=tmp_path / "out")
    gap = next(v for v in d.verdicts if v.startswith("conll_f1_pro_minus_anti"))
    # on the primary rows both baselines link the pronoun to the first mention: same F1
    assert (
        "0.000 -> 0.000; no detectable change (|gap| +0.000, 95% interval [+0.000, +0.000]" in gap
    )
    assert "includes 0; Holm p = 1)" in gap
    control = d.table[
        (d.table["metric"] == "conll_f1_agreement_control") & (d.table["split"] == "macro")
    ].iloc[0]
    assert control["diff"] < 0 and control["ci_high"] < 0  # first mention ignores agreement
    # McNemar: pronoun linked to the gold referent only, recomputed from the spans
    right = {}
    for name, run in (("a", a), ("b", b)):
        pred = pd.read_parquet(run / "predictions.parquet")
        right[name] = np.array([_links_referent(r) for r in pred.to_dict("records")])
    allrows = d.mcnemar[d.mcnemar["split"] == "all"].iloc[0]
    assert allrows["rows"] == len(right["a"])
    assert allrows["only_a_right"] == int((right["a"] & ~right["b"]).sum())
    assert allrows["only_b_right"] == int((~right["a"] & right["b"]).sum())
    assert allrows["both_right"] == int((right["a"] & right["b"]).sum())
    assert (tmp_path / "out" / "diff.html").is_file()


def _links_referent(r: dict) -> bool:
    """The cluster holding the pronoun has a mention overlapping the referent's span and none
    overlapping the other entity's."""
    pron = tuple(json.loads(r["pronoun_span"]))
    spans = {k: json.loads(r[f"{k}_span"]) for k in ("target", "distractor")}
    gold, other = r["referent_role"], "distractor" if r["referent_role"] == "target" else "target"

    def hits(cluster: list, span: list | None) -> bool:
        return span is not None and any(s < span[1] and span[0] < e for s, e in cluster)

    for cluster in json.loads(r["predicted_clusters"]):
        if any(tuple(m) == pron for m in cluster):
            rest = [m for m in cluster if tuple(m) != pron]
            return hits(rest, spans[gold]) and not hits(rest, spans[other])
    return False


def test_failed_requests_leave_coref_rows_out_of_both(
    resolver_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = resolver_runs[0], tmp_path / "b"
    shutil.copytree(resolver_runs[1], b)
    pred = pd.read_parquet(b / "predictions.parquet")
    pred.loc[pred.index[:2], "response_status"] = "error"
    pred.loc[pred.index[:2], "predicted_clusters"] = "[]"
    pred.to_parquet(b / "predictions.parquet", index=False)
    d = diff(a, b)
    assert d.settings["rows_compared"] == len(pred) - 2
    assert d.settings["rows_unanswered_b"] == 2
    assert int(d.mcnemar.loc[d.mcnemar["split"] == "all", "rows"].iloc[0]) == len(pred) - 2


@pytest.mark.parametrize("task", ["winopron-uk/coref"])
def test_other_coref_task_diffs(task: str, tmp_path: Path) -> None:
    for model in ("agreement", "first"):
        winoscope.run(task, f"baseline:{model}", out=tmp_path / model, n_boot=100)
    d = diff(tmp_path / "agreement", tmp_path / "first")
    assert d.verdicts and len(d.mcnemar)
    assert d.table["ci_low"].notna().any()
