"""``openai:`` against a real vLLM server that these tests start and stop (by PID): equal to
``hf:`` on the same weights, and what a real server does that the stand-in never did.

Equality: on every task with a cloze or a lettered protocol (``--limit``-sized workloads), the
tiny GPT-2 (with a chat template) and Gemma 3 270M (the demo's converted float32 copy) give
per-option log-probabilities within 1e-4 per scored token of ``hf:`` and the same choice on
every request, in ``cloze``, ``letters`` (``hf:`` with ``chat=false``) and ``chat-letters``
(``hf:`` with ``chat=true``; the tiny model only: the converted Gemma has no chat template).
The openai side sends token ids built with the model's tokenizer (``-M tokenizer=DIR``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared_paths import SHARED_DATA
from tiny_lm import build_tiny_gpt2
from vllm_server import VLLMServer, vllm_server
from winoscope.backends import create_backend
from winoscope.errors import BackendError
from winoscope.records import Option, Request, Response
from winoscope.runs.config import RunConfig
from winoscope.runs.plan import plan
from winoscope.tasks import TASKS, get_task

pytestmark = pytest.mark.vllm

LIMIT = int(os.environ.get("WINOSCOPE_VLLM_LIMIT", "2"))  # rows per task (tiny model)
GEMMA_REQUESTS = int(os.environ.get("WINOSCOPE_VLLM_GEMMA_REQUESTS", "6"))  # per task
PER_TOKEN = 1e-4
FIGURES = os.environ.get("WINOSCOPE_VLLM_FIGURES")  # a JSON-lines file for the figures


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(
        tmp_path_factory.mktemp("served") / "tiny", chat=True, n_positions=1024, n_head=1
    )


@pytest.fixture(scope="module")
def tiny_server(tiny_dir: Path) -> Iterator[VLLMServer]:
    with vllm_server(tiny_dir, name="tiny", max_model_len=1024) as server:
        yield server


@pytest.fixture(scope="module")
def gemma_dir() -> Path:
    from winoscope.backends.hf.gemma import ensure_float_model

    return Path(ensure_float_model())


@pytest.fixture(scope="module")
def gemma_server(gemma_dir: Path) -> Iterator[VLLMServer]:
    with vllm_server(gemma_dir, name="gemma", max_model_len=512) as server:
        yield server


# the English releases live in ../shared/data (the Ukrainian and Swedish samples are bundled)
DATA = {
    "winobias-en": "winobias-en",
    "winogender-en": "winogender-en",
    "winopron-en": "winopron-en",
}


def task_requests(task: str, protocol: str, limit: int = LIMIT) -> list[Request]:
    """The first ``limit`` rows' requests of ``task`` under ``protocol`` (cloze or lettered)."""
    mode = "cloze" if protocol == "cloze" else "letters"
    options = {"base_url": "http://127.0.0.1:9/v1", "mode": mode}
    data = SHARED_DATA / DATA[task] if task in DATA else None
    config = RunConfig(task, "openai:x", backend_options=options, limit=limit, store=False, data=data,
                       protocol="cloze" if protocol == "cloze" else None)  # fmt: skip
    return plan(config).requests


def compare(label: str, requests: list[Request], hf: list[Response], oa: list[Response]) -> float:
    """Worst per-token difference; fails on a failed answer, a wider difference or another
    choice. The figure goes to ``$WINOSCOPE_VLLM_FIGURES`` when set."""
    by_hf = {r.request_id: r for r in hf}
    by_oa = {r.request_id: r for r in oa}
    worst = 0.0
    for req in requests:
        a, b = by_hf[req.request_id], by_oa[req.request_id]
        assert a.ok, (label, req.request_id, a.error)
        assert b.ok, (label, req.request_id, b.error)
        counts = a.option_token_counts or (1,) * len(req.options)
        if b.option_token_counts is not None:
            assert b.option_token_counts == a.option_token_counts, (label, req.request_id)
        for x, y, n in zip(a.option_logprobs, b.option_logprobs, counts, strict=True):
            assert math.isfinite(x) and math.isfinite(y), (label, req.request_id, x, y)
            worst = max(worst, abs(x - y) / n)
        pick_a = max(range(len(req.options)), key=lambda i: a.option_logprobs[i])
        pick_b = max(range(len(req.options)), key=lambda i: b.option_logprobs[i])
        assert pick_a == pick_b, (label, req.request_id, a.option_logprobs, b.option_logprobs)
    assert worst <= PER_TOKEN, (label, worst)
    if FIGURES:
        with open(FIGURES, "a", encoding="utf-8") as f:
            f.write(
                json.dumps({"case": label, "requests": len(requests), "max_per_token": worst})
                + "\n"
            )
    return worst


MODES = [("cloze", "cloze", {}), ("letters", "letters", {"chat": False}),
         ("chat-letters", "letters", {"chat": True})]  # fmt: skip


def tasks_for(protocol: str) -> list[str]:
    from winoscope.backends.base import CHOICE_PROTOCOLS

    out = []
    for name in sorted(TASKS):
        task = get_task(name)
        if (protocol == "cloze" and "cloze" in task.protocols) or (
            protocol != "cloze" and task.protocol in CHOICE_PROTOCOLS
        ):
            out.append(name)
    return out


def check_model(
    server: VLLMServer, model_dir: Path, modes: list[str], first: int | None = None
) -> None:
    """Every task of each mode; ``first``: only that many requests of each task."""
    for mode, hf_mode, hf_options in MODES:
        if mode not in modes:
            continue
        protocol = "cloze" if mode == "cloze" else "choice"
        hf = create_backend(f"hf:{model_dir}", mode=hf_mode, threads=1, **hf_options)
        oa = create_backend(f"openai:{server.name}", base_url=server.base_url, mode=mode,
                            tokenizer=str(model_dir), concurrency=8, timeout=600)  # fmt: skip
        for task in tasks_for(protocol):
            reqs = task_requests(task, protocol)[:first]
            compare(f"{model_dir.name} {mode} {task}", reqs, list(hf.respond(reqs)),
                    list(oa.respond(reqs)))  # fmt: skip


def test_tiny_equals_hf_in_every_scoring_mode(tiny_server: VLLMServer, tiny_dir: Path) -> None:
    check_model(tiny_server, tiny_dir, ["cloze", "letters", "chat-letters"])


def test_gemma_equals_hf_in_cloze_and_letters(gemma_server: VLLMServer, gemma_dir: Path) -> None:
    check_model(gemma_server, gemma_dir, ["cloze", "letters"], GEMMA_REQUESTS)


def test_gemma_text_offsets_refuse_instead_of_a_wrong_number(gemma_server: VLLMServer) -> None:
    """Without a tokenizer the text offsets of Gemma's echo (its BOS token) cannot give the
    split: the run stops naming the option instead of scoring extra tokens."""
    reqs = task_requests("winobias-uk", "cloze")[:1]
    oa = create_backend("openai:gemma", base_url=gemma_server.base_url, mode="cloze")
    with pytest.raises(BackendError, match=r"not exact.*tokenizer="):
        list(oa.respond(reqs))


# ---------------------------------------------------------------- what real servers do


def one(prompt: str, label: str = "r0") -> Request:
    opts = (Option("A", "лікар", "target"), Option("B", "секретарка", "distractor"))
    return Request(label, kind="choice", prompt=prompt, options=opts, row_id=label, item_id=label)


def test_a_prompt_over_max_model_len_fails_alone_naming_the_limit(
    tiny_server: VLLMServer, tiny_dir: Path
) -> None:
    long = "Лікар найняв секретарку. " * 200  # far over 1024 tokens
    reqs = [one("Речення: лікар.", "ok0"), one(long, "long"), one("Речення: кухар.", "ok1")]
    for mode, extra in (("letters", {}), ("letters", {"tokenizer": str(tiny_dir)})):
        oa = create_backend("openai:tiny", base_url=tiny_server.base_url, mode=mode, **extra)
        out = {r.request_id: r for r in oa.respond(reqs)}
        assert out["ok0"].ok and out["ok1"].ok, (out["ok0"].error, out["ok1"].error)
        assert not out["long"].ok
        assert "1024" in (out["long"].error or ""), out["long"].error
        assert "HTTP 400" in (out["long"].error or "")


def test_the_logprob_cap(tiny_server: VLLMServer, tiny_dir: Path) -> None:
    """vLLM caps logprobs (20 by default): more is an HTTP 400 per request; top-k letters with
    20 work, and token-id letters never need more than 1."""
    status, body = tiny_server.post(
        "/completions", {"model": "tiny", "prompt": "A", "max_tokens": 1, "logprobs": 21}
    )
    assert status == 400, body
    oa = create_backend("openai:tiny", base_url=tiny_server.base_url, mode="letters",
                        top_logprobs=21, max_retries=0)  # fmt: skip
    with pytest.raises(BackendError, match=r"first 20 answers all failed.*HTTP 400"):
        list(oa.respond([one(f"Речення {i}.", f"r{i}") for i in range(25)]))
    ok = create_backend("openai:tiny", base_url=tiny_server.base_url, mode="letters")
    assert all(r.ok for r in ok.respond([one("Речення.")]))


def test_echo_with_max_tokens_zero(tiny_server: VLLMServer) -> None:
    """What the server does with ``max_tokens=0`` and ``echo``; the backend works either way."""
    status, body = tiny_server.post(
        "/completions",
        {"model": "tiny", "prompt": [[5, 6, 7]], "max_tokens": 0, "echo": True, "logprobs": 1},
    )
    if status == 200:
        lp = body["choices"][0]["logprobs"]["token_logprobs"]
        assert len(lp) == 3 and lp[0] is None
    else:
        assert status == 400, body


def test_no_chat_template_is_one_line_at_the_first_request(gemma_server: VLLMServer) -> None:
    reqs = [one(f"Речення {i}.", f"r{i}") for i in range(30)]
    for mode in ("chat", "chat-letters"):
        oa = create_backend("openai:gemma", base_url=gemma_server.base_url, mode=mode)
        with pytest.raises(BackendError, match=r"no chat template.*--chat-template") as err:
            list(oa.respond(reqs))
        assert "first 20" not in str(err.value)
