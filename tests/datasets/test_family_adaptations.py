"""New adaptations of a family are declared, not coded: a ColumnMap (card column -> family field,
language code, sample) onto the one WinoBias / WinoPron record family and its one load()."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from helpers_http import serve_folder
from winoscope.datasets.loading import ColumnMap, load_tables
from winoscope.datasets.schema import OCCUPATION_COLUMNS
from winoscope.errors import DatasetError
from winoscope.families.winobias.bracket_format import ENGLISH_PRONOUNS, BracketFormat
from winoscope.families.winobias.dataset import UK, WinoBias, bracket_adaptation
from winoscope.families.winopron.dataset import CONFIGS, WinoPron
from winoscope.families.winopron.dataset import UK as WINOPRON_UK
from winoscope.languages import Language

# a made-up card: the WinoBias-UK Natural layout with its own names for some columns; the
# others are named like the family's table columns for language "da" (sentence_da ...)
CARD_NAMES = {
    "tekst": "sentence",
    "tekst_markeret": "sentence_annotated",
    "erhverv": "target_occupation",
    "andet_erhverv": "other_occupation",
}


def _card_csv(path: Path) -> pd.DataFrame:
    """The bundled sample's first item (six variants) in the made-up card's columns."""
    uk = pd.read_csv(UK.sample_path(), dtype=str, keep_default_na=False)
    keep = (uk["item_number"] == "1") & (uk["split"] == "validation") & (uk["type"] == "type1")
    first = uk[keep].copy()
    reverse = {f"{fam}_uk": card for card, fam in CARD_NAMES.items()}
    renamed = first.rename(columns=lambda c: reverse.get(c, c.replace("_uk", "_da")))
    renamed.to_csv(path, index=False)
    return first


def test_winobias_adaptation_from_a_column_map_alone(tmp_path: Path) -> None:
    first = _card_csv(tmp_path / "sample.csv")
    da = WinoBias(
        ColumnMap("winobias-da", "da", columns=CARD_NAMES, sample=tmp_path / "sample.csv")
    )
    ds = da.load()
    t = ds.table
    assert (ds.family, ds.name, ds.is_sample, ds.source.kind) == (
        "winobias-da",
        "winobias-da sample",
        True,
        "sample",
    )
    assert da.col("sentence") == "sentence_da" and "sentence_da" in t.columns
    assert list(t["sentence_da"]) == list(first["sentence_uk"])
    assert list(t["target_occupation_da"]) == ["розробник"] * 6
    assert list(t["row_id"]) == [f"validation/type1/1/{v}" for v in first["variant"]]
    assert str(t["variant"].dtype) == "category"
    assert da.validate(ds) == []  # the card's structural checks, named in the new language
    # the same declaration reads a file (and would read a hub id) through the same dispatch
    from_file = da.load(tmp_path / "sample.csv")
    assert from_file.table_sha256() == ds.table_sha256()
    assert (from_file.source.kind, from_file.name) == ("file", "sample.csv")
    broken = pd.read_csv(tmp_path / "sample.csv", dtype=str, keep_default_na=False)
    broken.loc[0, "tekst"] = "Інше речення."
    broken.to_csv(tmp_path / "broken.csv", index=False)
    found = [i.format() for i in da.validate(da.load(tmp_path / "broken.csv"))]
    assert (
        "[annotation] row 1, item validation/type1/1: removing the square brackets from "
        "sentence_annotated_da does not give sentence_da" in found
    )


def test_missing_or_clashing_card_columns_are_named(tmp_path: Path) -> None:
    _card_csv(tmp_path / "sample.csv")
    raw = pd.read_csv(tmp_path / "sample.csv", dtype=str, keep_default_na=False)
    raw.drop(columns=["tekst"]).to_csv(tmp_path / "missing.csv", index=False)
    da = WinoBias(ColumnMap("winobias-da", "da", columns=CARD_NAMES))
    with pytest.raises(DatasetError, match=r"missing column\(s\) sentence_da") as err:
        da.load(tmp_path / "missing.csv")
    assert "missing.csv" in str(err.value)
    raw.assign(sentence_da="x").to_csv(tmp_path / "clash.csv", index=False)
    with pytest.raises(DatasetError, match="'tekst' maps to 'sentence_da', which the table"):
        da.load(tmp_path / "clash.csv")
    with pytest.raises(DatasetError, match="no bundled sample"):
        da.load()


def test_winopron_adaptation_from_a_column_map_alone(tmp_path: Path) -> None:
    names = {"satz": "sentence", "aufforderung": "prompt"}
    for config in CONFIGS:
        frame = pd.read_csv(WINOPRON_UK.sample_path(config), dtype=str, keep_default_na=False)
        frame = frame.rename(columns={"sentence_uk": "satz", "prompt_uk": "aufforderung"})
        frame.rename(columns=lambda c: c.replace("_uk", "_de")).to_csv(
            tmp_path / f"{config}.csv", index=False
        )
    de = WinoPron(
        ColumnMap(
            "winopron-de",
            "de",
            columns=names,
            sample={c: tmp_path / f"{c}.csv" for c in CONFIGS},
        )
    )
    ds = de.load()
    ref = WINOPRON_UK.load()
    assert ds.name == "winopron-de sample" and ds.is_sample and ds.lang == "de"
    assert list(ds.table["sentence_de"]) == list(ref.table["sentence_uk"])
    assert ds.prompts is not None and list(ds.prompts["prompt_de"]) == list(
        ref.prompts["prompt_uk"]
    )
    assert de.validate(ds) == []  # structural checks; the Ukrainian ones are WinoPron-UK's
    # a folder of the configuration files is the same data
    folder = de.load(tmp_path)
    assert folder.table_sha256() == ds.table_sha256() and folder.source.kind == "file"


DANISH_LISTS = {
    "male_occupations.txt": "tømreren\nmekanikeren\n",
    "female_occupations.txt": "sekretæren\nsygeplejersken\n",
}
DANISH_LINES = {
    "pro_stereotyped_type1.txt.dev": (
        "1 [Tømreren] ringede til sekretæren, fordi [han] var forsinket.\n"
        "2 Mekanikeren hjalp [sygeplejersken], fordi [hun] bad om det.\n"
    ),
    "anti_stereotyped_type1.txt.dev": (
        "1 [Tømreren] ringede til sekretæren, fordi [hun] var forsinket.\n"
        "2 Mekanikeren hjalp [sygeplejersken], fordi [han] bad om det.\n"
    ),
}
DANISH_LANGUAGE = Language(
    "da",
    "Danish",
    pronouns={
        ("male", "nom"): ("han",),
        ("male", "acc"): ("ham",),
        ("male", "poss"): ("hans",),
        ("female", "nom"): ("hun",),
        ("female", "acc"): ("hende",),
        ("female", "poss"): ("hendes",),
    },
    determiners=(),  # Danish marks definiteness with a suffix: the lists hold tømreren
)
DANISH = BracketFormat.for_language(DANISH_LANGUAGE, splits={"dev": "validation"}, types=("type1",))


def test_bracket_format_takes_the_language_facts() -> None:
    assert BracketFormat.for_language("en").pronouns == ENGLISH_PRONOUNS
    assert DANISH.pronouns["hende"] == "female" and DANISH.determiners == ()


def test_bracket_adaptation_in_another_language(tmp_path: Path) -> None:
    for name, text in {**DANISH_LISTS, **DANISH_LINES}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    da = bracket_adaptation(ColumnMap("winobias-da", "da", sample=tmp_path), DANISH)
    ds = da.load()
    t = ds.table
    assert ds.is_sample and ds.source.kind == "sample" and len(t) == 4
    assert list(t["target_occupation_da"]) == ["tømreren", "sygeplejersken"] * 2
    assert list(t["other_occupation_da"]) == ["sekretæren", "mekanikeren"] * 2
    assert list(t["pronoun_gender"]) == ["male", "female", "female", "male"]
    assert list(t["variant"]) == ["mm", "ff", "ff", "mm"]
    assert list(t["row_id"]) == [
        "validation/type1/1/pro",
        "validation/type1/2/pro",
        "validation/type1/1/anti",
        "validation/type1/2/anti",
    ]
    assert t["pair_matched"].all()
    assert da.validate(ds) == []
    # what a task reads from a loader: where the data comes from and its review status
    assert da.hub_id is None and da.review_status == ""
    assert Path(da.source_text) == tmp_path
    assert UK.hub_id == UK.source_text == "FairForget/WinoBias-UK-Natural"
    (tmp_path / "anti_stereotyped_type1.txt.dev").write_text(
        DANISH_LINES["anti_stereotyped_type1.txt.dev"].replace("[hun] var", "[han] var"),
        encoding="utf-8",
    )
    found = [i.format() for i in da.validate(da.load(tmp_path))]
    assert found == [
        "[condition] row 3, item validation/type1/1: anti sentence but the male pronoun "
        "matches the male stereotype of 'tømreren'"
    ]


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    root = tmp_path / "www"
    root.mkdir()
    with serve_folder(root) as url:
        yield root, url


def test_one_dispatch_reads_a_table_over_http(served: tuple[Path, str], tmp_path: Path) -> None:
    root, url = served
    _card_csv(root / "card.csv")
    da = WinoBias(ColumnMap("winobias-da", "da", columns=CARD_NAMES))
    remote = da.load(f"{url}/card.csv")
    local = da.load(root / "card.csv")
    assert remote.table_sha256() == local.table_sha256()
    assert remote.source.kind == "url" and remote.source.sha256 == local.source.sha256
    with pytest.raises(DatasetError, match="cannot download"):
        load_tables(f"{url}/absent.csv", ColumnMap("x", "da"))
    with pytest.raises(DatasetError, match="no such file"):
        load_tables(tmp_path / "absent.parquet", ColumnMap("x", "da"))


def test_occupation_columns_prefer_the_canonical_occupation() -> None:
    # SweWinogender's lemma, then a canonical occupation before its gendered surface form
    assert OCCUPATION_COLUMNS.index("occupation_participant") == 0
    assert OCCUPATION_COLUMNS.index("occupation_group_uk") < OCCUPATION_COLUMNS.index(
        "occupation_uk"
    )
    assert OCCUPATION_COLUMNS.index("occupation_group_en") < OCCUPATION_COLUMNS.index(
        "occupation_en"
    )
