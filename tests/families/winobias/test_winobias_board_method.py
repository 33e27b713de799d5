"""``counterbalanced_ab_mean_token_logprob_v1`` per item against its definition, written out here.

The reference builds each row's prompt from the method's wording, puts the target under the
letter given by the first byte of sha256("split/type/item_number"), renders it in the chat
template when the tokenizer has one, encodes prompt and prompt + letter with special tokens,
splits at their common prefix and averages the log-softmax of the letter's tokens from one
plain, unbatched forward pass over prompt + letter. Every option's mean and every prediction
must agree with winoscope's run (through ``hf:``) within 1e-5.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from pathlib import Path

import pandas as pd
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

import winoscope
from board_reference import winobias_reference
from tiny_lm import build_tiny_gpt2

torch.set_num_threads(1)
METHOD = "counterbalanced_ab_mean_token_logprob_v1"


def reference(model_dir: Path, table: pd.DataFrame) -> pd.DataFrame:
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    return winobias_reference(tok, model, table)


@pytest.mark.parametrize(
    ("chat", "bos"),
    [(False, False), (True, False), (False, True), (True, True)],
    ids=["raw", "chat-template", "raw-bos", "chat-template-bos"],
)
def test_every_option_score_and_prediction_match_the_definition(
    tmp_path: Path, chat: bool, bos: bool
) -> None:
    model_dir = build_tiny_gpt2(tmp_path / "model", seed=3, chat=chat, bos=bos)
    result = winoscope.run(
        "winobias-uk", f"hf:{model_dir}", protocol=METHOD, n_boot=0, out=tmp_path / "run"
    )
    pred = pd.read_parquet(tmp_path / "run" / "predictions.parquet")
    ref = reference(model_dir, pred)
    both = pred.merge(ref, on="row_id", validate="one_to_one")
    assert len(both) == len(pred) > 0
    assert (both["mean_logprob_A"] - both["ref_A"]).abs().max() < 1e-5
    assert (both["mean_logprob_B"] - both["ref_B"]).abs().max() < 1e-5
    assert both["prediction_role"].astype(str).tolist() == both["ref_role"].tolist()
    assert both["target_option"].tolist() == both["ref_target"].tolist()
    manifest = result.manifest
    assert manifest["protocol"] == METHOD
