"""A model held in Python (``winoscope.hf_model``): the same answers as ``hf:PATH`` in every
mode, eval mode during the run, nothing moved or copied, and an identity that keeps the store
from ever serving one model's answers to another (hooks, in-place weight edits, labels)."""

from __future__ import annotations

import pytest

# the model stack: without torch (CI's Python 3.13 environment) this module is skipped
pytest.importorskip("torch")

import json
from pathlib import Path

import torch
from hf_requests import make_requests
from test_lm_scoring_batching import fail_batches_above
from test_lm_scoring_cloze import winogender_cloze
from transformers import AutoModelForCausalLM, AutoTokenizer

import winoscope
from steering import AddVector, gender_direction
from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.errors import BackendError
from winoscope.runs.runner import run

torch.set_num_threads(1)
CLOZE = [
    ("doctor.patient.1.male.txt", "The doctor told the patient that he would be fine."),
    ("nurse.patient.0.female.txt", "The nurse notified the patient that her shift would end."),
    ("chef.guest.1.neutral.txt", "The chef cooked for the guest because they were hungry."),
]


@pytest.fixture(scope="module")
def chat_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-live") / "model", seed=1, chat=True)


@pytest.fixture(scope="module")
def plain_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-live-plain") / "model", seed=1)


def loaded(path: Path) -> tuple[torch.nn.Module, object]:
    return AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)


def answers(backend: object, requests: list) -> dict[str, tuple]:
    got = {}
    for r in backend.respond(requests):  # type: ignore[attr-defined]
        assert r.error is None, r.error
        got[r.request_id] = (r.option_logprobs, r.letter_mass, r.text, r.option_token_counts)
    return got


@pytest.mark.parametrize("mode", ["letters", "texts", "cloze", "generate"])
def test_every_mode_answers_exactly_as_the_path_backend(chat_dir, mode):
    requests = winogender_cloze(CLOZE) if mode == "cloze" else make_requests(7)
    from_path = create_backend(f"hf:{chat_dir}", mode=mode, max_new_tokens=4)
    model, tok = loaded(chat_dir)
    live = winoscope.hf_model(model, tok, mode=mode, max_new_tokens=4, label="tiny")
    expected = answers(from_path, requests)
    assert answers(live, requests) == expected
    for key in ("mode", "dtype", "chat", "prefix", "letters", "decoding", "cloze"):
        assert live.params.get(key) == from_path.params.get(key), key


def test_a_model_between_training_steps_answers_in_eval_mode_and_is_handed_back(chat_dir):
    model, tok = loaded(chat_dir)
    model.train()
    model.transformer.h[0].eval()  # a frozen block stays frozen afterwards
    modes = {name: m.training for name, m in model.named_modules()}
    requests = make_requests(5)
    got = answers(winoscope.hf_model(model, tok), requests)
    assert got == answers(create_backend(f"hf:{chat_dir}"), requests)  # no dropout in them
    assert {name: m.training for name, m in model.named_modules()} == modes
    assert model.training and not model.transformer.h[0].training


def test_the_model_stays_on_its_device_in_its_dtype_and_is_not_copied(plain_dir):
    model, tok = loaded(plain_dir)
    model = model.to(torch.bfloat16)
    pointer = model.lm_head.weight.data_ptr()
    live = winoscope.hf_model(model, tok, mode="texts")
    assert live.params["dtype"] == "bfloat16"
    assert live.runtime["device"] == "cpu" and live.runtime["source"] == "in memory"
    for r in live.respond(make_requests(3)):
        assert r.error is None
    assert model.lm_head.weight.data_ptr() == pointer
    assert model.lm_head.weight.dtype == torch.bfloat16


def test_batch_size_auto_backs_off_on_out_of_memory(plain_dir):
    model, tok = loaded(plain_dir)
    requests = make_requests(14)
    expected = answers(create_backend(f"hf:{plain_dir}", batch_size=1), requests)
    seen: list[int] = []
    handle = fail_batches_above(model, 3, seen)
    try:
        live = winoscope.hf_model(model, tok)
        got = answers(live, requests)
        pre = live.params["hooks"]
    finally:
        handle.remove()
    assert [(h["module"], h["kind"]) for h in pre] == [("<model>", "forward_pre")]
    assert "hooks" not in live.params  # removed: gone from the identity
    assert seen[:3] == [8, 4, 2]
    assert live.sizer.size == 2 and live.sizer.oom_retries == 2
    for rid, (logprobs, *_rest) in got.items():
        assert logprobs == pytest.approx(expected[rid][0], abs=1e-5)


def test_what_is_not_a_model_is_a_clear_error(plain_dir):
    model, tok = loaded(plain_dir)
    with pytest.raises(BackendError, match="expected a loaded transformers causal LM"):
        winoscope.hf_model("gpt2", tok)
    with pytest.raises(BackendError, match="expected the model's tokenizer"):
        winoscope.hf_model(model, "gpt2")
    with pytest.raises(BackendError, match="mode='bogus'"):
        winoscope.hf_model(model, tok, mode="bogus")


def _responses(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())["responses"]


def test_a_hook_added_between_runs_asks_every_request_again(plain_dir, tmp_path):
    """The reported failure: a steering hook registered after a run, then a run into the same
    directory, reused every stored answer. Now the hook keys a scope of its own."""
    model, tok = loaded(plain_dir)
    live = winoscope.hf_model(model, tok, mode="texts", label="tiny")
    out = tmp_path / "run"
    first = run("winobias-uk", live, out=out, n_boot=50)
    n = first.manifest["requests"]
    assert _responses(out)["asked"] == n
    run("winobias-uk", live, out=out, n_boot=50)
    assert (_responses(out)["cached"], _responses(out)["asked"]) == (n, 0)
    handle = model.transformer.ln_f.register_forward_hook(
        AddVector(gender_direction(model, tok), 5.0)
    )
    try:
        steered = run("winobias-uk", live, out=out, n_boot=50)
    finally:
        handle.remove()
    assert (_responses(out)["cached"], _responses(out)["asked"]) == (0, n)
    gap = "split == 'macro' and metric == 'signed_bias_gap'"
    assert float(first.metrics.query(gap)["value"].iloc[0]) == pytest.approx(0.125)
    assert float(steered.metrics.query(gap)["value"].iloc[0]) == pytest.approx(0.0)
    hooks = steered.manifest["model"]["params"]["hooks"]
    assert hooks == [
        {
            "module": "transformer.ln_f",
            "kind": "forward",
            "callable": "steering.AddVector",
            "state_sha256": hooks[0]["state_sha256"],
        }
    ]
    report = (out / "report.md").read_text()
    assert "hook forward on transformer.ln_f: steering.AddVector" in report
    again = run("winobias-uk", live, out=out, n_boot=50)  # the hook removed: the first scope
    assert (_responses(out)["cached"], _responses(out)["asked"]) == (n, 0)
    assert again.metrics.equals(first.metrics)


def test_same_label_another_hook_state_or_an_edited_weight_asks_again(plain_dir, tmp_path):
    model, tok = loaded(plain_dir)
    direction = gender_direction(model, tok)
    live = winoscope.hf_model(model, tok, mode="texts", label="steered")
    out = tmp_path / "run"
    scopes = []
    for alpha in (5.0, 10.0):  # one hook class, one label, another strength
        handle = model.transformer.ln_f.register_forward_hook(AddVector(direction, alpha))
        try:
            rr = run("winobias-uk", live, out=out, n_boot=20)
        finally:
            handle.remove()
        assert _responses(out)["cached"] == 0
        scopes.append(rr.manifest["model"]["params"]["hooks"][0]["state_sha256"])
    assert scopes[0] != scopes[1]
    for fn in (lambda m, i, o: o * 1.0, lambda m, i, o: o * 1.0 + 0.0):  # two functions
        handle = model.transformer.ln_f.register_forward_hook(fn)
        try:
            run("winobias-uk", live, out=out, n_boot=20)
        finally:
            handle.remove()
        assert _responses(out)["cached"] == 0
    run("winobias-uk", live, out=out, n_boot=20)  # no hook: a scope of its own
    run("winobias-uk", live, out=out, n_boot=20)
    assert _responses(out)["asked"] == 0
    with torch.no_grad():  # a training step's worth of change to one matrix
        model.transformer.h[1].mlp.c_fc.weight.add_(0.01)
    run("winobias-uk", live, out=out, n_boot=20)
    assert _responses(out)["cached"] == 0


def test_without_a_label_nothing_is_stored_and_the_manifest_says_so(plain_dir, tmp_path):
    model, tok = loaded(plain_dir)
    out = tmp_path / "run"
    rr = run("winobias-uk", winoscope.hf_model(model, tok), out=out, n_boot=20)
    assert not (out / "responses.sqlite").exists()
    note = rr.manifest["responses"]["not_stored"]
    assert "stored only under a label" in note
    assert rr.manifest["model"]["spec"] == "hf:unlabelled-GPT2LMHeadModel"
    assert f"**Answers not stored**: {note}" in (out / "report.md").read_text()
    assert "answers not stored" in (out / "report.html").read_text()


def test_a_path_backend_with_a_hook_registered_after_loading_asks_again(plain_dir, tmp_path):
    backend = create_backend(f"hf:{plain_dir}", mode="texts")
    out = tmp_path / "run"
    run("winobias-uk", backend, out=out, n_boot=20)
    n = _responses(out)["asked"]
    model = backend.load().model
    handle = model.transformer.ln_f.register_forward_hook(
        AddVector(gender_direction(model, AutoTokenizer.from_pretrained(plain_dir)), 5.0)
    )
    try:
        rr = run("winobias-uk", backend, out=out, n_boot=20)
    finally:
        handle.remove()
    assert (_responses(out)["cached"], _responses(out)["asked"]) == (0, n)
    assert rr.manifest["model"]["params"]["hooks"][0]["module"] == "transformer.ln_f"
    with torch.no_grad():
        model.lm_head.weight.mul_(1.5)  # tied to the embeddings: an in-place edit
    rr = run("winobias-uk", backend, out=out, n_boot=20)
    assert _responses(out)["cached"] == 0
    assert "weights_modified" in rr.manifest["model"]["params"]
    assert "weights changed in place" in (out / "report.md").read_text()


def test_the_identity_is_cheap_and_names_config_and_weights(plain_dir):
    model, tok = loaded(plain_dir)
    live = winoscope.hf_model(model, tok, label="tiny")
    params = live.params
    assert params["label"] == "tiny"
    assert params["config"]["model_type"] == "gpt2"
    assert params["weights_check"] == "64 sampled elements per tensor"
    other, _ = loaded(build_tiny_gpt2(plain_dir.parent / "other", seed=2))
    assert winoscope.hf_model(other, tok, label="tiny").params["weights"] != params["weights"]
    same, _ = loaded(plain_dir)
    assert winoscope.hf_model(same, tok, label="tiny").params == params
    full = winoscope.hf_model(model, tok, label="tiny", verify="full").params
    assert full["weights_check"] == "full sha256" and full["weights"] != params["weights"]


def test_sampled_positions_reach_the_last_element_of_a_large_tensor():
    """Float positions overran a 167M-element embedding (Gemma 3); integer ones end exactly
    at the last element, so a change there shows."""
    from winoscope.backends.hf.live_identity import tensor_digest

    t = torch.zeros(2**24 + 3)
    before = tensor_digest(t)
    t[-1] = 1.0
    assert tensor_digest(t) != before
    t[1] = 1.0  # between two sampled positions: not seen (the documented limit)
    assert tensor_digest(t) == tensor_digest(t.clone())


def test_nan_log_probabilities_are_failed_requests_not_invalid_answers(plain_dir, tmp_path):
    """A hook that writes NaN (or a half-precision overflow) used to give every row an
    'invalid' answer and an accuracy of 0, with no error."""
    model, tok = loaded(plain_dir)
    handle = model.transformer.ln_f.register_forward_hook(lambda m, i, o: o * float("nan"))
    try:
        rr = run("winobias-uk", winoscope.hf_model(model, tok, mode="texts"), n_boot=20)
    finally:
        handle.remove()
    outcome = rr.manifest["outcome"]
    assert outcome["failed"] == outcome["requests"] and outcome["status"] == "failed"
    assert "non-finite log-probabilities" in rr.errors[0]["error"]
    assert not outcome["success"]


def test_a_system_turn_needs_a_chat_template_in_both_constructors(chat_dir, plain_dir):
    """The checks live in build_params, which hf:PATH and hf_model share."""
    for make in (
        lambda d, **o: create_backend(f"hf:{d}", **o),
        lambda d, **o: winoscope.hf_model(*loaded(d), **o),
    ):
        with pytest.raises(BackendError, match="system= needs the chat template"):
            make(chat_dir, system="Answer briefly.", chat=False)
        with pytest.raises(BackendError, match="no chat template to put it in"):
            make(plain_dir, system="Answer briefly.")
        assert make(chat_dir, system="Answer briefly.").params["system"] == "Answer briefly."
