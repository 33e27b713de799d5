"""The counts a corpus scan produces, and how partial counts merge.

Counts from any split of a corpus (byte ranges, files, processes, Dask tasks) add up to the
counts of the whole corpus, because every number is a count of sentences or matches. Merging
is plain integer addition, so single-process, multi-process and Dask runs agree exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SETS = ("small", "medium", "large")
#: Sentence classes per collocate set. ``none``: no collocate of this set in the sentence.
CLASSES = ("female", "male", "tie", "none")


@dataclass
class ScanCounts:
    """Sentence counts of one scan (or one piece of it).

    * ``lines``: sentences read (one per line; CoNLL-U: one per sentence), empty ones included;
    * ``totals[s, c]``: sentences of class ``c`` (female/male/tie/none) with collocate set ``s``
      over the whole corpus (only when ``full``; an occupation-only scan reads just the
      sentences that mention an occupation and leaves this at zero);
    * ``occupation[o, s, c]`` / ``lemma[l, s, c]``: sentences that mention occupation ``o``
      (in any form of any of its lemmas) / lemma ``l``, by class;
    * ``hits[g, k]``: collocate tokens of gender ``g`` (female, male) first added in set ``k``;
    * ``bytes``: input bytes scanned (decompressed size for .gz/.zst).
    """

    n_occupations: int
    n_lemmas: int
    full: bool = True
    lines: int = 0
    bytes: int = 0
    totals: np.ndarray = field(default=None)  # type: ignore[arg-type]
    occupation: np.ndarray = field(default=None)  # type: ignore[arg-type]
    lemma: np.ndarray = field(default=None)  # type: ignore[arg-type]
    hits: np.ndarray = field(default=None)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        if self.totals is None:
            self.totals = np.zeros((len(SETS), len(CLASSES)), np.int64)
        if self.occupation is None:
            self.occupation = np.zeros((self.n_occupations, len(SETS), len(CLASSES)), np.int64)
        if self.lemma is None:
            self.lemma = np.zeros((self.n_lemmas, len(SETS), len(CLASSES)), np.int64)
        if self.hits is None:
            self.hits = np.zeros((2, len(SETS)), np.int64)

    def add(self, other: ScanCounts) -> ScanCounts:
        """Add ``other`` into ``self`` (in place) and return ``self``."""
        if (other.n_occupations, other.n_lemmas) != (self.n_occupations, self.n_lemmas):
            raise ValueError("counts from different lexicons cannot be merged")
        self.full = self.full and other.full
        self.lines += other.lines
        self.bytes += other.bytes
        self.totals += other.totals
        self.occupation += other.occupation
        self.lemma += other.lemma
        self.hits += other.hits
        return self

    def equals(self, other: ScanCounts) -> bool:
        return (
            self.full == other.full
            and self.lines == other.lines
            and self.bytes == other.bytes
            and all(
                np.array_equal(getattr(self, k), getattr(other, k))
                for k in ("totals", "occupation", "lemma", "hits")
            )
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "full": self.full,
            "lines": self.lines,
            "bytes": self.bytes,
            "totals": self.totals.tolist(),
            "occupation": self.occupation.tolist(),
            "lemma": self.lemma.tolist(),
            "hits": self.hits.tolist(),
        }
