"""Association tables: q, the corrected curve and its zones, correlations, files, figure, CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.occupations.association import (
    associate,
    corpus_table,
    corrected_curve,
    invert_curve,
    zone_lines,
)
from winoscope.occupations.scan import ScanCounts
from winoscope.report.association_figure import plot_association


def test_curve_values_worked_by_hand():
    # q = 1/4: y(1/2) = (1/8) / (1/8 + 3/8) = 1/4; y(1/3) = (1/12)/(1/12 + 1/2) = 1/7;
    # y(2/3) = (1/6)/(1/6 + 1/4) = 2/5
    assert corrected_curve(0.5, 0.25) == pytest.approx(0.25)
    assert zone_lines(0.25) == pytest.approx((1 / 7, 0.4))
    # an unbiased corpus (q = 1/2) leaves shares unchanged
    x = np.linspace(0, 1, 11)
    assert corrected_curve(x, 0.5) == pytest.approx(x)
    # the ends stay fixed, and invert_curve undoes the curve
    assert corrected_curve(np.array([0.0, 1.0]), 0.3) == pytest.approx([0.0, 1.0])
    inner = np.linspace(0.05, 0.95, 19)
    assert invert_curve(corrected_curve(inner, 0.3), 0.3) == pytest.approx(inner)
    # q = 0.2, corpus share 0.5: corrected (0.8 * 0.5) / (0.8 * 0.5 + 0.2 * 0.5) = 0.8
    assert invert_curve(0.5, 0.2) == pytest.approx(0.8)


def hand_counts() -> ScanCounts:
    """Three occupations, sets small/medium/large, classes female/male/tie/none."""
    c = ScanCounts(n_occupations=3, n_lemmas=3, lines=100, bytes=1000)
    c.totals[:] = [[10, 30, 5, 55], [20, 30, 5, 45], [25, 25, 10, 40]]
    c.occupation[0] = [[1, 3, 0, 2], [2, 2, 1, 1], [3, 1, 0, 2]]
    c.occupation[1] = [[0, 4, 0, 0], [0, 4, 0, 0], [1, 3, 0, 0]]
    c.occupation[2] = [[0, 0, 1, 5], [0, 0, 0, 6], [0, 0, 0, 6]]  # never classified
    c.lemma[:] = c.occupation
    return c


def test_associate_counts_shares_and_zones():
    stats = pd.DataFrame({"occupation": ["a", "b", "c"], "real_world": [0.9, 0.1, 0.5]})
    r = associate(
        hand_counts(), ["a", "b", "c"], [("a", "a"), ("b", "b"), ("c", "c")], statistics=stats
    )
    corpus = r.corpus.set_index("set")
    assert corpus["q"].tolist() == pytest.approx([10 / 40, 20 / 50, 25 / 50])
    assert corpus.loc["small", "none"] == 55 and corpus.loc["small", "sentences"] == 100
    occ = r.occupations.set_index(["occupation", "set"])
    a_small = occ.loc[("a", "small")]
    assert (a_small["female"], a_small["male"], a_small["tie"], a_small["mentions"]) == (1, 3, 0, 6)
    assert a_small["pct_female"] == pytest.approx(0.25)
    # corrected with q = 1/4: (3/4 * 1/4) / (3/4 * 1/4 + 1/4 * 3/4) = 1/2 -> neutral
    assert a_small["pct_female_corrected"] == pytest.approx(0.5)
    assert a_small["zone_corpus"] == "neutral"
    # large set, q = 1/2: a is 3/4 female, uncorrected; real world 0.9 -> expected 0.9
    a_large = occ.loc[("a", "large")]
    assert a_large["pct_female_corrected"] == pytest.approx(0.75)
    assert a_large["zone_corpus"] == "female-dominated"
    assert a_large["expected_corpus"] == pytest.approx(0.9)
    assert occ.loc[("a", "small"), "expected_corpus"] == pytest.approx(0.225 / (0.225 + 0.075))
    assert occ.loc[("b", "small"), "zone_corpus"] == "male-dominated"
    assert occ.loc[("b", "small"), "zone_real_world"] == "male-dominated"
    # c: no female or male sentence -> no share, no zone
    assert math.isnan(occ.loc[("c", "small"), "pct_female"])
    assert pd.isna(occ.loc[("c", "small"), "zone_corpus"])
    assert occ.loc[("c", "small"), "tie"] == 1


def _pearson(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    dx, dy = x - x.mean(), y - y.mean()
    return float((dx * dy).sum() / math.sqrt((dx**2).sum() * (dy**2).sum()))


def _ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    ranks = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def test_correlations_against_the_formulas():
    n = 6
    c = ScanCounts(n_occupations=n, n_lemmas=n, lines=100)
    c.totals[:] = [[20, 60, 0, 20]] * 3
    female = [1, 5, 2, 8, 3, 3]
    male = [9, 5, 8, 2, 7, 7]
    for i in range(n):
        c.occupation[i, :, 0] = female[i]
        c.occupation[i, :, 1] = male[i]
    real = [0.1, 0.6, 0.3, 0.7, 0.2, 0.5]
    names = [f"o{i}" for i in range(n)]
    stats = pd.DataFrame({"occupation": names, "real_world": real})
    r = associate(c, names, [(o, o) for o in names], statistics=stats)
    corr = r.correlations.set_index(["set", "method", "measure"])
    share = [f / (f + m) for f, m in zip(female, male, strict=True)]
    assert corr.loc[("small", "pearson", "pct_female"), "value"] == pytest.approx(
        _pearson(real, share)
    )
    assert corr.loc[("small", "spearman", "pct_female"), "value"] == pytest.approx(
        _pearson(_ranks(real), _ranks(share))
    )
    q = 0.25
    corrected = [(1 - q) * y / ((1 - q) * y + q * (1 - y)) for y in share]
    assert corr.loc[("small", "pearson", "pct_female_corrected"), "value"] == pytest.approx(
        _pearson(real, corrected)
    )
    assert corr.loc[("large", "spearman", "pct_female"), "n"] == n


def test_correlation_needs_three_points_with_variation():
    c = hand_counts()
    stats = pd.DataFrame({"occupation": ["a", "b"], "real_world": [0.9, 0.1]})
    r = associate(c, ["a", "b", "c"], [("a", "a"), ("b", "b"), ("c", "c")], statistics=stats)
    assert r.correlations["value"].isna().all()
    assert set(r.correlations["n"]) == {2}
    assert r.settings["occupations_without_statistics"] == ["c"]


def test_occupation_only_counts_have_no_q():
    c = hand_counts()
    c.full = False
    table = corpus_table(c)
    assert table["q"].isna().all()
    assert table["female"].isna().all()


def test_write_files_and_figure(tmp_path):
    stats = pd.DataFrame({"occupation": ["a", "b", "c"], "real_world": [0.9, 0.1, 0.5]})
    r = associate(
        hand_counts(),
        ["a", "b", "c"],
        [("a", "a"), ("b", "b"), ("c", "c")],
        statistics=stats,
        lang="sv",
    )
    paths = r.write(tmp_path)
    long = pd.read_csv(paths["association"])
    assert len(long) == 9
    wide = pd.read_csv(paths["wide"])
    assert wide.loc[wide["occupation"] == "a", "female_medium"].item() == 2
    payload = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert payload["corpus"][0]["q"] == pytest.approx(0.25)
    png = plot_association(r, tmp_path / "figure.png", label_points=True)
    assert png.stat().st_size > 10_000
    no_stats = associate(hand_counts(), ["a", "b", "c"], [("a", "a"), ("b", "b"), ("c", "c")])
    with pytest.raises(ValueError, match="real-world statistics"):
        plot_association(no_stats, tmp_path / "x.png")


def test_cli_associate_on_ud_ukrainian(shared_data, tmp_path):
    stats = tmp_path / "stats.tsv"
    stats.write_text(
        "occupation\tpct_female\nлікар\t62\nкерівник\t35\nредактор\t70\nсекретар\t90\n"
        "механік\t4\nдиректор\t30\nкравець\t75\n",
        encoding="utf-8",
    )
    files = sorted(str(p) for p in (shared_data / "corpora").glob("*uk_iu*.conllu"))
    out = tmp_path / "out"
    res = CliRunner().invoke(
        app,
        [
            "associate",
            *files,
            "--lang",
            "uk",
            "--stats",
            str(stats),
            "--out",
            str(out),
            "--workers",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    for name in (
        "association.csv",
        "association_wide.csv",
        "corpus.csv",
        "figure.png",
        "figure.pdf",
        "dropped_forms.csv",
    ):
        assert (out / name).exists(), name
    corpus = pd.read_csv(out / "corpus.csv")
    assert corpus["sentences"].tolist() == [1571] * 3
    assert (corpus["female"] + corpus["male"] + corpus["tie"] + corpus["none"] == 1571).all()
    occ = pd.read_csv(out / "association.csv")
    assert occ.loc[occ["occupation"] == "лікар", "real_world"].iloc[0] == pytest.approx(0.62)


def test_cli_associate_errors(tmp_path):
    res = CliRunner().invoke(
        app, ["associate", str(tmp_path / "nope.txt"), "--lang", "sv", "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 2
    assert "nope.txt" in res.output and "Traceback" not in res.output
    corpus = tmp_path / "c.txt"
    corpus.write_text("Hon är läkare.\n", encoding="utf-8")
    res = CliRunner().invoke(
        app, ["associate", str(corpus), "--lang", "xx", "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 2 and "no lexicon" in res.output
