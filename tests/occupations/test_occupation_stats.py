"""Occupation statistics: summing mapped categories before the ratio, zones, the SweWinogender
auxiliary format (built here) and Winogender's occupations-stats.tsv (real file)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from winoscope.errors import DatasetError
from winoscope.occupations import stats as st
from winoscope.occupations.official_tables import read_real_world
from winoscope.occupations.shares import classify, statistic_columns

OFFICIAL = pd.DataFrame(
    {
        "occupation": ["förskollärare", "gymnasielärare", "snickare", "sjuksköterska", "präst"],
        "women": ["90", "30", "2", "880", "5"],
        "men": ["10", "30", "98", "120", "5"],
        "source": ["SCB"] * 5,
        "year": ["2019", "2019", "2019", "2020", "2019"],
    }
)
MAPPING = {
    "förskollärare": "lärare",
    "gymnasielärare": "lärare",
    "snickare": "snickare",
    "sjuksköterska": "sköterska",
}


def test_counts_are_summed_before_the_ratio() -> None:
    out = read_real_world(OFFICIAL, mapping=MAPPING).set_index("occupation")
    # (90 + 30) / (90 + 10 + 30 + 30) = 0.75, not the mean of 0.9 and 0.5
    assert out.loc["lärare", "real_world"] == pytest.approx(120 / 160)
    assert (out.loc["lärare", "women"], out.loc["lärare", "men"]) == (120, 40)
    assert out.loc["lärare", "n_categories"] == 2
    assert out.loc["lärare", "categories"] == "förskollärare; gymnasielärare"
    assert out.loc["snickare", "real_world"] == pytest.approx(0.02)
    assert out.loc["sköterska", "year"] == "2020" and out.loc["sköterska", "source"] == "SCB"
    assert [out.loc[o, "zone"] for o in ("snickare", "lärare", "sköterska")] == [
        "male-dominated",
        "female-dominated",
        "female-dominated",
    ]
    assert out.attrs["unmapped"] == ["präst"]  # not a dataset occupation: left out, reported
    assert statistic_columns(out) == ["real_world"]


def test_mapping_from_a_file_and_its_errors(tmp_path: Path) -> None:
    path = tmp_path / "map.csv"
    path.write_text("category,occupation\nförskollärare,lärare\ngymnasielärare,lärare\n", "utf-8")
    out = read_real_world(OFFICIAL, mapping=path)
    assert list(out["occupation"]) == ["lärare"]
    path.write_text("category,occupation\nsnickare,snickare\nsnickare,byggare\n", "utf-8")
    with pytest.raises(DatasetError) as exc:
        read_real_world(OFFICIAL, mapping=path)
    assert (exc.value.row, exc.value.field) == (2, "occupation")
    with pytest.raises(DatasetError, match="lacks: rörmokare"):
        read_real_world(OFFICIAL, mapping={"rörmokare": "rörmokare"})


def test_percentages_cannot_be_summed_unless_mean_is_asked_for() -> None:
    pct = pd.DataFrame(
        {"occupation": ["förskollärare", "gymnasielärare"], "pct_female": ["90", "50"]}
    )
    with pytest.raises(DatasetError, match="no counts to sum"):
        read_real_world(pct, mapping={"förskollärare": "lärare", "gymnasielärare": "lärare"})
    out = read_real_world(
        pct, mapping={"förskollärare": "lärare", "gymnasielärare": "lärare"}, percent_combine="mean"
    )
    assert out["real_world"].iloc[0] == pytest.approx(0.7)
    assert out["women"].isna().all()
    single = read_real_world(pct)
    assert list(single["real_world"]) == [pytest.approx(0.9), pytest.approx(0.5)]


@pytest.mark.parametrize(
    ("frame", "row", "field"),
    [
        (OFFICIAL.assign(women=["90", "x", "2", "880", "5"]), 2, "women"),
        (OFFICIAL.assign(men=["10", "30", "-1", "120", "5"]), 3, "men"),
        (
            OFFICIAL.assign(women=["90", "30", "0", "880", "5"], men=["10", "30", "0", "1", "5"]),
            3,
            "women",
        ),
        (pd.DataFrame({"occupation": ["a", "b"], "pct_female": ["50", "140"]}), 2, "pct_female"),
        (
            pd.DataFrame({"occupation": ["a", "a"], "women": ["1", "1"], "men": ["1", "1"]}),
            2,
            "occupation",
        ),
    ],
)
def test_bad_official_rows_name_row_and_field(frame: pd.DataFrame, row: int, field: str) -> None:
    with pytest.raises(DatasetError) as exc:
        read_real_world(frame, source_name="scb.csv")
    assert (exc.value.file, exc.value.row, exc.value.field) == ("scb.csv", row, field)


def test_zone_bounds() -> None:
    assert classify(1 / 3) == "neutral" and classify(2 / 3) == "neutral"
    assert classify(1 / 3 - 1e-9) == "male-dominated"
    assert classify(2 / 3 + 1e-9) == "female-dominated"
    assert classify(0.0) == "male-dominated" and classify(1.0) == "female-dominated"
    assert classify(float("nan")) is None


AUX = [
    ("lärare", "75.0", "30.5", "35.0", "41.25"),
    ("snickare", "2", "8", "10", "12"),
    ("sköterska", "88", "55", "60", "64"),
]


def _aux(tmp_path: Path, header: bool, rows=AUX) -> Path:
    lines = (["yrke\tscb\tsmall\tmedium\tlarge"] if header else []) + ["\t".join(r) for r in rows]
    path = tmp_path / ("aux_h.tsv" if header else "aux.tsv")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("header", [True, False])
def test_swewinogender_aux_reader(tmp_path: Path, header: bool) -> None:
    out = st.read_swewinogender_aux(_aux(tmp_path, header)).set_index("occupation")
    assert list(out.index) == ["lärare", "snickare", "sköterska"]
    assert out.loc["lärare", "scb"] == pytest.approx(0.75)
    assert out.loc["lärare", "corpus_large"] == pytest.approx(0.4125)
    assert out.loc["snickare", "corpus_small"] == pytest.approx(0.08)
    assert list(out["zone"]) == ["female-dominated", "male-dominated", "female-dominated"]
    assert statistic_columns(out) == ["scb", "corpus_small", "corpus_medium", "corpus_large"]
    assert st.load_statistics(_aux(tmp_path, header))["scb"].tolist() == list(out["scb"])


def test_aux_reader_errors(tmp_path: Path) -> None:
    bad = [*AUX[:1], ("snickare", "2", "8", "tio", "12")]
    with pytest.raises(DatasetError) as exc:
        st.read_swewinogender_aux(_aux(tmp_path, True, bad))
    assert (exc.value.row, exc.value.field) == (2, "corpus_medium")
    short = [*AUX[:2], ("sköterska", "88", "55")]
    with pytest.raises(DatasetError) as exc:
        st.read_swewinogender_aux(_aux(tmp_path, False, short))
    assert exc.value.row == 3
    fractions = [(o, "0.5", "0.2", "0.3", "0.4") for o in ("a", "b", "c")]
    with pytest.raises(DatasetError, match="look like fractions"):
        st.read_swewinogender_aux(_aux(tmp_path, False, fractions))
    out = st.read_swewinogender_aux(_aux(tmp_path, False, fractions), scale="fraction")
    assert out["scb"].tolist() == [0.5, 0.5, 0.5]


def test_winogender_occupation_stats_real_file(shared_data: Path) -> None:
    path = shared_data / "winogender-en" / "occupations-stats.tsv"
    out = st.load_statistics(path)
    raw = pd.read_csv(path, sep="\t")
    assert len(out) == len(raw) == 60
    row = out.set_index("occupation").loc["technician"]
    assert (row["bergsma"], row["bls"], row["bls_year"]) == (
        pytest.approx(0.0942),
        pytest.approx(0.4034),
        2015,
    )
    expected = [
        "male-dominated" if p < 100 / 3 else "female-dominated" if p > 200 / 3 else "neutral"
        for p in raw["bls_pct_female"]
    ]
    assert list(out["zone"]) == expected
    assert statistic_columns(out) == ["bergsma", "bls"]


def test_load_statistics_official_table_with_mapping(tmp_path: Path) -> None:
    table = tmp_path / "scb.csv"
    OFFICIAL.to_csv(table, index=False)
    mapping = tmp_path / "map.csv"
    pd.DataFrame({"category": list(MAPPING), "occupation": list(MAPPING.values())}).to_csv(
        mapping, index=False
    )
    out = st.load_statistics(table, mapping=mapping).set_index("occupation")
    assert out.loc["lärare", "real_world"] == pytest.approx(0.75)
    with pytest.raises(DatasetError, match="official tables only"):
        st.load_statistics(_aux(tmp_path, True), mapping=mapping)
