"""Fixtures of the corpus-scan tests: compiled lexicons and a mixed plain/gzip/zstd corpus."""

from __future__ import annotations

import gzip
import random

import pytest
import zstandard
from scan_corpora import SV_TEXT

from winoscope.occupations.lexicons import load_lexicon
from winoscope.occupations.scan import (
    build_spec,
)


@pytest.fixture(scope="module")
def sv_spec():
    return build_spec(load_lexicon("sv"))


@pytest.fixture(scope="module")
def sv_lexicon_names(tmp_path_factory):
    """A tiny names table so the Swedish large set is known exactly."""
    path = tmp_path_factory.mktemp("names") / "names.csv"
    path.write_text(
        "name,gender,persons\nInga,female,5000\nPer,male,9000\nHans,male,7000\nAnna,female,8000\n"
        "Kim,female,3000\nKim,male,8000\nEva,female,500\n",
        encoding="utf-8",
    )
    return load_lexicon("sv", names=path)


@pytest.fixture(scope="module")
def sv_names_spec(sv_lexicon_names):
    return build_spec(sv_lexicon_names)


@pytest.fixture(scope="module")
def uk_spec():
    return build_spec(load_lexicon("uk"))


@pytest.fixture(scope="module")
def mixed_corpus(tmp_path_factory, sv_lexicon_names):
    """Plain, gzip and zstd files whose lines mix every case above, about 1.5 MB in all."""
    tmp = tmp_path_factory.mktemp("corpus")
    lines = SV_TEXT.splitlines()
    rng = random.Random(7)
    body = "\n".join(rng.choice(lines) for _ in range(30000)) + "\n"
    plain = tmp / "a.txt"
    plain.write_text(body, encoding="utf-8")
    gz = tmp / "b.txt.gz"
    gz.write_bytes(gzip.compress(body[: len(body) // 3].encode()))
    zst = tmp / "c.txt.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(body[len(body) // 2 :].encode()))
    return [plain, gz, zst]
