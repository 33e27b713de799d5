"""``counterbalanced_ab_mean_token_logprob_{raw,auto}_v2`` per prompt against the definition,
written out here: each forced-choice prompt of the dataset, stripped, rendered raw (or in the
chat template when the tokenizer has one, for ``auto``); prompt and prompt + letter encoded with
special tokens, split at their common prefix, the letter's tokens averaged from one plain
forward pass; a row counts when both of its prompts pick the same role. Every letter's mean,
every prompt's pick and every row's prediction must agree with winoscope's run through ``hf:``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from pathlib import Path

import pandas as pd
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

import winoscope
from board_reference import letter_means
from tiny_lm import build_tiny_gpt2
from winoscope.families.winopron.dataset import UK

torch.set_num_threads(1)


def reference(model_dir: Path, form: str) -> dict[str, dict[str, object]]:
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    prompts = pd.read_csv(UK.columns.sample_paths()["forced_choice"], dtype=str)
    out: dict[str, dict[str, object]] = {}
    for p in prompts.to_dict("records"):
        means = letter_means(tok, model, p["prompt_uk"].strip(), form)
        roles = {"A": p["option_a_role"], "B": p["option_b_role"]}
        pick = "tie" if means["A"] == means["B"] else roles[max("AB", key=means.__getitem__)]
        key = f"{p['context']}/{p['row_id']}"
        row = out.setdefault(key, {"gold": p["gold_role"], "picks": {}})
        row["picks"][p["option_order"]] = pick  # type: ignore[index]
        row[p["option_order"]] = means
    return out


@pytest.mark.parametrize("form", ["raw", "auto"])
def test_every_prompt_and_row_match_the_definition(tmp_path: Path, form: str) -> None:
    model_dir = build_tiny_gpt2(tmp_path / "model", seed=11, chat=form == "auto", bos=True)
    method = f"counterbalanced_ab_mean_token_logprob_{form}_v2"
    winoscope.run("winopron-uk", f"hf:{model_dir}", protocol=method, n_boot=0, out=tmp_path / "run")
    pred = pd.read_parquet(tmp_path / "run" / "predictions.parquet").set_index("row_key")
    ref = reference(model_dir, form)
    assert set(ref) == set(pred.index)
    worst = 0.0
    for key, want in ref.items():
        got = pred.loc[key]
        picks = want["picks"]
        for order, means in ((o, want[o]) for o in picks):  # type: ignore[union-attr]
            for letter in "AB":
                worst = max(worst, abs(got[f"mean_logprob_{order}_{letter}"] - means[letter]))  # type: ignore[index]
            assert got[f"pick_{order}"] == picks[order]  # type: ignore[index]
        values = list(picks.values())  # type: ignore[union-attr]
        role = values[0] if len(set(values)) == 1 and values[0] != "tie" else "invalid"
        assert got["prediction_role"] == role
        credit = sum(1.0 if v == want["gold"] else 0.5 if v == "tie" else 0.0 for v in values)
        assert got["prompt_credit"] == credit
    assert worst < 1e-5
