"""CoNLL metrics on the English WinoBias CoNLL files: gold-as-system and perturbed systems.

Each perturbation is scored twice: by the scorer, and by the metric definitions written out
here independently for a key with one entity (every WinoBias document has exactly one: the
referent with its pronoun, sometimes a second pronoun). The small-document values are worked
out by hand.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from winoscope.datasets.conll import ConllDocument, read_conll, write_conll
from winoscope.families.winobias.conll_key import (
    CONDITIONS,
    SPLITS,
    TYPES,
    _find_occupation,
    _occupations,
    file_name,
)
from winoscope.scoring.coref_metrics import score_corpus, score_document

Span = tuple[int, int]


def conll_dir(shared: Path) -> Path:
    return shared / "winobias-en" / "conll_format"


# --- perturbed systems ----------------------------------------------------------------------


def swapped(key: list[Span], other: Span) -> list[list[Span]]:
    """The pronoun(s) linked to the other occupation instead of the referent."""
    return [[other, *key[1:]]]


def dropped(key: list[Span], other: Span) -> list[list[Span]]:
    """The evaluated pronoun left out (the rest of the entity kept)."""
    return [[key[0], *key[2:]]]


def extra(key: list[Span], other: Span) -> list[list[Span]]:
    """The other occupation added to the entity."""
    return [[*key, other]]


SYSTEMS = {"swapped_antecedent": swapped, "dropped_pronoun": dropped, "extra_mention": extra}


# --- the definitions for one key entity, written out independently ------------------------


def muc_def(key: list[Span], resp: list[list[Span]]) -> tuple[F, int, F, int]:
    """Vilain et al.: recall = (|K| - |p(K)|) / (|K| - 1), p(K) = K's parts cut by the response
    (an unmatched mention is a part of its own); precision the same with roles swapped."""
    k = set(key)
    parts_k = sum(1 for r in resp if k & set(r)) + sum(
        1 for m in k if not any(m in r for r in resp)
    )
    rec_num = len(k) - parts_k
    prec_num = sum(len(r) - ((1 if k & set(r) else 0) + len(set(r) - k)) for r in resp)
    return F(rec_num), len(k) - 1, F(prec_num), sum(len(r) - 1 for r in resp)


def b3_def(key: list[Span], resp: list[list[Span]]) -> tuple[F, int, F, int]:
    """Bagga & Baldwin as written for predicted mentions (Pradhan et al. 2014):
    recall = sum_R |K & R|^2 / |K| over key mentions, precision = sum_R |K & R|^2 / |R| over
    response mentions (a key mention the response lacks adds nothing)."""
    k = set(key)
    rec = sum((F(len(k & set(r)), len(k)) * len(k & set(r)) for r in resp), F(0))
    prec = sum((F(len(k & set(r)), len(r)) * len(k & set(r)) for r in resp), F(0))
    return rec, len(k), prec, sum(len(r) for r in resp)


def ceafe_def(key: list[Span], resp: list[list[Span]]) -> tuple[F, int, F, int]:
    """Luo: with one key entity the best alignment takes the response entity of highest phi4."""
    k = set(key)
    best = max((F(2 * len(k & set(r)), len(k) + len(r)) for r in resp), default=F(0))
    return best, 1, best, len(resp)


def add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def rpf(c: tuple) -> tuple[float, float, float]:
    r = c[0] / c[1] if c[1] else F(0)
    p = c[2] / c[3] if c[3] else F(0)
    f = 2 * r * p / (r + p) if r + p else F(0)
    return float(r), float(p), float(f)


# --- hand-worked: one document "[The developer] argued with the designer because [he] ..." ---

KEY = [(0, 1), (7, 7)]
OTHER = (4, 5)
HAND = {
    # MUC: the one response link is wrong. B3: the pronoun keeps itself of 2 (1/2) in recall and
    # precision, the designer scores 0: 1/4 both. CEAF-e: phi4({dev,he},{designer,he}) = 2/4.
    "swapped_antecedent": {"muc": (0, 0, 0), "bcub": (0.25, 0.25, 0.25), "ceafe": (0.5, 0.5, 0.5)},
    # MUC: no response link: R = 0/1, P = 0/0 = 0. B3: R = (1/2)/2, P = 1/1, F = 0.4.
    # CEAF-e: phi4({dev,he},{dev}) = 2/3 over one entity each side.
    "dropped_pronoun": {"muc": (0, 0, 0), "bcub": (0.25, 1.0, 0.4), "ceafe": (2 / 3, 2 / 3, 2 / 3)},
    # MUC: key link kept (R = 1), one of two response links right (P = 1/2). B3: R = 1;
    # P = (2/3 + 2/3 + 0)/3 = 4/9, F = 8/13. CEAF-e: phi4 = 4/5.
    "extra_mention": {
        "muc": (1.0, 0.5, 2 / 3),
        "bcub": (1.0, 4 / 9, 8 / 13),
        "ceafe": (0.8, 0.8, 0.8),
    },
}


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_hand_worked_small_document(system: str) -> None:
    s = score_document([KEY], SYSTEMS[system](KEY, OTHER))
    want = HAND[system]
    for metric in ("muc", "bcub", "ceafe"):
        assert s.rpf(metric) == pytest.approx(want[metric], abs=1e-12), metric
    assert s.conll_f1 == pytest.approx(sum(want[m][2] for m in want) / 3, abs=1e-12)
    # and the written-out definitions agree with the hand values
    resp = SYSTEMS[system](KEY, OTHER)
    for metric, fn in (("muc", muc_def), ("bcub", b3_def), ("ceafe", ceafe_def)):
        assert rpf(fn(KEY, resp)) == pytest.approx(want[metric], abs=1e-12)


def test_gold_as_system_small_document() -> None:
    s = score_document([KEY], [KEY])
    assert s.conll_f1 == 1.0


# --- whole files -----------------------------------------------------------------------------


def _files(shared: Path) -> list[Path]:
    return [
        conll_dir(shared) / file_name(sp, ty, co)
        for sp in SPLITS
        for ty in TYPES
        for co in CONDITIONS
    ]


@pytest.fixture(scope="module")
def winobias_docs(shared_data: Path) -> dict[str, list[ConllDocument]]:
    return {p.name: read_conll(p) for p in _files(shared_data)}


def test_gold_as_system_is_100_on_every_file(winobias_docs: dict[str, list[ConllDocument]]) -> None:
    assert len(winobias_docs) == 8
    for name, docs in winobias_docs.items():
        assert len(docs) == 396, name
        key = {d.name: d.clusters for d in docs}
        s = score_corpus(key, key)
        for metric in ("muc", "bcub", "ceafm", "ceafe", "blanc", "mentions"):
            assert s.rpf(metric) == (1.0, 1.0, 1.0), (name, metric)
        assert s.conll_f1 == 1.0


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_perturbed_systems_match_the_definitions(
    system: str, winobias_docs: dict[str, list[ConllDocument]], shared_data: Path
) -> None:
    occupations = _occupations(conll_dir(shared_data))
    for name, docs in winobias_docs.items():
        key, resp = {}, {}
        want = {"muc": (F(0), 0, F(0), 0), "bcub": (F(0), 0, F(0), 0), "ceafe": (F(0), 0, F(0), 0)}
        for d in docs:
            (entity,) = d.clusters
            k = sorted(entity)
            taken = {t for s, e in k for t in range(s, e + 1)}
            occ = _find_occupation(d.tokens, taken, occupations)
            assert occ is not None, d.name
            r = SYSTEMS[system](k, (occ[0], occ[1]))
            key[d.name], resp[d.name] = [k], r
            want["muc"] = add(want["muc"], muc_def(k, r))
            want["bcub"] = add(want["bcub"], b3_def(k, r))
            want["ceafe"] = add(want["ceafe"], ceafe_def(k, r))
        s = score_corpus(key, resp)
        for metric, counts in want.items():
            assert s.rpf(metric) == pytest.approx(rpf(counts), abs=1e-12), (name, metric)


def test_missing_documents_count_as_misses(winobias_docs: dict[str, list[ConllDocument]]) -> None:
    docs = winobias_docs["dev_type1_pro_stereotype.v4_auto_conll"]
    key = {d.name: d.clusters for d in docs}
    half = dict(list(key.items())[: len(key) // 2])
    s = score_corpus(key, half)
    n_mentions = sum(len(c) for cl in key.values() for c in cl)
    half_mentions = sum(len(c) for cl in half.values() for c in cl)
    assert s.bcub.recall == pytest.approx(half_mentions / n_mentions)
    assert s.bcub.precision == 1.0
    assert s.ceafe.recall == pytest.approx(len(half) / len(key))


def test_conll_round_trip_keeps_scores(
    winobias_docs: dict[str, list[ConllDocument]], tmp_path: Path
) -> None:
    docs = winobias_docs["test_type2_anti_stereotype.v4_auto_conll"]
    path = tmp_path / "resp.conll"
    write_conll(path, docs)
    back = read_conll(path)
    s = score_corpus({d.name: d.clusters for d in docs}, {d.name: d.clusters for d in back})
    assert s.conll_f1 == 1.0
    assert json.dumps([d.tokens for d in back]) == json.dumps([d.tokens for d in docs])


def test_task_run_with_conll_resolver_output(
    winobias_docs: dict[str, list[ConllDocument]], shared_data: Path, tmp_path: Path
) -> None:
    """``winoscope run winobias-en/coref --model file:DIR`` on gold and swapped-antecedent output:
    character-span scoring through the task equals token-span scoring of the files."""
    from winoscope.runs import runner

    occupations = _occupations(conll_dir(shared_data))
    gold_dir, swap_dir = tmp_path / "gold", tmp_path / "swap"
    gold_dir.mkdir()
    swap_dir.mkdir()
    expected = {}
    for name, docs in winobias_docs.items():
        write_conll(gold_dir / name, docs)
        swapped_docs = []
        key, resp = {}, {}
        for d in docs:
            k = sorted(d.clusters[0])
            taken = {t for s, e in k for t in range(s, e + 1)}
            occ = _find_occupation(d.tokens, taken, occupations)
            r = swapped(k, (occ[0], occ[1]))
            swapped_docs.append(ConllDocument(name=d.name, sentences=d.sentences, clusters=r))
            key[d.name], resp[d.name] = [k], r
        write_conll(swap_dir / name, swapped_docs)
        expected[name] = score_corpus(key, resp).conll_f1
    data = conll_dir(shared_data)
    gold = runner.run("winobias-en/coref", f"file:{gold_dir}", data=data, n_boot=0)
    m = gold.metrics
    assert set(m[m.metric.isin(["conll_f1_pro", "conll_f1_anti"])].value) == {1.0}
    assert len(m[(m.metric == "conll_f1_pro") & (m.split != "macro")]) == 4
    swap = runner.run("winobias-en/coref", f"file:{swap_dir}", data=data, n_boot=0)
    sm = swap.metrics
    for name, value in expected.items():
        sp, ty, co = name.split("_")[:3]
        row = sm[(sm.metric == f"conll_f1_{co}") & (sm.split == sp) & (sm.type == ty)]
        assert float(row.value.iloc[0]) == pytest.approx(value, abs=1e-12), name
    assert set(sm[sm.metric.str.startswith("link_accuracy")].value) == {0.0}


def test_english_predictions_rescore_identically(shared_data: Path, tmp_path: Path) -> None:
    from winoscope.runs import runner

    data = conll_dir(shared_data)
    rr = runner.run("winobias-en/coref", "baseline:first", data=data, n_boot=20, out=tmp_path / "r")
    again = runner.score("winobias-en/coref", tmp_path / "r" / "predictions.csv", n_boot=20)
    import pandas as pd

    pd.testing.assert_frame_equal(
        rr.metrics.reset_index(drop=True), again.metrics.reset_index(drop=True)
    )
