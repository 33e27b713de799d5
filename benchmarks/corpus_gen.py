"""A Swedish-like synthetic corpus for scan benchmarks: one sentence per line.

Sentences mix frequent function words and invented content words with the lexicon's pronouns,
gendered nouns, first names and occupation forms at roughly newspaper rates (3.5% of words a
pronoun, 1% a first name, 0.7% a gendered noun, 0.2% an occupation form). A pool of sentences is
drawn with numpy and written in shuffled order until the file reaches the requested size, so
generating 1 GB takes seconds, not minutes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

FUNCTION_WORDS = [
    "och",
    "i",
    "att",
    "det",
    "som",
    "en",
    "på",
    "är",
    "av",
    "för",
    "med",
    "till",
    "den",
    "har",
    "de",
    "inte",
    "om",
    "ett",
    "var",
    "men",
    "från",
    "vid",
    "så",
    "kan",
    "när",
    "år",
    "sig",
    "också",
    "efter",
    "eller",
    "nu",
    "under",
    "mot",
    "ska",
    "skulle",
    "kommer",
    "alla",
    "hade",
    "bara",
    "vara",
    "två",
    "mycket",
    "sedan",
    "finns",
    "där",
    "andra",
    "dag",
    "får",
    "nya",
    "blir",
    "går",
    "enligt",
    "inom",
    "utan",
    "kronor",
    "procent",
]


def _content_words(rng: np.random.Generator, n: int) -> list[str]:
    consonants, vowels = "bdfghjklmnprstv", "aeiouyåäö"
    endings = ["", "n", "r", "t", "en", "ar", "na"]
    out = []
    for _ in range(n):
        k = int(rng.integers(2, 5))
        cs = rng.integers(0, len(consonants), k)
        vs = rng.integers(0, len(vowels), k)
        word = "".join(consonants[c] + vowels[v] for c, v in zip(cs, vs, strict=True))
        out.append(word + endings[int(rng.integers(0, len(endings)))])
    return out


def sentence_pool(lexicon, n_sentences: int = 200_000, seed: int = 0) -> list[bytes]:  # type: ignore[no-untyped-def]
    """``n_sentences`` random sentences (bytes, without the newline)."""
    rng = np.random.default_rng(seed)
    forms = lexicon.forms
    col = forms[forms["kind"] == "collocate"]
    categories = [
        (0.035, col[col["set"] == "small"]["form"].tolist()),
        (0.007, col[col["set"] == "medium"]["form"].tolist()),
        (0.010, col[col["set"] == "large"]["form"].tolist() or ["Anna", "Erik"]),
        (0.002, forms[forms["kind"] == "occupation"]["form"].tolist()),
        (0.496, FUNCTION_WORDS),
    ]
    rest = 1 - sum(p for p, _ in categories)
    categories.append((rest, _content_words(rng, 5000)))
    probs = np.array([p for p, _ in categories])
    vocab = [w.encode("utf-8") for _, words in categories for w in words]
    offsets = np.cumsum([0] + [len(words) for _, words in categories])
    sizes = np.array([len(words) for _, words in categories])

    lengths = rng.integers(8, 26, n_sentences)
    n_tokens = int(lengths.sum())
    cat = rng.choice(len(categories), size=n_tokens, p=probs)
    index = offsets[cat] + (rng.random(n_tokens) * sizes[cat]).astype(np.int64)
    words = [vocab[i] for i in index.tolist()]
    pool = []
    at = 0
    for n in lengths.tolist():
        sentence = words[at : at + n]
        at += n
        first = sentence[0]
        sentence[0] = first[:1].upper() + first[1:]
        pool.append(b" ".join(sentence) + b".")
    return pool


def write_corpus(path: str | Path, size: int, lexicon, seed: int = 0) -> int:  # type: ignore[no-untyped-def]
    """Write about ``size`` bytes of sentences to ``path``; returns the bytes written."""
    pool = sentence_pool(lexicon, seed=seed)
    rng = np.random.default_rng(seed + 1)
    written = 0
    with open(path, "wb") as fh:
        while written < size:
            batch = b"\n".join([pool[i] for i in rng.permutation(len(pool)).tolist()]) + b"\n"
            if written + len(batch) > size:
                cut = batch.rfind(b"\n", 0, size - written)
                if cut < 0:
                    break
                batch = batch[: cut + 1]
            fh.write(batch)
            written += len(batch)
    return written
