"""``winoscope diff``: paired bootstrap differences between two runs on the same items.

The paired interval is checked three ways: against a case small enough to work out by hand,
against a resampling of the items written here (materialising each resampled table from the
same draws, and separately from draws of this test's own generator), and against an unpaired
bootstrap, which must be wider when the two runs' errors are correlated.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope
from winoscope.cli import app
from winoscope.compare import DiffResult, diff
from winoscope.errors import DatasetError, TaskError
from winoscope.families.winobias.dataset import UK
from winoscope.scoring.paired import bootstrap_p, holm

N_BOOT = 2000


def _edit(run: Path, changes: dict[tuple[int, str], str]) -> None:
    """Set ``prediction_role`` of (item_number, variant) rows in a run's predictions."""
    pred = pd.read_parquet(run / "predictions.parquet")
    for (item, variant), role in changes.items():
        mask = (pred["item_number"] == item) & (pred["variant"] == variant)
        assert mask.sum() == 1
        pred.loc[mask, "prediction_role"] = role
    pred.to_parquet(run / "predictions.parquet", index=False)


@pytest.fixture(scope="module")
def two_items(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two runs on the sample's test/type2 stratum: two items, each one pro and one anti row.

    A answers item 1's anti row right and item 2's wrong; B the other way round; every other
    row is right in both.
    """
    root = tmp_path_factory.mktemp("two_items")
    sample = UK.columns.sample_paths()["table"]
    table = pd.read_csv(str(sample))
    data = root / "rows.csv"
    table[(table["split"] == "test") & (table["type"] == "type2")].to_csv(data, index=False)
    a = root / "a"
    winoscope.run("winobias-uk", "baseline:agreement", data=data, out=a, n_boot=N_BOOT)
    b = root / "b"
    shutil.copytree(a, b)
    pro_right = {(1, "ff"): "target", (2, "ff"): "target"}  # ff rows are the pro rows here
    _edit(a, {**pro_right, (1, "mm"): "target", (2, "mm"): "distractor"})
    _edit(b, {**pro_right, (1, "mm"): "distractor", (2, "mm"): "target"})
    return a, b


def _row(d: DiffResult, metric: str, measure: str = "B - A") -> pd.Series:
    t = d.table
    sel = t[(t["metric"] == metric) & (t["split"] == "macro") & (t["measure"] == measure)]
    assert len(sel) == 1, sel
    return sel.iloc[0]


def test_hand_worked_paired_interval(two_items: tuple[Path, Path]) -> None:
    a, b = two_items
    d = diff(a, b)
    # anti accuracy: resample (i1, i1) -> A 1, B 0: -1; (i1, i2) -> 0.5 - 0.5 = 0;
    # (i2, i2) -> 0 - 1 = +1; probabilities 1/4, 1/2, 1/4.
    anti = _row(d, "anti_accuracy")
    assert (anti["value_a"], anti["value_b"], anti["diff"]) == (0.5, 0.5, 0.0)
    assert (anti["ci_low"], anti["ci_high"]) == (-1.0, 1.0)
    reps = d.replicates[("anti_accuracy", "macro", "macro", "B - A")]
    assert set(np.unique(reps)) == {-1.0, 0.0, 1.0}
    assert abs(float(np.mean(reps == 0.0)) - 0.5) < 0.04
    assert abs(float(np.mean(reps == 1.0)) - 0.25) < 0.04
    assert anti["p_boot"] == 1.0  # three quarters of the replicates on each side of 0
    # pro rows are right in both: the difference is exactly 0 in every resample
    pro = _row(d, "pro_accuracy")
    assert (pro["diff"], pro["ci_low"], pro["ci_high"], pro["p_boot"]) == (0.0, 0.0, 0.0, 1.0)
    # the signed gap (pro - anti) moves opposite to anti: replicates are -anti's
    gap = d.replicates[("signed_bias_gap", "macro", "macro", "B - A")]
    np.testing.assert_array_equal(gap, -reps)
    assert _row(d, "overall_accuracy")[["ci_low", "ci_high"]].tolist() == [-0.5, 0.5]
    # McNemar over all rows: one row only A answers right, one only B: p = 1
    allrows = d.mcnemar[d.mcnemar["split"] == "all"].iloc[0]
    assert allrows[
        ["rows", "both_right", "only_a_right", "only_b_right", "both_wrong"]
    ].tolist() == [
        8,
        6,
        1,
        1,
        0,
    ]
    assert allrows["p_value"] == 1.0


@pytest.fixture(scope="module")
def lopsided(
    two_items: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """The same two items; A answers both anti rows wrong, B item 1's anti row right."""
    root = tmp_path_factory.mktemp("lopsided")
    a, b = root / "a", root / "b"
    shutil.copytree(two_items[0], a)
    shutil.copytree(two_items[0], b)
    pro_right = {(1, "ff"): "target", (2, "ff"): "target"}
    _edit(a, {**pro_right, (1, "mm"): "distractor", (2, "mm"): "distractor"})
    _edit(b, {**pro_right, (1, "mm"): "target", (2, "mm"): "distractor"})
    return a, b


def test_hand_worked_asymmetric_case_gets_the_sign_and_the_interval(lopsided) -> None:
    """Anti accuracy: A 0, B 0.5, so B - A = +0.5 (A - B would be -0.5). Resamples: (i1, i1)
    B* 1 - A* 0 = +1, (i1, i2) +0.5, (i2, i2) 0, probabilities 1/4, 1/2, 1/4: interval
    [0, 1]. Overall accuracy (the mean of pro 1 and anti) moves by half of that: +0.25,
    interval [0, 0.5]. The gap pro - anti falls from 1 to 0.5, and so does its size."""
    a, b = lopsided
    d = diff(a, b)
    anti = _row(d, "anti_accuracy")
    assert (anti["value_a"], anti["value_b"], anti["diff"]) == (0.0, 0.5, 0.5)
    assert (anti["ci_low"], anti["ci_high"]) == (0.0, 1.0)
    reps = d.replicates[("anti_accuracy", "macro", "macro", "B - A")]
    assert set(np.unique(reps)) == {0.0, 0.5, 1.0}
    assert abs(float(np.mean(reps == 0.5)) - 0.5) < 0.04
    assert abs(float(np.mean(reps == 1.0)) - 0.25) < 0.04
    # one side of 0 holds every replicate, the other the quarter equal to 0: p = 2 (B/4 + 1) / (B + 1)
    assert anti["p_boot"] == pytest.approx(2 * (float(np.sum(reps <= 0)) + 1) / (len(reps) + 1))
    overall = _row(d, "overall_accuracy")
    assert (overall["value_a"], overall["value_b"], overall["diff"]) == (0.5, 0.75, 0.25)
    assert (overall["ci_low"], overall["ci_high"]) == (0.0, 0.5)
    gap = _row(d, "signed_bias_gap")
    assert (gap["value_a"], gap["value_b"], gap["diff"]) == (1.0, 0.5, -0.5)
    size = _row(d, "absolute_bias_gap")
    assert (size["diff"], size["ci_low"], size["ci_high"]) == (-0.5, -1.0, 0.0)
    line = next(v for v in d.verdicts if v.startswith("signed_bias_gap"))
    assert line.startswith("signed_bias_gap: 1.000 -> 0.500; ")


def test_unpaired_resampling_of_the_hand_worked_case(two_items: tuple[Path, Path]) -> None:
    """Resampled independently, B - A of anti accuracy also takes the values +-0.5 (A* and B*
    from different resamples): probability 1/2, against 0 when paired."""
    a, b = two_items
    d = diff(a, b, paired=False)
    reps = d.replicates[("anti_accuracy", "macro", "macro", "B - A")]
    assert abs(float(np.mean(np.abs(reps) == 0.5)) - 0.5) < 0.04
    assert abs(float(np.mean(reps == 0.0)) - 0.375) < 0.04


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("sample_runs")
    for model in ("stereotype", "agreement"):
        winoscope.run("winobias-uk", f"baseline:{model}", out=root / model, n_boot=N_BOOT)
    return root / "stereotype", root / "agreement"


def _item_arrays(pred: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """Per stratum, per item (sorted like the units): pro/anti right and counts, by hand."""
    p = pred[pred["score_group"] == "primary_balanced"].copy()
    p["right"] = (p["prediction_role"] == p["coreference_role"]).astype(float)
    out = {}
    for (split, typ), g in p.groupby(["split", "type"], sort=True):
        per = g.pivot_table(index="item_number", columns="condition", values="right", aggfunc="sum")
        out[(str(split), str(typ))] = per.sort_index()
    return out


def _replicates(
    pa: pd.DataFrame, pb: pd.DataFrame, draws: dict[tuple[str, str], list[np.ndarray]]
) -> dict[str, np.ndarray]:
    """Macro pro, anti, overall accuracy and signed gap of B - A, from resampled item lists."""
    ia, ib = _item_arrays(pa), _item_arrays(pb)
    diffs: dict[str, list[list[float]]] = {m: [] for m in ("pro", "anti", "overall", "gap")}
    for key, idx_list in draws.items():
        a = {c: ia[key][c].to_numpy(float) for c in ("pro", "anti")}
        b = {c: ib[key][c].to_numpy(float) for c in ("pro", "anti")}
        stratum: dict[str, list[float]] = {m: [] for m in diffs}
        for idx in idx_list:  # one resample: the items drawn, with repeats
            va = {c: float(a[c][idx].mean()) for c in a}
            vb = {c: float(b[c][idx].mean()) for c in b}
            stratum["pro"].append(vb["pro"] - va["pro"])
            stratum["anti"].append(vb["anti"] - va["anti"])
            stratum["overall"].append((vb["pro"] + vb["anti"]) / 2 - (va["pro"] + va["anti"]) / 2)
            stratum["gap"].append((vb["pro"] - vb["anti"]) - (va["pro"] - va["anti"]))
        for m in diffs:
            diffs[m].append(stratum[m])
    return {m: np.mean(np.array(v), axis=0) for m, v in diffs.items()}  # macro: mean of strata


def test_paired_interval_matches_an_independent_resampling(
    sample_runs: tuple[Path, Path],
) -> None:
    a, b = sample_runs
    d = diff(a, b)
    pa = pd.read_parquet(a / "predictions.parquet")
    pb = pd.read_parquet(b / "predictions.parquet")
    sizes = {key: len(items) for key, items in sorted(_item_arrays(pa).items())}
    strata = list(sizes)
    names = {
        "pro": "pro_accuracy",
        "anti": "anti_accuracy",
        "overall": "overall_accuracy",
        "gap": "signed_bias_gap",
    }
    # 1. the same draws (seed 0, strata in sorted order, item counts), each resampled item
    #    list materialised and scored here: the replicates agree exactly
    rng = np.random.default_rng(0)
    same: dict[tuple[str, str], list[np.ndarray]] = {}
    for key in strata:
        n = sizes[key]
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=N_BOOT)
        same[key] = [np.repeat(np.arange(n), c) for c in counts]
    mine = _replicates(pa, pb, same)
    for short, metric in names.items():
        np.testing.assert_allclose(
            d.replicates[(metric, "macro", "macro", "B - A")], mine[short], atol=1e-12
        )
        lo, hi = np.quantile(mine[short], [0.025, 0.975])
        row = _row(d, metric)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), abs=1e-12)
    # 2. this test's own generator and index draws: the same distribution within noise
    own = np.random.default_rng(20261201)
    fresh = {key: [own.integers(0, n, n) for _ in range(N_BOOT)] for key, n in sizes.items()}
    theirs = _replicates(pa, pb, fresh)
    for short in ("pro", "anti", "overall"):
        ours = d.replicates[(names[short], "macro", "macro", "B - A")]
        assert np.std(ours) == pytest.approx(np.std(theirs[short]), rel=0.12)
        assert np.quantile(ours, [0.025, 0.975]) == pytest.approx(
            np.quantile(theirs[short], [0.025, 0.975]), abs=0.07
        )


def test_unpaired_bootstrap_is_wider_on_correlated_runs(
    sample_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """B = A with two answers changed: the runs agree on almost every row, so the paired
    interval of B - A is far narrower than one resampling B independently."""
    a = sample_runs[1]
    b = tmp_path / "b"
    shutil.copytree(a, b)
    pred = pd.read_parquet(b / "predictions.parquet")
    primary = pred.index[pred["score_group"] == "primary_balanced"][:2]
    pred.loc[primary, "prediction_role"] = np.where(
        pred.loc[primary, "prediction_role"] == "target", "distractor", "target"
    )
    pred.to_parquet(b / "predictions.parquet", index=False)
    paired, unpaired = diff(a, b), diff(a, b, paired=False)
    for metric in ("overall_accuracy", "pro_accuracy", "anti_accuracy"):
        p, u = _row(paired, metric), _row(unpaired, metric)
        assert p["diff"] == u["diff"]
        assert p["ci_high"] - p["ci_low"] < 0.5 * (u["ci_high"] - u["ci_low"]), metric


def test_rescoring_reproduces_each_run(sample_runs: tuple[Path, Path]) -> None:
    a, b = sample_runs
    d = diff(a, b)
    for path, column in ((a, "value_a"), (b, "value_b")):
        stored = pd.read_csv(path / "metrics.csv").set_index(["metric", "split", "type"])
        mine = d.table[d.table["measure"] == "B - A"].set_index(["metric", "split", "type"])
        joined = mine[[column]].join(stored["value"], how="inner")
        assert len(joined) == len(mine)
        np.testing.assert_allclose(joined[column], joined["value"], equal_nan=True)


def test_verdicts_and_outputs(sample_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = sample_runs
    d = diff(a, b, out=tmp_path / "out")
    gap = next(v for v in d.verdicts if v.startswith("signed_bias_gap"))
    # decided by the declared size of the gap (absolute_bias_gap), named in the line
    assert "smaller gap: |pro − anti| accuracy -" in gap and "Holm p = " in gap
    overall = next(v for v in d.verdicts if v.startswith("overall_accuracy"))
    # 0.5 -> 0.354: the mean of pro and anti is no hypothesis of its own: exploratory
    assert overall.startswith("overall_accuracy: 0.500 -> 0.354; lower: -0.146 [")
    assert "(exploratory, not in the Holm family)" in overall and "Holm p" not in overall
    # the family: the task's headline hypotheses, one per quantity, from the declarations
    family = d.table[d.table["family"]]
    assert sorted(zip(family["metric"], family["measure"], strict=True)) == [
        ("absolute_bias_gap", "B - A"),
        ("anti_accuracy", "B - A"),
        ("pro_accuracy", "B - A"),
    ]
    assert set(family["split"]) == {"macro"}
    assert d.settings["holm_family"] == "pro accuracy, anti accuracy, |pro − anti| accuracy"
    assert not (d.table["measure"] == "|B| - |A|").any()  # the twin is the gap's size: one row
    for name in ("diff.csv", "diff_mcnemar.csv", "diff.md", "diff.tex", "diff.json", "diff.html"):
        assert (tmp_path / "out" / name).is_file(), name
    tidy = pd.read_csv(tmp_path / "out" / "diff.csv")
    assert list(tidy.columns) == list(d.to_frame().columns)
    assert "forest_diff" in (tmp_path / "out" / "diff.html").read_text(encoding="utf-8")
    assert "\\toprule" in (tmp_path / "out" / "diff.tex").read_text(encoding="utf-8")
    # Holm over the family alone (by hand: 3 hypotheses), never below the raw p-value
    from winoscope.scoring.paired import holm as holm_fn

    assert list(family["p_holm"]) == holm_fn(list(family["p_boot"]))
    assert bool((family["p_holm"] >= family["p_boot"] - 1e-12).all())
    assert d.table.loc[~d.table["family"], "p_holm"].isna().all()
    md = (tmp_path / "out" / "diff.md").read_text(encoding="utf-8")
    assert "Holm family (the headline hypotheses, adjusted together): pro accuracy" in md
    assert "| exploratory |" in md


def test_unanswered_rows_are_left_out_of_both_and_counted(
    sample_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = sample_runs[0], tmp_path / "b"
    shutil.copytree(sample_runs[1], b)
    pred = pd.read_parquet(b / "predictions.parquet")
    pred.loc[pred.index[:3], "prediction_role"] = None
    pred.to_parquet(b / "predictions.parquet", index=False)
    d = diff(a, b)
    assert d.settings["rows_compared"] == len(pred) - 3
    assert d.settings["rows_unanswered_b"] == 3
    assert any("left out of both" in n for n in d.notes)
    assert d.mcnemar[d.mcnemar["split"] == "all"]["rows"].iloc[0] == len(pred) - 3


def _copy_with_manifest(src: Path, dst: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text(encoding="utf-8"))
    edit(manifest["dataset"])
    (dst / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return dst


def test_different_data_is_an_error_naming_the_field(
    sample_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = sample_runs

    def table_hash(value: str) -> Callable[[dict[str, Any]], None]:
        return lambda ds: ds.update(table_sha256=value)

    def file_only(value: str) -> Callable[[dict[str, Any]], None]:
        def edit(ds: dict[str, Any]) -> None:
            ds.pop("table_sha256", None)
            ds["source"]["sha256"] = value

        return edit

    # the canonical table hash decides when both runs record it
    b_other = _copy_with_manifest(b, tmp_path / "b_other", table_hash("0" * 64))
    with pytest.raises(DatasetError, match=r"dataset\.table_sha256"):
        diff(a, b_other)
    a_t = _copy_with_manifest(a, tmp_path / "a_t", table_hash("t1"))
    b_t = _copy_with_manifest(
        b, tmp_path / "b_t", lambda ds: (table_hash("t1")(ds), ds["source"].update(sha256="x"))
    )
    assert diff(a_t, b_t).data == "dataset.table_sha256=t1"  # file hashes may differ
    # without it, the file's sha256
    a_f = _copy_with_manifest(a, tmp_path / "a_f", file_only("f1"))
    b_f = _copy_with_manifest(b, tmp_path / "b_f", file_only("f2"))
    with pytest.raises(DatasetError, match=r"dataset\.source\.sha256 is f1 in a_f and f2 in b_f"):
        diff(a_f, b_f)
    # nothing shared to compare: a clear error, not a guess
    a_n = _copy_with_manifest(
        a, tmp_path / "a_n", lambda ds: ds.update(table_sha256=None, source={})
    )
    with pytest.raises(DatasetError, match="cannot tell whether the two runs used the same data"):
        diff(a_n, b)


def test_different_tasks_and_the_cli(sample_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = sample_runs
    other = tmp_path / "wp"
    winoscope.run("winopron-uk", "baseline:first", out=other, n_boot=200)
    with pytest.raises(TaskError, match="different tasks"):
        diff(a, other)
    runner = CliRunner()
    res = runner.invoke(app, ["diff", str(a), str(b), "--out", str(tmp_path / "cli")])
    assert res.exit_code == 0, res.output
    assert "signed_bias_gap" in res.output and (tmp_path / "cli" / "diff.html").is_file()
    bad = runner.invoke(app, ["diff", str(a), str(other)])
    assert bad.exit_code == 2 and "different tasks" in bad.output


def test_bootstrap_p_and_holm_by_hand() -> None:
    # 3 of 9 replicates <= 0: p = 2 * (3 + 1) / 10
    assert bootstrap_p(np.array([-1, -1, 0, 1, 1, 1, 1, 1, 1.0])) == pytest.approx(0.8)
    assert bootstrap_p(np.array([0.2] * 99)) == pytest.approx(0.02)
    # Holm: sorted 0.01, 0.03, 0.04 -> 3 * 0.01, max(0.03, 2 * 0.03), max(0.06, 1 * 0.04)
    assert holm([0.04, 0.01, 0.03, float("nan")])[:3] == pytest.approx([0.06, 0.03, 0.06])
    # tiny p-values keep their size (McNemar on thousands of rows): 2 * 1e-26, not 0
    assert holm([1e-26, 2e-20]) == [2e-26, 2e-20]


def _verdict_table(
    size_ci: tuple[float, float], signed_ci: tuple[float, float], holm_p: float = 0.01
) -> pd.DataFrame:
    base = {
        "metric": "signed_bias_gap",
        "split": "macro",
        "type": "all",
        "headline": True,
        "value_a": 0.0,
        "value_b": 0.05,
        "p_boot": 0.004,
    }
    return pd.DataFrame(
        [
            {
                **base,
                "measure": "B - A",
                "diff": 0.05,
                "ci_low": signed_ci[0],
                "ci_high": signed_ci[1],
                "p_holm": float("nan"),
                "family": False,
            },
            {
                **base,
                "measure": "|B| - |A|",
                "diff": 0.05,
                "ci_low": size_ci[0],
                "ci_high": size_ci[1],
                "p_holm": holm_p,
                "family": True,
            },
        ]
    )


def test_a_gap_from_zero_is_larger_only_when_the_signed_change_excludes_zero() -> None:
    """With A's gap at 0 every resampled |B| - |A| is >= 0: that alone is no evidence."""
    from winoscope.compare.difference import verdicts

    (line,) = verdicts(_verdict_table((0.01, 0.2), (-0.1, 0.2)))
    assert "no detectable change" in line and "larger" not in line
    (line,) = verdicts(_verdict_table((0.01, 0.2), (0.01, 0.2)))
    assert "larger gap: |gap| +0.050 [+0.010, +0.200], Holm p = 0.01" in line
    (line,) = verdicts(_verdict_table((-0.2, -0.01), (-0.2, 0.1)))
    assert "smaller gap: |gap| +0.050 [-0.200, -0.010], Holm p = 0.01" in line


def test_a_bound_a_rounding_error_from_zero_includes_zero() -> None:
    """A lower bound of 1.1e-16 printed as +0.000 and called "excludes 0" while an exact 0
    was "unchanged": within 1e-9 of 0 a bound includes 0, and prints and decides as 0."""
    from winoscope.compare.difference import verdicts

    for low in (1.1e-16, 0.0, -1.1e-16, 9e-10):
        (line,) = verdicts(_verdict_table((low, 0.479), (low, 0.479)))
        assert (
            "no detectable change (|gap| +0.050, 95% interval [+0.000, +0.479] includes 0" in line
        )
        assert "-0.000" not in line
    (line,) = verdicts(_verdict_table((1.1e-9, 0.479), (1.1e-9, 0.479)))
    assert "larger gap" in line  # beyond the tolerance it decides


def test_an_interval_that_excludes_zero_but_fails_holm_says_so_without_contradiction() -> None:
    from winoscope.compare.difference import verdicts

    (line,) = verdicts(_verdict_table((-0.2, -0.01), (-0.2, -0.01), holm_p=0.08))
    assert "no detectable change after Holm's adjustment" in line and "Holm p = 0.08" in line
    assert "smaller" not in line and "excludes" not in line


def test_a_partial_run_against_a_full_one_is_refused(sample_runs, tmp_path) -> None:
    a, _ = sample_runs
    winoscope.run("winobias-uk", "baseline:agreement", out=tmp_path / "part", n_boot=50, limit=2)
    with pytest.raises(
        TaskError, match=r"not comparable: .* is a full run and part is a partial run \(--limit 2"
    ):
        diff(a, tmp_path / "part")
    winoscope.run("winobias-uk", "baseline:first", out=tmp_path / "part2", n_boot=50, limit=2)
    same = diff(tmp_path / "part2", tmp_path / "part")  # the same part of the data: fine
    assert same.settings["comparability"] == [] and same.settings["rows"] < 76


def test_diff_notes_every_real_difference_and_only_those(sample_runs, tmp_path) -> None:
    pytest.importorskip("torch")
    from tiny_lm import build_tiny_gpt2

    a, b = sample_runs
    assert diff(a, b).settings["comparability"] == []  # two baselines: prompts play no part
    model = build_tiny_gpt2(tmp_path / "tiny", seed=1)
    winoscope.run("winobias-uk", f"hf:{model}", out=tmp_path / "letters", n_boot=N_BOOT)
    winoscope.run(
        "winobias-uk",
        f"hf:{model}",
        out=tmp_path / "cloze",
        n_boot=N_BOOT,
        backend_options={"mode": "cloze"},
        seed=3,
    )
    d = diff(tmp_path / "letters", tmp_path / "cloze", out=tmp_path / "d")
    notes = d.settings["comparability"]
    aspects = sorted(n.split("runs use different ")[1].split(" (")[0] for n in notes)
    assert aspects == ["modes", "prompt templates", "protocols", "seeds"], notes
    assert "forced_choice: letters; cloze: cloze" in notes[0]
    assert "Not comparable: winobias-uk: runs use different protocols" in (
        tmp_path / "d" / "diff.md"
    ).read_text(encoding="utf-8")


def test_a_diff_result_reads_well_in_a_notebook(sample_runs) -> None:
    d = diff(*sample_runs)
    text = repr(d)
    assert len(text) < 1000 and text.startswith("DiffResult(winobias-uk: baseline:agreement")
    assert d.verdicts[0][:60] in text
    page = d._repr_html_()
    assert page.count("<tr>") == len(d.headline()) + 1 and "&minus;" in page


def test_a_gap_reported_by_stratum_gets_a_verdict_in_every_stratum(tmp_path) -> None:
    """SweWinogender's hon - han and hen - han gaps: one line each (the second was dropped)."""
    for name, model in (("a", "first-mention"), ("b", "overlap")):
        winoscope.run("swewinogender/nli", f"nli-baseline:{model}", out=tmp_path / name, n_boot=50)
    lines = diff(tmp_path / "a", tmp_path / "b").verdicts
    assert [v.split(":")[0] for v in lines if v.startswith("accuracy_gap")] == [
        "accuracy_gap (pronoun/hon-han)",
        "accuracy_gap (pronoun/hen-han)",
    ]
    wb = [v.split(":")[0] for v in diff(*_sample_pair(tmp_path)).verdicts]
    assert "absolute_bias_gap" not in wb and wb.count("signed_bias_gap") == 1


def _sample_pair(tmp_path):  # type: ignore[no-untyped-def]
    for model in ("stereotype", "agreement"):
        winoscope.run("winobias-uk", f"baseline:{model}", out=tmp_path / model, n_boot=50)
    return tmp_path / "stereotype", tmp_path / "agreement"
