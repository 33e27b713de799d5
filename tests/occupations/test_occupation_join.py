"""Occupation statistics joined case- and Unicode-normalised; a join matching nothing is an
error, a partial one lists what it leaves out; --mapping and --combine from the command line."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pandas as pd
import pytest
from test_occupation_association import hand_counts
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.errors import DatasetError
from winoscope.occupations import stats as st
from winoscope.occupations.association import associate

LEMMAS = [("a", "a"), ("b", "b"), ("c", "c")]


def test_names_join_case_and_unicode_normalised() -> None:
    nfd = unicodedata.normalize("NFD", "Läkare")
    assert nfd != "läkare"
    stats = pd.DataFrame({"occupation": [nfd, "B", "C"], "real_world": [0.9, 0.1, 0.5]})
    r = associate(hand_counts(), ["läkare", "b", "c"], LEMMAS, statistics=stats)
    occ = r.occupations.set_index(["occupation", "set"])
    assert occ.loc[("läkare", "small"), "real_world"] == pytest.approx(0.9)
    assert occ.loc[("b", "small"), "real_world"] == pytest.approx(0.1)
    assert r.settings["occupations_without_statistics"] == []


def test_join_matching_nothing_is_an_error_and_partial_lists() -> None:
    stats = pd.DataFrame({"occupation": ["x", "y"], "real_world": [0.9, 0.1]})
    with pytest.raises(DatasetError, match="no occupation of the statistics matches") as err:
        associate(hand_counts(), ["a", "b", "c"], LEMMAS, statistics=stats)
    assert "a, b, c" in str(err.value) and "x, y" in str(err.value)
    part = pd.DataFrame({"occupation": ["A", "y"], "real_world": [0.9, 0.1]})
    r = associate(hand_counts(), ["a", "b", "c"], LEMMAS, statistics=part)
    assert r.settings["occupations_without_statistics"] == ["b", "c"]


def test_percentages_combined_mean_or_weighted(tmp_path: Path) -> None:
    table = tmp_path / "scb.csv"
    table.write_text(
        "category,pct_female,total\nFörskollärare,90,300\ngymnasielärare,50,100\nLäkare,60,10\n",
        encoding="utf-8",
    )
    mapping = tmp_path / "map.csv"
    mapping.write_text(
        "category,occupation\nförskollärare,lärare\nGymnasielärare,lärare\nläkare,läkare\n",
        encoding="utf-8",
    )
    with pytest.raises(DatasetError, match="--combine mean") as err:
        st.load_statistics(table, mapping=mapping)
    assert "percent_combine" not in str(err.value)
    mean = st.load_statistics(table, mapping=mapping, percent_combine="mean")
    weighted = st.load_statistics(table, mapping=mapping, percent_combine="weighted")
    assert mean.set_index("occupation").loc["lärare", "real_world"] == pytest.approx(0.7)
    # (0.9 * 300 + 0.5 * 100) / 400 = 0.8
    assert weighted.set_index("occupation").loc["lärare", "real_world"] == pytest.approx(0.8)
    no_total = tmp_path / "no_total.csv"
    no_total.write_text("category,pct_female\nförskollärare,90\ngymnasielärare,50\n", "utf-8")
    with pytest.raises(DatasetError, match="needs a 'total' column"):
        st.load_statistics(no_total, mapping=mapping, percent_combine="weighted")


def test_cli_associate_takes_mapping_and_combine(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(
        "Hon är läkare.\nHan är läkare.\nHon är lärare.\nHon är sjuksköterska.\n"
        "Han är ingenjör.\nHan är snickare.\n",
        encoding="utf-8",
    )
    table = tmp_path / "scb.csv"
    table.write_text(
        "category,pct_female\nLÄKARE,55\nFörskollärare,90\nGymnasielärare,50\n"
        "Sjuksköterskor,88\nIngenjörer,25\n",
        encoding="utf-8",
    )
    mapping = tmp_path / "map.csv"
    mapping.write_text(
        "category,occupation\nläkare,läkare\nförskollärare,lärare\ngymnasielärare,lärare\n"
        "sjuksköterskor,sjuksköterska\ningenjörer,ingenjör\n",
        encoding="utf-8",
    )
    out = tmp_path / "o"
    base = ["associate", str(corpus), "--lang", "sv", "--workers", "1", "-q"]
    args = [*base, "--stats", str(table), "--mapping", str(mapping), "--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "--combine mean" in res.output, res.output
    res = CliRunner().invoke(app, [*args, "--combine", "mean"])
    assert res.exit_code == 0, res.output
    occ = pd.read_csv(out / "association.csv")
    small = occ[occ["set"] == "small"].set_index("occupation")
    assert small.loc["lärare", "real_world"] == pytest.approx(0.7)
    assert small.loc["läkare", "real_world"] == pytest.approx(0.55)
    assert "occupation(s) without statistics" in res.output and "advokat" in res.output
    assert (out / "figure.png").is_file()
    # statistics naming no occupation of the lexicon: an error, and no figure
    bad = tmp_path / "bad.csv"
    bad.write_text("occupation,pct_female\nastronaut,20\nclown,40\n", encoding="utf-8")
    out2 = tmp_path / "o2"
    res = CliRunner().invoke(app, [*base, "--stats", str(bad), "--out", str(out2)])
    assert res.exit_code == 2 and "no occupation of the statistics matches" in res.output
    assert not (out2 / "figure.png").exists()


def test_correlate_matching_nothing_is_an_error_without_a_figure(shared_data, tmp_path) -> None:
    import winoscope
    from winoscope.occupation_pipeline import correlate as correlation_run

    run_dir = tmp_path / "run"
    winoscope.run(
        "winogender-en",
        "baseline:stereotype",
        data=shared_data / "winogender-en",
        out=run_dir,
        n_boot=0,
    )
    stats = tmp_path / "stats.csv"
    stats.write_text("occupation,pct_female\nastronaut,20\nclown,40\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no occupation of the statistics matches"):
        correlation_run.correlate_run(run_dir, stats, n_boot=10)
    assert not (run_dir / "occupation_correlation.png").exists()
    # upper case, NFD: joined all the same
    nfd = tmp_path / "upper.tsv"
    src = (shared_data / "winogender-en" / "occupations-stats.tsv").read_text("utf-8")
    head, *rows = src.splitlines()
    nfd.write_text("\n".join([head, *(r.upper() for r in rows)]) + "\n", encoding="utf-8")
    result = correlation_run.correlate_run(run_dir, nfd, n_boot=10, out=tmp_path / "c")
    assert result.unmatched["without_statistics"] == []


def test_bad_statistics_fail_before_the_scan(tmp_path: Path, monkeypatch) -> None:
    import winoscope.occupation_pipeline.associate as ca

    def no_scan(*args, **kwargs):  # the scan must not start
        raise AssertionError("scanned")

    monkeypatch.setattr(ca, "scan_corpus", no_scan)
    corpus = tmp_path / "c.txt"
    corpus.write_text("Hon är läkare.\n", encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text("occupation,pct_female\nastronaut,20\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no occupation of the statistics matches"):
        ca.associate_corpus([corpus], "sv", stats=bad, workers=1, quiet=True)
