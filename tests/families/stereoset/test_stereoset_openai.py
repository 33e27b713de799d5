"""StereoSet-UK Eval through ``openai:`` (with ``tokenizer=``) against the stand-in server, whose
echoed log-probability of a token sent as id ``t`` is ``-0.01 * (t % 100) - 0.01``: every
sentence must be sent as the start token then its ids without special tokens, and scored by
the mean over the sentence's tokens, worked out here from the tokenizer alone."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("transformers")

import winoscope
from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

FILLS = ("stereotype", "anti_stereotype", "unrelated")


def lp(t: int) -> float:
    return -0.01 * (t % 100) - 0.01


def test_sentences_are_sent_after_the_start_token_and_averaged(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    tiny = build_tiny_gpt2(tmp_path / "model", chat=True, bos=True)
    tok = AutoTokenizer.from_pretrained(tiny)
    with serve_in_thread(StubBehaviour()) as srv:
        b = create_backend("openai:m", base_url=srv.url, mode="letters", tokenizer=str(tiny))
        winoscope.run("stereoset-uk", b, n_boot=0, out=tmp_path / "run", quiet=True)
        sent = [p for call in srv.calls for p in call.body["prompt"]]
    pred = pd.read_parquet(tmp_path / "run" / "predictions.parquet")
    expected_prompts = []
    for r in pred.to_dict("records"):
        for fill in FILLS:
            sentence = r["template_uk"].replace("[BLANK]", r[f"{fill}_fill_uk"])
            ids = [tok.bos_token_id, *tok.encode(sentence, add_special_tokens=False)]
            expected_prompts.append(ids)
            mean = sum(lp(t) for t in ids[1:]) / (len(ids) - 1)
            assert r[f"{fill}_logprob"] == pytest.approx(mean, abs=1e-12)
            assert r[f"{fill}_tokens"] == len(ids) - 1
    assert sorted(sent) == sorted(expected_prompts)
