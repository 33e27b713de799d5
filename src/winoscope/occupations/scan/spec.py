"""What a corpus scan looks for: a lexicon expanded into byte patterns and their meanings.

Every case and apostrophe spelling of every form is its own pattern; a few patterns mean
different things at the start of a sentence and inside it (``Hans`` opening a sentence is the
pronoun 'his'; inside it, the name), and names that are common words (``Inga``, ``Per``)
count only inside a sentence. The :class:`ScanSpec` holds both meanings of every pattern.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...languages.apostrophes import apostrophe_variants
from ..forms import case_variants
from .counts import SETS, ScanCounts

if TYPE_CHECKING:
    from ..lexicons import Lexicon

GENDERS = ("female", "male")


@dataclass(frozen=True)
class Meaning:
    """What one pattern counts as at one position (initial / inside a sentence)."""

    collocate: int = 0  # 0 none, else 1 + 3 * gender + level (gender 0 female, 1 male; level 0..2)
    occupation: int = -1
    lemma: int = -1


@dataclass(frozen=True)
class ScanSpec:
    """Everything a worker needs to scan: patterns and what each means. Picklable and small.

    ``collocate``, ``occupation`` and ``lemma`` have shape (2, n_patterns): row 0 is the meaning
    at the start of a sentence, row 1 inside it. ``sensitive[p]`` marks patterns whose two rows
    differ (only those need the position check). ``occupation_patterns`` indexes the patterns
    that mention an occupation (the first stage of an occupation-only scan).
    """

    lang: str
    digest: str
    patterns: tuple[bytes, ...]
    collocate: np.ndarray
    occupation: np.ndarray
    lemma: np.ndarray
    sensitive: np.ndarray
    occupation_patterns: np.ndarray
    n_occupations: int
    n_lemmas: int
    conflicts: tuple[str, ...] = ()

    def new_counts(self, *, full: bool = True) -> ScanCounts:
        return ScanCounts(self.n_occupations, self.n_lemmas, full=full)


def build_spec(lexicon: Lexicon) -> ScanSpec:
    """Expand a lexicon into byte patterns (case and apostrophe variants) with their meanings.

    Several forms can produce the same bytes. Inside a sentence a proper name wins over the
    capitalised spelling of a common word (``Karl`` the name, not ``karl`` 'man'); at the start
    of a sentence the common word wins. Otherwise, among same-gender collocates the smallest set
    wins (it is in the larger sets too); genuinely conflicting claims are listed in
    ``conflicts`` and the first one in lexicon order is kept.
    """
    occ_index = {k: i for i, k in enumerate(lexicon.occupations)}
    lem_index = {k: i for i, k in enumerate(lexicon.lemmas)}
    # claims[pattern] = list of (meaning, allowed positions, proper)
    claims: dict[bytes, list[tuple[Meaning, tuple[bool, bool], bool]]] = {}
    for row in lexicon.forms.itertuples(index=False):
        if row.kind == "collocate":
            level = SETS.index(row.set)
            meaning = Meaning(collocate=1 + 3 * GENDERS.index(row.gender) + level)
        else:
            meaning = Meaning(occupation=occ_index[row.key], lemma=lem_index[(row.key, row.lemma)])
        proper = bool(row.proper)
        positions = (not bool(row.homograph), True)  # (sentence-initial, inside)
        for spelled in case_variants(row.form, proper=proper):
            for variant in apostrophe_variants(spelled):
                claims.setdefault(variant.encode("utf-8"), []).append((meaning, positions, proper))

    patterns = sorted(claims)
    n = len(patterns)
    col = np.zeros((2, n), np.int16)
    occ = np.full((2, n), -1, np.int32)
    lem = np.full((2, n), -1, np.int32)
    conflicts: list[str] = []
    for p, pattern in enumerate(patterns):
        for pos in (0, 1):
            allowed = [(m, proper) for m, positions, proper in claims[pattern] if positions[pos]]
            if any(proper for _, proper in allowed) and any(not proper for _, proper in allowed):
                # inside a sentence the capital marks a name; at its start, nothing
                allowed = [(m, pr) for m, pr in allowed if pr == (pos == 1)]
            collocates = sorted({m.collocate for m, _ in allowed if m.collocate})
            genders = {(c - 1) // 3 for c in collocates}
            if len(genders) > 1:
                conflicts.append(f"{pattern.decode()}: female and male claims")
            if collocates:
                first = next(m.collocate for m, _ in allowed if m.collocate)
                same = [c for c in collocates if (c - 1) // 3 == (first - 1) // 3]
                col[pos, p] = min(same)
            occs = [m for m, _ in allowed if m.occupation >= 0]
            if len({(m.occupation, m.lemma) for m in occs}) > 1:
                conflicts.append(f"{pattern.decode()}: several occupations")
            if occs:
                occ[pos, p] = occs[0].occupation
                lem[pos, p] = occs[0].lemma
    sensitive = (col[0] != col[1]) | (occ[0] != occ[1]) | (lem[0] != lem[1])
    digest = hashlib.sha256(b"\0".join(patterns) + col.tobytes() + occ.tobytes()).hexdigest()[:16]
    return ScanSpec(
        lang=lexicon.lang,
        digest=f"{lexicon.lang}-{digest}",
        patterns=tuple(patterns),
        collocate=col,
        occupation=occ,
        lemma=lem,
        sensitive=sensitive,
        occupation_patterns=np.flatnonzero((occ >= 0).any(axis=0)),
        n_occupations=len(lexicon.occupations),
        n_lemmas=len(lexicon.lemmas),
        conflicts=tuple(dict.fromkeys(conflicts)),
    )
