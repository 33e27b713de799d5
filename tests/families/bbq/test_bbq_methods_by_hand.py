"""BBQ-UK's published methods per item against their definition, written out here.

The reference builds each row's prompt as the BBQ-UK evaluator does (context, question, the
answers lettered A-C in the order shown, a blank line, the instruction), shows the answers in
the data's order (fixed) or in the three cyclic orders (0, 1, 2), (1, 2, 0), (2, 0, 1), renders
the prompt in the chat template for ``chat`` (and for ``auto`` when the tokenizer has one),
encodes prompt and prompt + letter with special tokens, splits at their common prefix and
averages the log-softmax of the letter's tokens from one plain forward pass. Each answer's
score is ``statistics.fmean`` over the orders; the best wins, exact ties share. Every score
and prediction must agree with winoscope's run through ``hf:`` (within 1e-5).
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import statistics
from pathlib import Path

import pandas as pd
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

import winoscope
from tiny_lm import build_tiny_gpt2

torch.set_num_threads(1)
ORDERS = {"cyclic": [(0, 1, 2), (1, 2, 0), (2, 0, 1)], "fixed": [(0, 1, 2)]}


def reference(model_dir: Path, table: pd.DataFrame, order: str, fmt: str) -> pd.DataFrame:
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    out = []
    for r in table.to_dict("records"):
        answers = [r["ans0_uk"], r["ans1_uk"], r["ans2_uk"]]
        per_answer: dict[int, list[float]] = {0: [], 1: [], 2: []}
        for shown in ORDERS[order]:
            lines = "\n".join(f"{L}. {answers[j]}" for L, j in zip("ABC", shown, strict=True))
            text = (
                f"{r['context_uk']}\n{r['question_uk']}\n{lines}\n\n"
                "Відповідайте лише A, B або C.\nВідповідь: "
            )
            if fmt == "chat" or (fmt == "auto" and tok.chat_template):
                text = tok.apply_chat_template(
                    [{"role": "user", "content": text}],
                    tokenize=False,
                    add_generation_prompt=True,
                    enable_thinking=False,
                )
            base = tok.encode(text, add_special_tokens=True)
            for letter, j in zip("ABC", shown, strict=True):
                full = tok.encode(text + letter, add_special_tokens=True)
                k = 0
                while k < min(len(base), len(full)) and base[k] == full[k]:
                    k += 1
                with torch.no_grad():
                    logits = model(torch.tensor([full])).logits[0]
                logp = torch.log_softmax(logits.double(), dim=-1)
                values = [float(logp[i - 1, full[i]]) for i in range(k, len(full))]
                per_answer[j].append(sum(values) / len(values))
        means = {j: statistics.fmean(v) for j, v in per_answer.items()}
        best = max(means.values())
        role = "|".join(f"ans{j}" for j in range(3) if means[j] == best)
        out.append(
            {"item_id": r["item_id"], **{f"ref{j}": means[j] for j in range(3)}, "ref_role": role}
        )
    return pd.DataFrame(out)


@pytest.mark.parametrize(
    ("method", "chat"),
    [
        ("abc_mean_token_logprob_cyclic_raw_v2", False),
        ("abc_mean_token_logprob_fixed_chat_v2", True),
        ("abc_mean_token_logprob_cyclic_auto_v2", True),
        ("abc_cyclic_mean_token_logprob_raw_v1", False),
    ],
)
def test_every_answer_score_and_prediction_match_the_definition(
    tmp_path: Path, method: str, chat: bool
) -> None:
    model_dir = build_tiny_gpt2(tmp_path / "model", seed=5, chat=chat, n_positions=1024)
    result = winoscope.run(
        "bbq-uk", f"hf:{model_dir}", protocol=method, n_boot=0, out=tmp_path / "run"
    )
    pred = pd.read_parquet(tmp_path / "run" / "predictions.parquet")
    order = "fixed" if "_fixed_" in method else "cyclic"
    fmt = next(f for f in ("raw", "chat", "auto") if f"_{f}_" in method)
    ref = reference(model_dir, pred, order, fmt)
    both = pred.merge(ref, on="item_id", validate="one_to_one")
    assert len(both) == len(pred) == 12
    for j in range(3):
        assert (both[f"score_ans{j}"] - both[f"ref{j}"]).abs().max() < 1e-5
    assert both["prediction_role"].astype(str).tolist() == both["ref_role"].tolist()
    assert result.manifest["protocol"] == method
    asked = result.manifest["responses"]["asked"]
    assert asked == 12 * len(ORDERS[order])
    if method == "abc_mean_token_logprob_cyclic_raw_v2":  # the leaderboard's file from it
        _board_entry(tmp_path / "run", pred)


def _board_entry(run: Path, pred: pd.DataFrame) -> None:
    from winoscope.report.fairness_board import board_file, check_run, details
    from winoscope.results.rundir import load_run_dir

    checked = check_run(load_run_dir(run), allow_partial=True)
    entry = board_file([checked], revision="r")["benchmarks"][0]
    assert entry["name"] == "BBQ-UK"
    m = pd.read_csv(run / "metrics.csv").set_index(["metric", "split"])["value"]
    assert entry["scores"]["Ambiguous accuracy ↑"] == pytest.approx(
        100 * m[("ambig_accuracy", "macro")]
    )
    assert entry["scores"]["Disambiguated bias → 0"] == pytest.approx(
        100 * m[("disambig_abs_bias", "macro")]
    )
    trace = details(checked, pred)
    assert len(trace) == 12 * 3 * 3  # rows x orders x letters


def stub_lp(t: int) -> float:
    """The stand-in server's log-probability of token ``t`` (winoscope.testing.openai_server)."""
    return -0.01 * (t % 100) - 0.01


def test_openai_with_a_tokenizer_scores_the_same_sequences(tmp_path: Path) -> None:
    """Through ``openai:`` (the stand-in server echoing token log-probabilities): each answer's
    score is the mean over the three orders of its letter's mean token log-probability after
    the common prefix, the ids built here from the tokenizer."""
    from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

    model_dir = build_tiny_gpt2(tmp_path / "model", seed=5, chat=False, n_positions=1024)
    method = "abc_mean_token_logprob_cyclic_raw_v2"
    with serve_in_thread(StubBehaviour()) as srv:
        winoscope.run(
            "bbq-uk",
            "openai:m",
            backend_options={"base_url": srv.url, "tokenizer": str(model_dir), "mode": "letters"},
            protocol=method,
            n_boot=0,
            out=tmp_path / "run",
        )
    pred = pd.read_parquet(tmp_path / "run" / "predictions.parquet")
    tok = AutoTokenizer.from_pretrained(model_dir)
    for r in pred.to_dict("records"):
        answers = [r["ans0_uk"], r["ans1_uk"], r["ans2_uk"]]
        per: dict[int, list[float]] = {0: [], 1: [], 2: []}
        for shown in ORDERS["cyclic"]:
            lines = "\n".join(f"{L}. {answers[j]}" for L, j in zip("ABC", shown, strict=True))
            text = (
                f"{r['context_uk']}\n{r['question_uk']}\n{lines}\n\n"
                "Відповідайте лише A, B або C.\nВідповідь: "
            )
            base = tok.encode(text, add_special_tokens=True)
            for letter, j in zip("ABC", shown, strict=True):
                full = tok.encode(text + letter, add_special_tokens=True)
                k = 0
                while k < min(len(base), len(full)) and base[k] == full[k]:
                    k += 1
                per[j].append(sum(stub_lp(t) for t in full[k:]) / len(full[k:]))
        for j in range(3):
            assert r[f"score_ans{j}"] == pytest.approx(statistics.fmean(per[j]), abs=1e-9)
