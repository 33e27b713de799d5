"""The coreference metrics on small documents worked out by hand from their definitions.

MUC (Vilain et al. 1995): recall = sum over key entities K of (|K| - p(K)) / sum of (|K| - 1),
p(K) the number of response parts K falls into (a key mention missing from the response is a
part of its own); precision the same with key and response swapped. B-cubed (Bagga & Baldwin
1998): per mention, |K(m) & R(m)| / |K(m)| (recall, over key mentions) and / |R(m)| (precision,
over response mentions). CEAF (Luo 2005): the best one-to-one entity alignment, phi3 = |K & R|
over mention counts (CEAF-m) or phi4 = 2|K & R| / (|K| + |R|) over entity counts (CEAF-e).
BLANC (Luo et al. 2014): coreference and non-coreference links, each side over its own
mentions, the two link types' scores averaged. CoNLL = mean F1 of MUC, B-cubed and CEAF-e.

Every expected value below is a fraction written out in the comments; nothing is computed with
the module's own helpers.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest

from winoscope.scoring.coref_metrics import (
    Counts,
    DocumentScore,
    align,
    blanc_rpf,
    ceaf,
    f1,
    score_corpus,
    score_document,
    score_pairs,
)

ALL = ("muc", "bcub", "ceafm", "ceafe", "blanc", "mentions")


def hm(r: F, p: F) -> F:
    """The harmonic mean written out, for the F columns (0 when both are 0)."""
    return 2 * r * p / (r + p) if r + p else F(0)


def assert_counts(got: Counts, want: tuple[F | int, F | int, F | int, F | int]) -> None:
    fields = (got.recall_num, got.recall_den, got.precision_num, got.precision_den)
    assert fields == pytest.approx(tuple(float(w) for w in want), abs=1e-12)


def assert_rpf(got: tuple[float, float, float], want: tuple[F | int, F | int, F | int]) -> None:
    assert got == pytest.approx(tuple(float(w) for w in want), abs=1e-12)


# --- Counts and f1 --------------------------------------------------------------------------


def test_counts_ratios_and_their_zero_denominators() -> None:
    assert_rpf(Counts(1, 2, 3, 4).rpf(), (F(1, 2), F(3, 4), hm(F(1, 2), F(3, 4))))
    assert_rpf(Counts(1, 1, 1, 1).rpf(), (1, 1, 1))  # a denominator of 1 is a ratio too
    assert_rpf(Counts(3, 4, 0, 0).rpf(), (F(3, 4), 0, 0))  # no response: precision 0, F 0
    assert_rpf(Counts(0, 0, 2, 5).rpf(), (0, F(2, 5), 0))
    assert Counts().rpf() == (0.0, 0.0, 0.0)
    assert Counts().recall_num == Counts().precision_den == 0.0


def test_counts_add_field_by_field() -> None:
    total = Counts(1, 2, 3, 4) + Counts(10, 20, 30, 40)
    assert_counts(total, (11, 22, 33, 44))
    assert_counts(Counts(0.5, 2.0, 0.25, 1.0) + Counts(), (F(1, 2), 2, F(1, 4), 1))


def test_results_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Counts().recall_num = 1.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        DocumentScore().repeated = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        align([["a"]], [["a"]]).repeated = 1  # type: ignore[misc]


def test_f1_by_hand() -> None:
    assert f1(0.5, 0.25) == pytest.approx(1 / 3)  # 2 * 1/8 / (3/4)
    assert f1(0.5, 0.5) == pytest.approx(0.5)
    assert f1(1.0, 0.0) == 0.0
    assert f1(0.0, 0.0) == 0.0


# --- alignment ------------------------------------------------------------------------------

# Key K1 {a,b,c}, K2 {d,e}, K3 {f}; response R1 {x,a,b}, R2 {c,d,e}, R3 {g}, R4 {h}.
# f is missed; x, g and h are twinless (not key mentions); x comes first in R1.
KEY_A = [["a", "b", "c"], ["d", "e"], ["f"]]
RESP_A = [["x", "a", "b"], ["c", "d", "e"], ["g"], ["h"]]


def test_align_numbers_key_then_matched_then_twinless_mentions() -> None:
    a = align(KEY_A, RESP_A)
    # key mentions 0..5 in order; response x, g, h get 6, 7, 8 after the key's ids
    assert a.key == [[0, 1, 2], [3, 4], [5]]
    assert a.response == [[6, 0, 1], [2, 3, 4], [7], [8]]
    # MUC's response: f added as a singleton, the twinless singletons g and h dropped,
    # the twinless x kept (it is not alone)
    assert a.muc_response == [[6, 0, 1], [2, 3, 4], [5]]
    # mention identification: 5 of 6 key mentions, 5 of 8 response mentions
    assert_counts(a.mentions, (5, 6, 5, 8))
    assert a.repeated == 0


def test_align_with_one_missed_and_one_twinless_mention() -> None:
    # key {a,b}; response {a} {y}: b missed (added to MUC's response), y twinless (dropped)
    a = align([["a", "b"]], [["a"], ["y"]])
    assert a.response == [[0], [2]]
    assert a.muc_response == [[0], [1]]
    assert_counts(a.mentions, (1, 2, 1, 2))


def test_align_without_missed_or_twinless_mentions_keeps_the_response_for_muc() -> None:
    a = align([["a", "b"], ["c"]], [["b", "a"], ["c"]])
    assert a.response == [[1, 0], [2]]
    assert a.muc_response == [[1, 0], [2]]  # the key singleton c is a response singleton


def test_align_with_an_empty_side() -> None:
    # nothing detected: every key mention becomes a MUC singleton
    a = align([["a", "b"]], [])
    assert (a.response, a.muc_response) == ([], [[0], [1]])
    # no key: the twinless singleton x is dropped for MUC, the pair {y,z} kept
    b = align([], [["x"], ["y", "z"]])
    assert (b.response, b.muc_response) == ([[0], [1, 2]], [[1, 2]])


def test_repeated_key_mentions_are_dropped_and_counted() -> None:
    # key {a,b}; response {a,b} {b,a,c}: the second b and a are dropped (2 repeats),
    # the cluster left is {c}, a twinless singleton
    a = align([["a", "b"]], [["a", "b"], ["b", "a", "c"]])
    assert a.repeated == 2
    assert a.response == [[0, 1], [2]]
    assert a.muc_response == [[0, 1]]
    # a cluster made only of repeats is dropped
    b = align([["a", "b"]], [["a", "b"], ["a"]])
    assert (b.repeated, b.response) == (1, [[0, 1]])


# --- one document, every metric -------------------------------------------------------------


def test_document_a_every_metric_by_hand() -> None:
    s = score_document(KEY_A, RESP_A)
    # MUC: key links 2 + 1 + 0 = 3; response links (f added, g and h dropped) 2 + 2 = 4.
    # Right links: R1 & K1 = {a,b} -> 1, R2 & K2 = {d,e} -> 1 (R2 & K1 = {c} -> 0): 2.
    assert_counts(s.muc, (2, 3, 2, 4))
    assert_rpf(s.muc.rpf(), (F(2, 3), F(1, 2), F(4, 7)))
    # B3 recall: a, b 2/3 each; c 1/3 (alone of K1 in R2); d, e 2/2; f 0: 11/3 over 6.
    # B3 precision: x 0; a, b 2/3; c 1/3; d, e 2/3; g, h 0: 3 over 8.
    assert_counts(s.bcub, (F(11, 3), 6, 3, 8))
    assert_rpf(s.bcub.rpf(), (F(11, 18), F(3, 8), F(33, 71)))
    # CEAF-m: phi3 K1R1 = 2, K1R2 = 1, K2R2 = 2; best K1R1 + K2R2 = 4 of 6 and of 8 mentions.
    assert_counts(s.ceafm, (4, 6, 4, 8))
    assert_rpf(s.ceafm.rpf(), (F(2, 3), F(1, 2), F(4, 7)))
    # CEAF-e: phi4 K1R1 = 4/6, K1R2 = 2/6, K2R2 = 4/5; best K1R1 + K2R2 = 2/3 + 4/5 = 22/15,
    # over 3 key and 4 response entities.
    assert_counts(s.ceafe, (F(22, 15), 3, F(22, 15), 4))
    assert_rpf(s.ceafe.rpf(), (F(22, 45), F(11, 30), F(44, 105)))
    # BLANC coreference links: key ab ac bc de (4); response xa xb ab, cd ce de (6); common ab de.
    assert_counts(s.blanc_coref, (2, 4, 2, 6))
    # non-coreference: key 15 pairs - 4 = 11; response 28 - 6 = 22; common: a-d a-e b-d b-e
    # (c-d, c-e are together in R2; pairs with f have no response side).
    assert_counts(s.blanc_noncoref, (4, 11, 4, 22))
    # coref (1/2, 1/3, 2/5), non-coref (4/11, 2/11, 8/33); BLANC is their mean
    assert_rpf(s.rpf("blanc"), (F(19, 44), F(17, 66), F(53, 165)))
    assert_rpf(s.rpf("mentions"), (F(5, 6), F(5, 8), F(5, 7)))
    assert s.repeated == 0
    conll = (F(4, 7) + F(33, 71) + F(44, 105)) / 3
    assert s.conll_f1 == pytest.approx(float(conll), abs=1e-12)
    d = s.as_dict()
    assert len(d) == 19
    assert d["muc_recall"] == pytest.approx(2 / 3)
    assert d["muc_precision"] == pytest.approx(1 / 2)
    assert d["bcub_f1"] == pytest.approx(33 / 71)
    assert d["ceafm_recall"] == pytest.approx(2 / 3)
    assert d["ceafe_precision"] == pytest.approx(11 / 30)
    assert d["blanc_f1"] == pytest.approx(53 / 165)
    assert d["blanc_recall"] == pytest.approx(19 / 44)
    assert d["mentions_precision"] == pytest.approx(5 / 8)
    assert d["mentions_f1"] == pytest.approx(5 / 7)
    assert d["conll_f1"] == pytest.approx(float(conll))


def test_identical_clusterings_score_100_in_any_order() -> None:
    key = [["a", "b", "c"], ["d", "e"], ["f"]]
    s = score_document(key, [["f"], ["e", "d"], ["c", "a", "b"]])
    for m in ALL:
        assert_rpf(s.rpf(m), (1, 1, 1))
    assert s.conll_f1 == pytest.approx(1.0)
    assert_counts(s.muc, (3, 3, 3, 3))
    assert_counts(s.ceafe, (3, 3, 3, 3))
    assert_counts(s.blanc_coref, (4, 4, 4, 4))
    assert_counts(s.blanc_noncoref, (11, 11, 11, 11))


def test_all_singletons_key_and_response() -> None:
    # key {a} {b} {c} = response: no MUC links at all (0 everywhere), everything else 100;
    # BLANC has only non-coreference links (3 of 3).
    s = score_document([["a"], ["b"], ["c"]], [["c"], ["a"], ["b"]])
    assert_counts(s.muc, (0, 0, 0, 0))
    assert_rpf(s.muc.rpf(), (0, 0, 0))
    for m in ("bcub", "ceafm", "ceafe", "blanc", "mentions"):
        assert_rpf(s.rpf(m), (1, 1, 1))
    assert_counts(s.bcub, (3, 3, 3, 3))
    assert_counts(s.blanc_coref, (0, 0, 0, 0))
    assert s.conll_f1 == pytest.approx(2 / 3)  # (0 + 1 + 1) / 3


def test_ceaf_takes_the_best_alignment_not_the_greedy_one() -> None:
    # key K1 {a,b,c,d}, K2 {e,f}; response R1 {a,b,e,f}, R2 {c,d}.
    # phi3: K1R1 2, K1R2 2, K2R1 2, K2R2 0: best K1R2 + K2R1 = 4 (greedy K1R1 + K2R2 = 2).
    # phi4: K1R1 4/8, K1R2 4/6, K2R1 4/6: best 2/3 + 2/3 = 4/3 over 2 and 2 entities.
    s = score_document([["a", "b", "c", "d"], ["e", "f"]], [["a", "b", "e", "f"], ["c", "d"]])
    assert_counts(s.ceafm, (4, 6, 4, 6))
    assert_counts(s.ceafe, (F(4, 3), 2, F(4, 3), 2))
    # MUC: key links 3 + 1, response 3 + 1; right: R1 {a,b}, {e,f} -> 2, R2 {c,d} -> 1
    assert_counts(s.muc, (3, 4, 3, 4))
    # B3: every mention has 2 of its key entity with it: a-d 2/4, e,f 2/2 (recall 4 of 6);
    # a,b,e,f 2/4, c,d 2/2 (precision 4 of 6)
    assert_counts(s.bcub, (4, 6, 4, 6))


def test_ceaf_takes_the_entity_choice_by_keyword_only() -> None:
    assert_counts(ceaf([[0, 1]], [[0]], entity=True), (F(2, 3), 1, F(2, 3), 1))
    assert_counts(ceaf([[0, 1]], [[0]], entity=False), (1, 2, 1, 1))
    with pytest.raises(TypeError):
        ceaf([[0, 1]], [[0]], True)  # type: ignore[misc]


def test_ceaf_with_fewer_key_than_response_entities() -> None:
    # key {a,b,c}; response {a} {b} {c,d}: phi4 {a}: 2/4, {b}: 2/4, {c,d}: 2/5; best 1/2
    s = score_document([["a", "b", "c"]], [["a"], ["b"], ["c", "d"]])
    assert_counts(s.ceafe, (F(1, 2), 1, F(1, 2), 3))
    assert_counts(s.ceafm, (1, 3, 1, 4))
    # MUC: the key's 2 links, none kept; the response link c-d is wrong
    assert_counts(s.muc, (0, 2, 0, 1))
    # B3 recall a, b, c 1/3 each = 1 of 3; precision a, b 1, c 1/2, d 0 = 5/2 of 4
    assert_counts(s.bcub, (1, 3, F(5, 2), 4))


def test_a_merged_response_loses_precision_only() -> None:
    # key {a,b} {c}; response {a,b,c}
    s = score_document([["a", "b"], ["c"]], [["a", "b", "c"]])
    # MUC: key link 1 kept; response 2 links, 1 right
    assert_counts(s.muc, (1, 1, 1, 2))
    assert_rpf(s.muc.rpf(), (1, F(1, 2), F(2, 3)))
    # B3 recall 1 each = 3 of 3; precision a, b 2/3, c 1/3 = 5/3 of 3
    assert_counts(s.bcub, (3, 3, F(5, 3), 3))
    # CEAF-e: phi4 K1R1 = 4/5 (K2R1 = 2/4); 1 response entity
    assert_counts(s.ceafe, (F(4, 5), 2, F(4, 5), 1))
    # BLANC: coref key ab, response ab ac bc: (1, 1/3, 1/2); non-coref key ac bc, response
    # none: (0, 0, 0); both link types in the key, so the mean
    assert_counts(s.blanc_coref, (1, 1, 1, 3))
    assert_counts(s.blanc_noncoref, (0, 2, 0, 0))
    assert_rpf(s.rpf("blanc"), (F(1, 2), F(1, 6), F(1, 4)))


# --- BLANC's edge cases ---------------------------------------------------------------------


def test_blanc_key_of_one_entity_reports_coreference_links() -> None:
    # key {a,b,c}: links ab ac bc only; response {a,b} {c}: coref ab, non-coref ac bc
    s = score_document([["a", "b", "c"]], [["a", "b"], ["c"]])
    assert_counts(s.blanc_coref, (1, 3, 1, 1))
    assert_counts(s.blanc_noncoref, (0, 0, 0, 2))
    assert_rpf(s.rpf("blanc"), (F(1, 3), 1, F(1, 2)))


def test_blanc_key_of_singletons_reports_non_coreference_links() -> None:
    # key {a} {b} {c}: non-coref ab ac bc; response {a,b} {c}: coref ab, non-coref ac bc
    s = score_document([["a"], ["b"], ["c"]], [["a", "b"], ["c"]])
    assert_rpf(s.rpf("blanc"), (F(2, 3), 1, F(4, 5)))
    # one non-coreference link in the key and the response
    t = score_document([["a"], ["b"]], [["b"], ["a"]])
    assert_counts(t.blanc_noncoref, (1, 1, 1, 1))
    assert_rpf(t.rpf("blanc"), (1, 1, 1))


def test_blanc_response_with_links_of_one_type_only() -> None:
    # key {a,b} {c}: coref ab, non-coref ac bc
    # response {a,b}: coref ab right (1, 1, 1), no non-coref links (0, 0, 0): the mean
    s = score_document([["a", "b"], ["c"]], [["a", "b"]])
    assert_counts(s.blanc_coref, (1, 1, 1, 1))
    assert_counts(s.blanc_noncoref, (0, 2, 0, 0))
    assert_rpf(s.rpf("blanc"), (F(1, 2), F(1, 2), F(1, 2)))
    # response {a} {c}: no coref links (0, 0, 0), non-coref ac right (1/2, 1, 2/3)
    t = score_document([["a", "b"], ["c"]], [["a"], ["c"]])
    assert_counts(t.blanc_coref, (0, 1, 0, 0))
    assert_counts(t.blanc_noncoref, (1, 2, 1, 1))
    assert_rpf(t.rpf("blanc"), (F(1, 4), F(1, 2), F(1, 3)))


def test_blanc_rpf_by_hand() -> None:
    # one link of each type in the response: coref (1/2, 1, 2/3), non-coref (1, 1, 1)
    assert_rpf(blanc_rpf(Counts(1, 2, 1, 1), Counts(1, 1, 1, 1)), (F(3, 4), 1, F(5, 6)))
    # no response links: 0 (both types are in the key)
    assert blanc_rpf(Counts(0, 2, 0, 0), Counts(0, 3, 0, 0)) == (0.0, 0.0, 0.0)
    # no key links: 0 whatever the response
    assert blanc_rpf(Counts(0, 0, 0, 2), Counts(0, 0, 0, 3)) == (0.0, 0.0, 0.0)
    # coref links only in the key: the coref score, the non-coref response links ignored
    assert_rpf(blanc_rpf(Counts(2, 4, 2, 2), Counts(0, 0, 0, 5)), (F(1, 2), 1, F(2, 3)))
    assert_rpf(blanc_rpf(Counts(0, 0, 0, 5), Counts(1, 4, 1, 1)), (F(1, 4), 1, F(2, 5)))


# --- empty sides ----------------------------------------------------------------------------


def test_empty_response_is_a_miss() -> None:
    s = score_document([["a", "b"], ["c"]], [])
    assert_counts(s.muc, (0, 1, 0, 0))
    assert_counts(s.bcub, (0, 3, 0, 0))
    assert_counts(s.ceafm, (0, 3, 0, 0))
    assert_counts(s.ceafe, (0, 2, 0, 0))
    assert_counts(s.blanc_coref, (0, 1, 0, 0))
    assert_counts(s.blanc_noncoref, (0, 2, 0, 0))
    assert_counts(s.mentions, (0, 3, 0, 0))
    for m in ALL:
        assert s.rpf(m) == (0.0, 0.0, 0.0), m
    assert s.conll_f1 == 0.0


def test_empty_key_counts_only_the_response() -> None:
    # key empty; response {x,y}: MUC keeps its one link (not a singleton), B3/CEAF-m count
    # 2 response mentions, CEAF-e 1 response entity
    s = score_document([], [["x", "y"]])
    assert_counts(s.muc, (0, 0, 0, 1))
    assert_counts(s.bcub, (0, 0, 0, 2))
    assert_counts(s.ceafm, (0, 0, 0, 2))
    assert_counts(s.ceafe, (0, 0, 0, 1))
    assert_counts(s.mentions, (0, 0, 0, 2))
    for m in ALL:
        assert s.rpf(m) == (0.0, 0.0, 0.0), m
    e = score_document([], [])
    assert e.as_dict() == dict.fromkeys(e.as_dict(), 0.0)


def test_an_empty_key_cluster_counts_for_nothing() -> None:
    s = score_document([["a", "b"], []], [["a", "b"]])
    assert_counts(s.muc, (1, 1, 1, 1))
    assert_counts(s.ceafe, (1, 1, 1, 1))
    assert_counts(s.ceafm, (2, 2, 2, 2))
    for m in ALL:
        assert_rpf(s.rpf(m), (1, 1, 1))


def test_a_twinless_repeated_mention_is_kept() -> None:
    # only mentions that match a key mention lose their repeats: {x, x} stays a 2-mention
    # cluster, so MUC sees one (wrong) response link and B3 two response mentions
    a = align([["a"]], [["x", "x"]])
    assert (a.repeated, a.response) == (0, [[1, 1]])
    s = score_document([["a"]], [["x", "x"]])
    assert_counts(s.muc, (0, 0, 0, 1))
    assert_counts(s.bcub, (0, 1, 0, 2))


# --- several documents ----------------------------------------------------------------------

# d2: key {p,q} {r}; response {p,q,p}: the second p dropped (1 repeat), r missed.
#   MUC (1, 1, 1, 1); B3 (2, 3, 2, 2); CEAF-m (2, 3, 2, 2); CEAF-e phi4 = 1: (1, 2, 1, 1);
#   BLANC coref (1, 1, 1, 1), non-coref key pr qr: (0, 2, 0, 0); mentions (2, 3, 2, 2).
# d3: key {s,t}, no response document: MUC (0, 1, 0, 0), B3 and CEAF-m (0, 2, 0, 0),
#   CEAF-e (0, 1, 0, 0), BLANC coref (0, 1, 0, 0), mentions (0, 2, 0, 0).
KEY_D2, RESP_D2 = [["p", "q"], ["r"]], [["p", "q", "p"]]
KEY_D3 = [["s", "t"]]


def test_corpus_sums_counts_over_the_key_documents() -> None:
    total = score_corpus(
        {"d1": KEY_A, "d2": KEY_D2, "d3": KEY_D3},
        {"d1": RESP_A, "d2": RESP_D2, "extra": [["z", "w"]]},  # "extra" has no key: ignored
    )
    # document A + d2 + d3, field by field
    assert_counts(total.muc, (3, 5, 3, 5))
    assert_counts(total.bcub, (F(17, 3), 11, 5, 10))
    assert_counts(total.ceafm, (6, 11, 6, 10))
    assert_counts(total.ceafe, (F(37, 15), 6, F(37, 15), 5))
    assert_counts(total.blanc_coref, (3, 6, 3, 7))
    assert_counts(total.blanc_noncoref, (4, 13, 4, 22))
    assert_counts(total.mentions, (7, 11, 7, 10))
    assert total.repeated == 1
    # ratios of the sums, not means of the documents' ratios
    assert_rpf(total.muc.rpf(), (F(3, 5), F(3, 5), F(3, 5)))
    assert_rpf(total.bcub.rpf(), (F(17, 33), F(1, 2), hm(F(17, 33), F(1, 2))))
    ceafe = hm(F(37, 90), F(37, 75))
    conll = (F(3, 5) + hm(F(17, 33), F(1, 2)) + ceafe) / 3
    assert total.conll_f1 == pytest.approx(float(conll), abs=1e-12)


def test_pairs_sum_like_a_corpus() -> None:
    total = score_pairs([(KEY_A, RESP_A), (KEY_D2, RESP_D2), (KEY_D3, [])])
    assert_counts(total.muc, (3, 5, 3, 5))
    assert_counts(total.ceafe, (F(37, 15), 6, F(37, 15), 5))
    assert_counts(total.blanc_noncoref, (4, 13, 4, 22))
    assert total.repeated == 1
    assert score_pairs([]) == DocumentScore()
    assert score_corpus({}, {"d": [["a"]]}) == DocumentScore()


def test_document_scores_add_every_field() -> None:
    a = DocumentScore(
        muc=Counts(1, 2, 3, 4),
        bcub=Counts(2, 3, 4, 5),
        ceafm=Counts(3, 4, 5, 6),
        ceafe=Counts(4, 5, 6, 7),
        blanc_coref=Counts(5, 6, 7, 8),
        blanc_noncoref=Counts(6, 7, 8, 9),
        mentions=Counts(7, 8, 9, 10),
        repeated=2,
    )
    b = DocumentScore(
        muc=Counts(10, 20, 30, 40),
        bcub=Counts(10, 20, 30, 40),
        ceafm=Counts(10, 20, 30, 40),
        ceafe=Counts(10, 20, 30, 40),
        blanc_coref=Counts(10, 20, 30, 40),
        blanc_noncoref=Counts(10, 20, 30, 40),
        mentions=Counts(10, 20, 30, 40),
        repeated=3,
    )
    s = a + b
    assert_counts(s.muc, (11, 22, 33, 44))
    assert_counts(s.bcub, (12, 23, 34, 45))
    assert_counts(s.ceafm, (13, 24, 35, 46))
    assert_counts(s.ceafe, (14, 25, 36, 47))
    assert_counts(s.blanc_coref, (15, 26, 37, 48))
    assert_counts(s.blanc_noncoref, (16, 27, 38, 49))
    assert_counts(s.mentions, (17, 28, 39, 50))
    assert s.repeated == 5
