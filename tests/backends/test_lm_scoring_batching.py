"""``batch_size=auto`` out-of-memory recovery, lazy loading on resume, devices and configs."""

from __future__ import annotations

import pytest

# the model stack: without torch (CI's Python 3.13 environment) this module is skipped
pytest.importorskip("torch")

import json
import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
from test_lm_scoring_cloze import winogender_cloze

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.backends.hf.batching import BatchSizer
from winoscope.backends.hf.identity import model_fingerprint, resolved_commit, safetensors_header
from winoscope.backends.hf.loading import context_length, resolve_dtype, sliding_window
from winoscope.errors import BackendError
from winoscope.runs.runner import run

torch.set_num_threads(1)
SENTENCES = [
    ("doctor.patient.1.male.txt", "The doctor told the patient that he would be fine."),
    ("nurse.patient.0.female.txt", "The nurse notified the patient that her shift would end."),
    ("chef.guest.1.neutral.txt", "The chef cooked for the guest because they were hungry."),
    ("teacher.student.0.male.txt", "The teacher praised the student because his work was good."),
    ("clerk.customer.1.female.txt", "The clerk helped the customer because she asked nicely."),
    ("pilot.passenger.0.male.txt", "The pilot greeted the passenger before he boarded."),
    ("baker.child.1.female.txt", "The baker gave the child a cake because she was kind."),
]


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-batching") / "model", seed=5)


def fail_batches_above(model: Any, limit: int, seen: list[int]) -> Any:
    """A pre-forward hook raising CUDA's out-of-memory error for batches wider than ``limit``."""

    def hook(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        seen.append(int(ids.shape[0]))
        if ids.shape[0] > limit:
            raise torch.cuda.OutOfMemoryError(f"CUDA out of memory (batch {ids.shape[0]})")

    return model.register_forward_pre_hook(hook, with_kwargs=True)


@pytest.mark.parametrize(("mode", "final", "retries"), [("letters", 2, 2), ("cloze", 1, 3)])
def test_auto_batch_size_halves_on_out_of_memory_and_loses_no_answer(
    tiny_dir, mode, final, retries
):
    """Batches above 3 rows fail: 8 -> 4 -> 2 prompts. A cloze's continuation pass has one row
    per option (2 prompts = 4 rows), so cloze goes down to 1."""
    from test_hf_local import make_requests

    more = [(f"{i}.{k}", s.replace("The ", "A ", 1)) for k, (i, s) in enumerate(SENTENCES)]
    reqs = make_requests(14) if mode == "letters" else winogender_cloze(SENTENCES + more)
    assert len({r.request_id for r in reqs}) == 14
    plain = create_backend(f"hf:{tiny_dir}", mode=mode, batch_size=1)
    expected = {r.request_id: r.option_logprobs for r in plain.respond(reqs)}
    auto = create_backend(f"hf:{tiny_dir}", mode=mode, batch_size="auto")
    seen: list[int] = []
    handle = fail_batches_above(auto.load().model, 3, seen)
    try:
        got = list(auto.respond(reqs))
    finally:
        handle.remove()
    assert sorted(r.request_id for r in got) == sorted(r.request_id for r in reqs)  # once each
    assert all(r.error is None for r in got)
    for r in got:
        assert r.option_logprobs == pytest.approx(expected[r.request_id], abs=1e-5)
    assert seen[:3] == [8, 4, 2]
    assert (auto.sizer.size, auto.sizer.oom_retries) == (final, retries)
    assert (auto.runtime["batch_size_used"], auto.runtime["oom_retries"]) == (final, retries)


def test_a_fixed_batch_size_does_not_retry_and_says_what_to_do(tiny_dir):
    from test_hf_local import make_requests

    backend = create_backend(f"hf:{tiny_dir}", batch_size=4)
    handle = fail_batches_above(backend.load().model, 2, [])
    try:
        with pytest.raises(BackendError, match="batch_size=auto"):
            list(backend.respond(make_requests(5)))
    finally:
        handle.remove()


def test_a_request_that_fails_even_alone_is_an_error_response():
    sizer = BatchSizer(4, auto=True)

    def work(batch: list[int]) -> list[str]:
        if 2 in batch:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory")
        return [f"ok{i}" for i in batch]

    out = list(sizer.run([0, 1, 2, 3, 4], [5, 4, 3, 2, 1], work, lambda i, m: f"error{i}"))
    answers = {i: a for batch, results in out for i, a in zip(batch, results, strict=True)}
    assert answers == {0: "ok0", 1: "ok1", 2: "error2", 3: "ok3", 4: "ok4"}
    assert sum(len(b) for b, _ in out) == 5
    assert sizer.size == 1 and sizer.history == [2, 1]


def test_resuming_a_finished_run_never_loads_the_model(tiny_dir, tmp_path):
    out = tmp_path / "run"
    first = run("winobias-uk", f"hf:{tiny_dir}", out=out, n_boot=20)
    assert first.manifest["model"]["runtime"]["loaded"] is True
    backend = create_backend(f"hf:{tiny_dir}")
    again = run("winobias-uk", backend, out=out, n_boot=20)
    assert backend._lm is None  # every answer came from the store
    assert again.manifest["responses"]["asked"] == 0
    assert again.manifest["model"]["runtime"]["loaded"] is False
    assert again.predictions["prediction_role"].tolist() == (
        first.predictions["prediction_role"].tolist()
    )


def test_devices_and_dtypes(tiny_dir):
    b = create_backend(f"hf:{tiny_dir}")
    assert b.params["dtype"] == "float32"
    if not torch.cuda.is_available():
        assert b.load_options.device == "cpu"
        with pytest.raises(BackendError, match="sees no CUDA"):
            create_backend(f"hf:{tiny_dir}", device="cuda")
    with pytest.raises(BackendError, match="device='tpu'"):
        create_backend(f"hf:{tiny_dir}", device="tpu")
    with pytest.raises(BackendError, match="dtype='float8'"):
        create_backend(f"hf:{tiny_dir}", dtype="float8")
    bf16 = create_backend(f"hf:{tiny_dir}", dtype="bfloat16", device="cpu")
    assert bf16.params["dtype"] == "bfloat16" and bf16.params != b.params  # dtype keys the store
    assert str(bf16.load().model.dtype) == "torch.bfloat16"
    # auto: float32 on the CPU, the checkpoint's dtype on an accelerator
    assert resolve_dtype("auto", "cpu", {"dtype": "bfloat16"}) == "float32"
    assert resolve_dtype("auto", "cuda", {"torch_dtype": "float16"}) == "float16"
    assert resolve_dtype("auto", "mps", {"text_config": {"dtype": "bfloat16"}}) == "bfloat16"
    assert resolve_dtype("auto", "mps", {}) == "bfloat16"


def test_context_and_window_are_read_from_a_nested_text_config():
    gemma3 = SimpleNamespace(
        max_position_embeddings=None,
        sliding_window=None,
        text_config=SimpleNamespace(max_position_embeddings=131072, sliding_window=1024),
    )
    assert (context_length(gemma3), sliding_window(gemma3)) == (131072, 1024)
    gpt2 = SimpleNamespace(n_positions=1024)
    assert (context_length(gpt2), sliding_window(gpt2)) == (1024, None)
    from transformers import Gemma3Config

    real = Gemma3Config()
    assert context_length(real) == real.text_config.max_position_embeddings
    assert sliding_window(real) == real.text_config.sliding_window


def test_fingerprint_reads_headers_and_commit_comes_from_the_snapshot_path(tiny_dir, tmp_path):
    st = next(tiny_dir.glob("*.safetensors"))
    header = json.loads(safetensors_header(st))
    (n,) = struct.unpack("<Q", st.read_bytes()[:8])
    assert len(safetensors_header(st)) == n and "transformer.wte.weight" in header
    commit = "0123456789abcdef0123456789abcdef01234567"
    snap = tmp_path / "models--org--tiny" / "snapshots" / commit
    snap.parent.mkdir(parents=True)
    import shutil

    shutil.copytree(tiny_dir, snap)
    assert resolved_commit(snap) == commit and resolved_commit(tiny_dir) is None
    b = create_backend(f"hf:{snap}")
    assert b.params["commit"] == commit
    assert b.params["fingerprint"] == model_fingerprint(tiny_dir)
    # one changed weight byte deep inside the data changes the fingerprint's sampled blocks
    data = bytearray(st.read_bytes())
    data[8 + n] ^= 0xFF
    (snap / st.name).write_bytes(bytes(data))
    assert model_fingerprint(snap) != model_fingerprint(tiny_dir)


def test_a_prompt_too_big_even_alone_fails_alone(tiny_dir):
    from test_hf_local import make_requests

    reqs = make_requests(7)
    backend = create_backend(f"hf:{tiny_dir}", batch_size="auto")
    lengths = {r.request_id: len(backend.prompt_ids(r.prompt)) for r in reqs}
    longest = max(lengths.values())
    big = {rid for rid, n in lengths.items() if n == longest}

    def hook(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if kwargs["input_ids"].shape[1] >= longest:  # any batch holding the longest prompt
            raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    handle = backend.load().model.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        got = {r.request_id: r for r in backend.respond(reqs)}
    finally:
        handle.remove()
    assert set(got) == {r.request_id for r in reqs}
    assert {rid for rid, r in got.items() if r.error} == big
    assert all("out of memory even alone" in (got[rid].error or "") for rid in big)
