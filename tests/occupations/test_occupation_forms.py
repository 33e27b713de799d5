"""Form generation and lexicons: Swedish paradigms, Ukrainian lexemes, shared forms, names."""

from __future__ import annotations

import pandas as pd
import pytest

from winoscope.errors import DatasetError
from winoscope.languages.sv.morphology import swedish_name_forms, swedish_noun_forms
from winoscope.languages.uk.morphology import (
    apostrophe_variants,
    normalise_apostrophes,
    ukrainian_forms,
)
from winoscope.occupations.forms import case_variants, split_shared
from winoscope.occupations.lexicons import (
    generate_forms,
    load_lexicon,
    read_names_table,
    resolve_shared_names,
    select_names,
    stored_forms,
)


def forms(pairs: list[tuple[str, str]]) -> set[str]:
    return {f for f, _ in pairs}


@pytest.mark.parametrize(
    ("lemma", "paradigm", "expected"),
    [
        ("lärare", "are", {"lärare", "läraren", "lärarna", "lärares", "lärarens", "lärarnas"}),
        ("tekniker", "er", {"tekniker", "teknikern", "teknikerna", "teknikers", "teknikerns", "teknikernas"}),
        (
            "polis",
            "3",
            {"polis", "polisen", "poliser", "poliserna", "polisens", "polisers", "polisernas"},
        ),
        (
            "revisor",
            "or",
            {"revisor", "revisorn", "revisorer", "revisorerna", "revisors", "revisorns", "revisorers", "revisorernas"},
        ),
        (
            "sköterska",
            "a",
            {"sköterska", "sköterskan", "sköterskor", "sköterskorna", "sköterskas", "sköterskans", "sköterskors", "sköterskornas"},
        ),
        (
            "kommunalråd",
            "neut",
            {"kommunalråd", "kommunalrådet", "kommunalråden", "kommunalråds", "kommunalrådets", "kommunalrådens"},
        ),
        ("kassapersonal", "mass", {"kassapersonal", "kassapersonalen", "kassapersonals", "kassapersonalens"}),
        ("pojke", "e", {"pojke", "pojken", "pojkar", "pojkarna", "pojkes", "pojkens", "pojkars", "pojkarnas"}),
    ],
)  # fmt: skip
def test_swedish_paradigms_give_every_form_written_out(lemma, paradigm, expected):
    assert forms(swedish_noun_forms(lemma, paradigm)) == expected


def test_swedish_tags_and_extra_forms():
    got = dict(swedish_noun_forms("bror", "fixed", ["brodern", "bröder"]))
    assert got["bror"] == "sg.indef"
    assert got["bröder"] == "extra"
    assert got["broderns"] == "extra.gen"
    with pytest.raises(ValueError, match="paradigm"):
        swedish_noun_forms("x", "nope")


def test_swedish_name_genitive():
    assert swedish_name_forms("Anna") == [("Anna", "name"), ("Annas", "name.gen")]
    assert swedish_name_forms("Hans") == [("Hans", "name")]
    assert swedish_name_forms("Max") == [("Max", "name")]


def test_case_and_apostrophe_variants():
    assert case_variants("hon") == ["hon", "Hon", "HON"]
    assert case_variants("Inga", proper=True) == ["Inga", "INGA"]
    assert apostrophe_variants("Дар'я") == ["Дарʼя", "Дар'я", "Дар’я"]
    assert apostrophe_variants("лікар") == ["лікар"]
    # only apostrophes between letters are letters; quotes stay quotes
    assert normalise_apostrophes("'Дар’я' і сім'я") == "'Дарʼя' і сімʼя"


def test_ukrainian_forms_from_the_analyser():
    fem = forms(ukrainian_forms("лікарка", "femn"))
    assert {"лікарка", "лікарки", "лікарці", "лікарку", "лікаркою", "лікарок", "лікарками"} <= fem
    masc = forms(ukrainian_forms("лікар", "masc"))
    assert {"лікар", "лікаря", "лікареві", "лікарем", "лікарів"} <= masc
    assert not fem & masc
    # a masculine noun of the feminine declension keeps its own parse
    assert {"тесля", "теслі", "теслею"} <= forms(ukrainian_forms("тесля", "masc"))
    # names: capitalised, singular only, apostrophe as U+02BC
    darya = forms(ukrainian_forms("Дарʼя", "female", name=True, singular_only=True))
    assert {"Дарʼя", "Дарʼї", "Дарʼю"} <= darya
    assert all(f[0].isupper() for f in darya)
    with pytest.raises(ValueError, match="no masc noun parse"):
        ukrainian_forms("лікарка", "masc")


def test_split_shared_drops_forms_both_genders_claim():
    kept, dropped = split_shared(
        {
            "female": {"Олександра": {"Олександра"}, "Олександрою": {"Олександра"}},
            "male": {"Олександр": {"Олександр"}, "олександра": {"Олександр"}},
        }
    )
    assert set(kept["female"]) == {"Олександрою"}
    assert set(kept["male"]) == {"Олександр"}
    assert [d.form for d in dropped] == ["Олександра"]
    assert "Олександр (male)" in dropped[0].lemmas and "Олександра (female)" in dropped[0].lemmas


def test_stored_swedish_forms_equal_regenerated():
    stored, dropped = stored_forms("sv")
    fresh, fresh_dropped = generate_forms("sv")
    pd.testing.assert_frame_equal(
        stored.reset_index(drop=True), fresh.astype(stored.dtypes.to_dict()).reset_index(drop=True)
    )
    assert len(dropped) == len(fresh_dropped)


def test_stored_ukrainian_forms_equal_regenerated():
    stored, dropped = stored_forms("uk")
    fresh, fresh_dropped = generate_forms("uk")
    key = ["kind", "key", "lemma", "form"]
    assert sorted(map(tuple, stored[key].to_numpy().tolist())) == sorted(
        map(tuple, fresh[key].to_numpy().tolist())
    )
    assert sorted(dropped["form"]) == sorted(d.form for d in fresh_dropped)


def test_ukrainian_lexicon_drops_shared_and_excluded_forms():
    lx = load_lexicon("uk")
    col = lx.forms[lx.forms["kind"] == "collocate"]
    assert "Олександра" in set(lx.dropped["form"])  # genitive of Олександр, a woman's name
    assert "Олександра" not in set(col["form"])
    assert "Олександрою" in set(col[col["gender"] == "female"]["form"])
    assert "Олександром" in set(col[col["gender"] == "male"]["form"])
    assert "мати" not in set(col["form"])  # also the infinitive 'to have'
    assert "матері" in set(col["form"])
    assert {"вона", "її", "їй", "нею", "неї", "ній"} == set(
        col[col["set"] == "small"].query("gender == 'female'")["form"]
    )
    assert len(lx.occupations) == 40 and len(lx.lemmas) == 80
    occ = lx.forms[lx.forms["kind"] == "occupation"]
    assert set(occ[occ["key"] == "лікар"]["lemma"]) == {"лікар", "лікарка"}
    assert set(lx.forms["form"]) == {normalise_apostrophes(f) for f in lx.forms["form"]}


def test_swedish_lexicon_without_names_has_no_large_additions():
    lx = load_lexicon("sv")
    sizes = lx.set_sizes().set_index(["set", "gender"])
    assert sizes.loc[("large", "female"), "words"] == sizes.loc[("medium", "female"), "words"]
    assert "no names table" in lx.notes[0]
    assert len(lx.occupations) == 45
    col = lx.forms[lx.forms["kind"] == "collocate"]
    assert not {"man", "kvinna", "far", "hen"} & set(col["form"])
    assert set(col[col["set"] == "small"]["form"]) == {
        "hon",
        "henne",
        "hennes",
        "han",
        "honom",
        "hans",
    }


def test_swedish_names_table(shared_data):
    names = shared_data / "sv-names"
    table = read_names_table(names)
    assert set(table.columns) == {"name", "gender", "persons"}
    chosen, dropped = select_names(table, min_bearers=1000, min_share=0.9)
    # every chosen name has more than 1000 bearers of its gender ...
    assert (chosen["persons"] > 1000).all()
    # ... Kim (2,560 women, 8,356 men) votes for neither, Charlie (835 / 9,436) for men
    assert "Kim" not in set(chosen["name"])
    assert "Kim" in {d.form for d in dropped}
    assert chosen.set_index("name").loc["Charlie", "gender"] == "male"
    lx = load_lexicon("sv", names=names)
    col = lx.forms[lx.forms["kind"] == "collocate"]
    large = col[col["set"] == "large"]
    assert large["key"].nunique() > 1000
    assert large.set_index("form").loc["Inga", "homograph"]
    assert not large.set_index("form").loc["Anna", "homograph"]
    # Andreas is a man's name (43,896 bearers) and the genitive of Andrea, a woman's (4,679):
    # 90% of the bearers are men's, so it counts as male, and the decision is reported
    andreas = large[large["form"] == "Andreas"]
    assert andreas["gender"].tolist() == ["male"]
    reason = lx.dropped.set_index("form").loc["Andreas", "reason"]
    assert "kept as male" in reason and "4679" in reason and "43896" in reason
    # Anas (a man's name) and Ana's genitive: split bearers, so it counts for neither
    assert "Anas" not in set(large["form"])
    assert lx.dropped.set_index("form").loc["Anas", "reason"] == "shared by both genders"


def test_names_table_errors(tmp_path):
    bad = tmp_path / "names.csv"
    bad.write_text("name,gender,persons\nAnna,female,12\nErik,male,many\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        read_names_table(bad)
    assert (err.value.row, err.value.field) == (2, "persons")
    bad.write_text("name,gender,persons\nAnna,woman,12\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        read_names_table(bad)
    assert (err.value.row, err.value.field) == (1, "gender")
    with pytest.raises(DatasetError, match=r"lacks tilltalsnamn-kvinnor\.csv"):
        read_names_table(tmp_path)
    with pytest.raises(DatasetError, match="no lexicon"):
        load_lexicon("de")


def test_resolve_shared_names_by_bearers():
    columns = ["kind", "key", "lemma", "gender", "set", "form", "tag", "proper", "homograph"]
    forms = pd.DataFrame(
        [
            ("collocate", "Aa", "Aa", "female", "large", "Aas", "name.gen", True, False),
            ("collocate", "Aas", "Aas", "male", "large", "Aas", "name", True, False),
            ("collocate", "Bo", "Bo", "male", "large", "Bos", "name.gen", True, False),
            ("collocate", "Bos", "Bos", "female", "large", "Bos", "name", True, False),
            ("collocate", "son", "son", "male", "medium", "son", "sg.indef", False, False),
            ("collocate", "Son", "Son", "female", "large", "Son", "name", True, False),
            ("collocate", "x", "x", "female", "medium", "vard", "sg.indef", False, False),
            ("collocate", "y", "y", "male", "medium", "vard", "sg.indef", False, False),
        ],
        columns=columns,
    )
    bearers = {
        ("Aa", "female"): 100,
        ("Aas", "male"): 900,
        ("Bo", "male"): 899,
        ("Bos", "female"): 101,
        ("Son", "female"): 5000,
    }
    kept, report = resolve_shared_names(forms, bearers, min_share=0.9)
    # Aas: 900 / 1000 = 0.9 of the bearers are men's -> male; Bos: 899 / 1000 < 0.9 -> neither;
    # son: the male word and the female name Son are both kept (told apart by the scanner);
    # vard: two common words of different genders -> neither
    assert kept[["form", "gender"]].values.tolist() == [
        ["Aas", "male"],
        ["son", "male"],
        ["Son", "female"],
    ]
    reasons = {r.form: r.reason for r in report}
    assert sorted(reasons) == ["Aas", "Bos", "son", "vard"]
    assert "kept as male (100 women's and 900 men's" in reasons["Aas"]
    assert reasons["Bos"] == reasons["vard"] == "shared by both genders"
    assert "the name inside one" in reasons["son"]


def test_ukrainian_names_table_replaces_the_shipped_list(tmp_path):
    table = tmp_path / "names.csv"
    table.write_text(
        "name,gender,persons\nОлена,female,5000\nТарас,male,4000\nОлександра,female,3000\n"
        "Олександр,male,9000\nВіра,female,2000\nІван,male,10\n",
        encoding="utf-8",
    )
    lx = load_lexicon("uk", names=table, min_bearers=1000)
    large = lx.forms[(lx.forms["kind"] == "collocate") & (lx.forms["set"] == "large")]
    assert set(large["key"]) == {"Олена", "Тарас", "Олександра", "Олександр", "Віра"}
    assert {"Олену", "Оленою", "Тарасові"} <= set(large["form"])
    # the genitive of Олександр is the nominative of Олександра: dropped, and reported
    assert "Олександра" not in set(large["form"])
    assert "Олександра" in set(lx.dropped["form"])
    assert large.set_index("form").loc["Віра", "homograph"]  # also the word 'faith'
