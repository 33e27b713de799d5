"""Coreference metrics with the conventions of the CoNLL reference scorer v8.01.

MUC (Vilain et al. 1995), B-cubed (Bagga & Baldwin 1998), CEAF-m and CEAF-e (Luo 2005, the
optimal entity alignment found with the Kuhn-Munkres algorithm), BLANC (Luo et al. 2014, for
gold and predicted mentions) and the CoNLL average F1 = (MUC F1 + B-cubed F1 + CEAF-e F1) / 3.

A document is a list of clusters (entities); a cluster is a list of mentions; a mention is any
hashable value compared by equality, so mentions match only on the exact span (token or
character offsets). The conventions follow the reference implementation, so that every number of
its own test suite is reproduced (see ``tests/scoring/test_coref_metrics.py``):

- Singletons count: a one-mention cluster in the key or the response takes part in B-cubed,
  CEAF and BLANC. For MUC, key mentions missing from the response are added to it as singletons
  and response singletons that are not key mentions are dropped (neither changes MUC links).
- A response mention repeated after its first occurrence is dropped when it matches a key
  mention; a cluster left empty is dropped.
- A key document without a response document is scored against an empty response (a miss);
  response documents without a key document are ignored.
- Counts (numerators and denominators of recall and precision) are summed over documents and
  the ratios taken at the end (micro average), as the reference scorer's totals do. CEAF's
  alignment is made per document.

Why not a library: of the Python scorers installable here, ``scorch`` 0.2.0 (last released
2020) keeps repeated response mentions, so it misses cases A8 and A9 of the reference suite
(MUC, B-cubed, CEAF-m and BLANC); this module is a direct transcription of the reference
definitions and reproduces the suite.

Worked example (key ``{a, b, c}``, response ``{a, b}`` ``{c, d}``)::

    MUC    R = 1/2 (one of the key's two links kept), P = 1/2 (one of two response links right)
    B3     R = (2/3 + 2/3 + 1/3) / 3 = 5/9,   P = (1 + 1 + 1/2 + 0) / 4 = 5/8
    CEAF-e key {a,b,c} aligned to {a,b}: phi4 = 2*2/(3+2) = 0.8; R = 0.8/1, P = 0.8/2
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import combinations

import numpy as np

Mention = Hashable
Cluster = Sequence[Mention]
Clusters = Sequence[Cluster]

METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc")
CONLL_METRICS = ("muc", "bcub", "ceafe")


@dataclass(frozen=True)
class Counts:
    """Numerators and denominators of recall and precision; they add up across documents."""

    recall_num: float = 0.0
    recall_den: float = 0.0
    precision_num: float = 0.0
    precision_den: float = 0.0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.recall_num + other.recall_num,
            self.recall_den + other.recall_den,
            self.precision_num + other.precision_num,
            self.precision_den + other.precision_den,
        )

    @property
    def recall(self) -> float:
        return self.recall_num / self.recall_den if self.recall_den > 0 else 0.0

    @property
    def precision(self) -> float:
        return self.precision_num / self.precision_den if self.precision_den > 0 else 0.0

    @property
    def f1(self) -> float:
        return f1(self.recall, self.precision)

    def rpf(self) -> tuple[float, float, float]:
        return (self.recall, self.precision, self.f1)


def f1(recall: float, precision: float) -> float:
    """Harmonic mean; 0 when both are 0."""
    return 2 * recall * precision / (recall + precision) if recall + precision > 0 else 0.0


def blanc_rpf(coref: Counts, noncoref: Counts) -> tuple[float, float, float]:
    """BLANC recall, precision and F1 from coreference- and non-coreference-link counts.

    The mean of the two link types' scores; when the key has links of only one type (every
    mention in one entity, or all singletons) that type alone is reported, and with no key
    links at all every value is 0 (the reference scorer's edge cases).
    """
    has_c, has_n = coref.recall_den > 0, noncoref.recall_den > 0
    if not has_c and not has_n:
        return (0.0, 0.0, 0.0)
    if not has_c:
        return noncoref.rpf()
    if not has_n:
        return coref.rpf()
    if coref.precision_den == 0 and noncoref.precision_den == 0:
        return (0.0, 0.0, 0.0)
    rc, pc, fc = coref.rpf()
    rn, pn, fn = noncoref.rpf()
    return ((rc + rn) / 2, (pc + pn) / 2, (fc + fn) / 2)


@dataclass(frozen=True)
class Aligned:
    """Key and response of one document with mentions replaced by integer ids.

    ``key``/``response`` are the original partitions (response without repeated mentions);
    ``muc_response`` is the response as the MUC scorer sees it (undetected key mentions added
    as singletons, twinless response singletons dropped). ``mentions`` counts mention
    identification: (exactly matched, key mentions, exactly matched, response mentions).
    """

    key: list[list[int]]
    response: list[list[int]]
    muc_response: list[list[int]]
    mentions: Counts
    repeated: int


def align(key: Clusters, response: Clusters) -> Aligned:
    """Give every mention an id, as the reference scorer's ``IdentifMentions`` does."""
    ids: dict[Mention, int] = {}
    count = 0
    for entity in key:
        for m in entity:
            ids[m] = count
            count += 1
    mapped: dict[Mention, int] = {}
    assigned: set[int] = set()
    exact = 0
    repeated = 0
    cleaned: list[list[Mention]] = []
    for entity in response:
        kept = []
        for m in entity:
            if m in mapped:
                repeated += 1
                continue
            if m in ids and ids[m] not in assigned:
                assigned.add(ids[m])
                mapped[m] = ids[m]
                exact += 1
            kept.append(m)
        if kept:
            cleaned.append(kept)
    for entity in cleaned:
        for m in entity:
            if m not in mapped:
                mapped[m] = count
                count += 1
    k_chains = [[ids[m] for m in entity] for entity in key]
    r_chains = [[mapped[m] for m in entity] for entity in cleaned]
    k_index = {m: i for i, chain in enumerate(k_chains) for m in chain}
    r_index = {m: i for i, chain in enumerate(r_chains) for m in chain}
    muc_resp = [list(c) for c in r_chains]
    if len(ids) - exact > 0:
        muc_resp += [[m] for chain in k_chains for m in chain if m not in r_index]
    if count - len(ids) > 0:
        muc_resp = [c for c in muc_resp if not (len(c) == 1 and c[0] not in k_index)]
    mentions = Counts(exact, len(ids), exact, len(mapped))
    return Aligned(k_chains, r_chains, muc_resp, mentions, repeated)


def _index(chains: list[list[int]]) -> dict[int, int]:
    return {m: i for i, chain in enumerate(chains) for m in chain}


def muc(key: list[list[int]], response: list[list[int]]) -> Counts:
    """MUC link counts: a response link is right when both ends lie in one key entity.

    The number of right links equals sum over (key, response) entity pairs of
    max(|K & R| - 1, 0), the same for recall and precision.
    """
    k_index = _index(key)
    correct = 0
    for entity in response:
        for i, a in enumerate(entity):
            ka = k_index.get(a)
            if ka is None:
                continue
            if any(k_index.get(b) == ka for b in entity[i + 1 :]):
                correct += 1
    key_links = sum(len(e) - 1 for e in key if e)
    resp_links = sum(len(e) - 1 for e in response if e)
    return Counts(correct, key_links, correct, resp_links)


def bcub(key: list[list[int]], response: list[list[int]]) -> Counts:
    """B-cubed: per response mention, |R & K| / |R| (precision) and |R & K| / |K| (recall)."""
    k_index = _index(key)
    acc_r = 0.0
    acc_p = 0.0
    for chain in response:
        for m in chain:
            k_chain = key[k_index[m]] if m in k_index else []
            k_set = set(k_chain)
            common = sum(1 for x in chain if x in k_set)
            acc_p += common / len(chain)
            if k_chain:
                acc_r += common / len(k_chain)
    return Counts(acc_r, sum(len(e) for e in key), acc_p, sum(len(e) for e in response))


def _overlap(a: list[int], b: list[int]) -> int:
    bs = set(b)
    return sum(1 for x in a if x in bs)


def ceaf(key: list[list[int]], response: list[list[int]], *, entity: bool) -> Counts:
    """CEAF with the best one-to-one entity alignment (Kuhn-Munkres).

    ``entity=True`` is CEAF-e (phi4 = 2|K & R| / (|K| + |R|), denominators are entity counts);
    ``entity=False`` is CEAF-m (phi3 = |K & R|, denominators are mention counts).
    """
    if entity:
        den_r = float(sum(1 for e in key if e))
        den_p = float(sum(1 for e in response if e))
    else:
        den_r = float(sum(len(e) for e in key))
        den_p = float(sum(len(e) for e in response))
    if not key or not response:
        return Counts(0.0, den_r, 0.0, den_p)
    sim = np.zeros((len(key), len(response)))
    for i, k in enumerate(key):
        for j, r in enumerate(response):
            common = _overlap(k, r)
            if common:
                sim[i, j] = 2 * common / (len(k) + len(r)) if entity else common
    from scipy.optimize import linear_sum_assignment  # lazy: scipy.optimize is slow to import

    rows, cols = linear_sum_assignment(sim, maximize=True)
    total = float(sim[rows, cols].sum())
    return Counts(total, den_r, total, den_p)


def _links(chains: list[list[int]]) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    coref: set[tuple[int, int]] = set()
    for chain in chains:
        for a, b in combinations(chain, 2):
            coref.add((min(a, b), max(a, b)))
    noncoref: set[tuple[int, int]] = set()
    for c1, c2 in combinations(chains, 2):
        for a in c1:
            for b in c2:
                noncoref.add((min(a, b), max(a, b)))
    return coref, noncoref


def blanc(key: list[list[int]], response: list[list[int]]) -> tuple[Counts, Counts]:
    """BLANC link counts: (coreference links, non-coreference links)."""
    kc, kn = _links(key)
    rc, rn = _links(response)
    common_c = len(kc & rc)
    common_n = len(kn & rn)
    return (
        Counts(common_c, len(kc), common_c, len(rc)),
        Counts(common_n, len(kn), common_n, len(rn)),
    )


@dataclass(frozen=True)
class DocumentScore:
    """Every metric's counts for one document (or, summed, for a corpus)."""

    muc: Counts = field(default_factory=Counts)
    bcub: Counts = field(default_factory=Counts)
    ceafm: Counts = field(default_factory=Counts)
    ceafe: Counts = field(default_factory=Counts)
    blanc_coref: Counts = field(default_factory=Counts)
    blanc_noncoref: Counts = field(default_factory=Counts)
    mentions: Counts = field(default_factory=Counts)
    repeated: int = 0

    def __add__(self, other: DocumentScore) -> DocumentScore:
        return DocumentScore(
            **{
                f.name: getattr(self, f.name) + getattr(other, f.name)
                for f in fields(DocumentScore)
            }
        )

    def rpf(self, metric: str) -> tuple[float, float, float]:
        """(recall, precision, F1) of ``metric`` (one of :data:`METRICS` or ``mentions``)."""
        if metric == "blanc":
            return blanc_rpf(self.blanc_coref, self.blanc_noncoref)
        return getattr(self, metric).rpf()

    @property
    def conll_f1(self) -> float:
        """The CoNLL-2012 score: mean F1 of MUC, B-cubed and CEAF-e."""
        return sum(self.rpf(m)[2] for m in CONLL_METRICS) / len(CONLL_METRICS)

    def as_dict(self) -> dict[str, float]:
        """Flat ``{metric}_{recall|precision|f1}`` values plus ``conll_f1``."""
        out: dict[str, float] = {}
        for m in (*METRICS, "mentions"):
            r, p, f = self.rpf(m)
            out[f"{m}_recall"], out[f"{m}_precision"], out[f"{m}_f1"] = r, p, f
        out["conll_f1"] = self.conll_f1
        return out


def score_document(key: Clusters, response: Clusters) -> DocumentScore:
    """All metrics for one document."""
    a = align(key, response)
    bc, bn = blanc(a.key, a.response)
    return DocumentScore(
        muc=muc(a.key, a.muc_response),
        bcub=bcub(a.key, a.response),
        ceafm=ceaf(a.key, a.response, entity=False),
        ceafe=ceaf(a.key, a.response, entity=True),
        blanc_coref=bc,
        blanc_noncoref=bn,
        mentions=a.mentions,
        repeated=a.repeated,
    )


def score_corpus(key: Mapping[str, Clusters], response: Mapping[str, Clusters]) -> DocumentScore:
    """Counts summed over the key's documents (a missing response document scores as empty)."""
    return score_pairs((clusters, response.get(name, ())) for name, clusters in key.items())


def score_pairs(pairs: Iterable[tuple[Clusters, Clusters]]) -> DocumentScore:
    """Counts summed over (key, response) document pairs."""
    total = DocumentScore()
    for k, r in pairs:
        total = total + score_document(k, r)
    return total
