"""Corpus scanning: hand-counted corpora, word boundaries and positions, occupation-only scans
and real treebanks against an independent count."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scan_corpora import LARGE, MEDIUM, SMALL, SV_TEXT, F, M, N, T, names_lexicon

from winoscope.occupations.lexicons import load_lexicon
from winoscope.occupations.scan import (
    build_spec,
    count_block,
    count_block_occupations,
    read_conllu,
    scan_corpus,
)


@pytest.fixture(scope="module")
def sv_spec():
    return build_spec(load_lexicon("sv"))


@pytest.fixture(scope="module")
def sv_lexicon_names(tmp_path_factory):
    return names_lexicon(tmp_path_factory.mktemp("names"))


@pytest.fixture(scope="module")
def sv_names_spec(sv_lexicon_names):
    return build_spec(sv_lexicon_names)


@pytest.fixture(scope="module")
def uk_spec():
    return build_spec(load_lexicon("uk"))


def occ(spec, lexicon, name):
    return lexicon.occupations.index(name)


# line 1: small F2 (hon, hennes) M0 -> F; medium + bror: F2 M1 -> F; large same -> F
# line 2: 1:1 in every set -> tie
# line 3: no collocate -> none
# line 4: "Inga" opening the sentence is 'no' (ignored); inside: Inga F, Per M -> large tie
# line 5: opening "Hans" is the pronoun (small, M); "bror" medium M; inner "Hans" the name
#         -> small M1, medium M2, large M3
# line 6: Hon (small F), fru (medium F) -> F everywhere
# line 7: HON (upper case) F; HONA is another word -> F everywhere
# line 8: Kim is both genders' name (dropped), Eva below 1000 bearers, Annas = Anna's -> large F
SV_TOTALS = [
    [3, 1, 1, 3],  # small: F lines 1 6 7; M line 5; tie 2; none 3 4 8
    [3, 1, 1, 3],
    [4, 1, 2, 1],  # large: F 1 6 7 8; M 5; tie 2 4; none 3
]


def test_hand_counted_swedish_corpus(sv_lexicon_names, sv_names_spec):
    c = count_block(sv_names_spec, SV_TEXT.encode())
    assert c.lines == 8
    assert c.totals.tolist() == SV_TOTALS
    o = {
        name: c.occupation[sv_lexicon_names.occupations.index(name)].tolist()
        for name in ("läkare", "polis", "lärare")
    }
    # läkare: lines 1 (F), 2 (tie), 3 (none), 4 (none | none | tie), 8 (none | none | F)
    assert o["läkare"] == [[1, 0, 1, 3], [1, 0, 1, 3], [2, 0, 2, 1]]
    assert o["polis"] == [[1, 0, 0, 0]] * 3
    # lärare: line 5 (M), 6 (F, as "Lärarnas"), 7 (F, as "LÄRAREN")
    assert o["lärare"] == [[2, 1, 0, 0]] * 3
    # collocate tokens by gender and the set that adds them
    # female: small hon hennes hon Hon HON = 5; medium fru = 1; large Inga Annas = 2
    # male: small Han Hans = 2; medium bror bror = 2; large Per Hans = 2
    assert c.hits.tolist() == [[5, 1, 2], [2, 2, 2]]
    assert c.bytes == len(SV_TEXT.encode())


def test_occupation_only_scan_gives_the_same_occupation_counts(sv_names_spec):
    full = count_block(sv_names_spec, SV_TEXT.encode())
    only = count_block_occupations(sv_names_spec, SV_TEXT.encode())
    assert np.array_equal(full.occupation, only.occupation)
    assert np.array_equal(full.lemma, only.lemma)
    assert not only.full and only.totals.sum() == 0
    assert only.lines == full.lines


@pytest.mark.parametrize(
    ("line", "female", "male"),
    [
        ("hona honom", 0, 1),  # prefix of a longer word is no match
        ("Honduras, hon.", 1, 0),
        ("(hon)", 1, 0),
        ("hon_x hon2", 0, 0),  # underscore and digits are word characters
        ("mamma-hon", 1, 0),  # hyphen separates (mamma is medium; small counts hon)
        ("«hon» — han…", 1, 1),  # non-ASCII punctuation separates
        ("hänhon", 0, 0),  # a non-ASCII letter before the match joins it
        ("honä", 0, 0),
        ("Han", 0, 1),
        ("", 0, 0),
    ],
)
def test_word_boundaries_on_raw_bytes(sv_spec, line, female, male):
    c = count_block(sv_spec, (line + "\n").encode())
    assert c.hits[:, SMALL].tolist() == [female, male]


def test_ukrainian_apostrophes_and_quotes(uk_spec):
    lines = [
        "Дар'я прийшла.",  # ASCII apostrophe
        "Дар’я прийшла.",  # right single quotation mark
        "Дарʼя прийшла.",  # modifier letter apostrophe
        "з'її",  # apostrophe between letters: її is inside a word
        "'її' — сказав він.",  # quotes: її is a word; він too
        "«Вона» прийшла до лікарки.",
    ]
    c = count_block(uk_spec, ("\n".join(lines) + "\n").encode())
    # female: 3 x Дарʼя (large), її and Вона (small); male: він (small)
    assert c.hits.tolist() == [[2, 0, 3], [1, 0, 0]]
    assert c.totals[SMALL].tolist() == [1, 0, 1, 4]  # line 6 F; line 5 tie; others none
    assert c.totals[LARGE].tolist() == [4, 0, 1, 1]
    lx = load_lexicon("uk")
    assert c.occupation[lx.occupations.index("лікар")].tolist() == [[1, 0, 0, 0]] * 3
    lem = c.lemma[lx.lemmas.index(("лікар", "лікарка"))]
    assert lem.tolist() == [[1, 0, 0, 0]] * 3


def test_ukrainian_shared_form_votes_for_neither(uk_spec):
    # "Олександра" is a woman's name and the genitive of "Олександр": it is dropped
    c = count_block(uk_spec, "Ми бачили Олександра.\nОлександрою.\nОлександром.\n".encode())
    assert c.hits[:, LARGE].tolist() == [1, 1]
    assert c.totals[LARGE].tolist() == [1, 1, 0, 1]


_TOKEN = re.compile(r"\w+(?:['’ʼ]\w+)*")


def reference_counts(
    lexicon, sentences: list[str], max_set: int
) -> tuple[list[int], dict[str, list[int]]]:
    """Independent count with a Python tokeniser and dictionary lookups (sets up to medium, whose
    forms are single words): classes per set and per occupation for set ``max_set``."""
    col = lexicon.forms[lexicon.forms["kind"] == "collocate"]
    col = col[col["set"].isin(["small", "medium"][: max_set + 1])]
    gender_of = {}
    for form, gender in zip(col["form"], col["gender"], strict=True):
        for v in (form.lower(), form[:1].upper() + form[1:].lower(), form.upper()):
            gender_of[v] = gender
    occ = lexicon.forms[lexicon.forms["kind"] == "occupation"]
    occ_of = {}
    for form, key in zip(occ["form"], occ["key"], strict=True):
        for v in (form.lower(), form[:1].upper() + form[1:].lower(), form.upper()):
            occ_of[v] = key
    totals = [0, 0, 0, 0]
    per_occ: dict[str, list[int]] = {}
    for s in sentences:
        tokens = [t.replace("'", "ʼ").replace("’", "ʼ") for t in _TOKEN.findall(s)]
        f = sum(gender_of.get(t) == "female" for t in tokens)
        m = sum(gender_of.get(t) == "male" for t in tokens)
        cls = F if f > m else M if m > f else T if f else N
        totals[cls] += 1
        for key in {occ_of[t] for t in tokens if t in occ_of}:
            per_occ.setdefault(key, [0, 0, 0, 0])[cls] += 1
    return totals, per_occ


@pytest.mark.parametrize(("lang", "treebank"), [("sv", "sv_talbanken"), ("uk", "uk_iu")])
def test_ud_treebanks_match_an_independent_count(shared_data, lang, treebank):
    files = sorted((shared_data / "corpora").glob(f"*{treebank}*.conllu"))
    assert len(files) == 2
    lexicon = load_lexicon(lang)
    spec = build_spec(lexicon)
    counts = scan_corpus(spec, files)
    sentences = [
        b.decode() for f in files for block in read_conllu(str(f)) for b in block.splitlines()
    ]
    assert counts.lines == len(sentences) == {"sv": 1723, "uk": 1571}[lang]
    for k in (SMALL, MEDIUM):
        totals, per_occ = reference_counts(lexicon, sentences, k)
        if lang == "sv":
            # "Hans" inside a sentence is a name, not the pronoun: the reference cannot tell
            hans = [s for s in sentences if re.search(r"\S.*\bHans\b", s)]
            assert not hans
        assert counts.totals[k].tolist() == totals
        for key, row in per_occ.items():
            assert counts.occupation[lexicon.occupations.index(key), k].tolist() == row, key
        seen = {lexicon.occupations[i] for i in np.flatnonzero(counts.occupation[:, k].sum(axis=1))}
        assert seen == set(per_occ)
    assert counts.totals[SMALL, F] + counts.totals[SMALL, M] > 70


def test_word_and_name_of_different_genders_told_apart_by_position(tmp_path):
    # "son" is a male word; suppose a woman's name Son: lower case and sentence-initial
    # capitals are the word, a capital inside a sentence is the name
    names = tmp_path / "names.csv"
    names.write_text("name,gender,persons\nSon,female,5000\n", encoding="utf-8")
    lexicon = load_lexicon("sv", names=names)
    assert "son" in set(lexicon.dropped["form"].str.lower())  # reported ...
    spec = build_spec(lexicon)
    assert not spec.conflicts
    c = count_block(spec, b"Son kom hem.\nHans son kom.\nSedan kom Son.\nSONEN kom.\n")
    # female: Son (line 3, large); male: Son (line 1), son (line 2), SONEN (line 4) medium,
    # and Hans (line 2, the pronoun at the start)
    assert c.hits.tolist() == [[0, 0, 1], [1, 3, 0]]
    assert c.totals[LARGE].tolist() == [1, 3, 0, 0]
