"""``vllm:`` equals ``hf:`` item by item on the same weights (float32), on every task with a
lettered-choice or a cloze protocol: each option's log-probability within 1e-4 per token, and
the same prediction for every row.

Two models: the tiny GPT-2 with a chat template (letters are read in it), and Gemma 3 270M (the
demo's converted float32 copy; no chat template, so letters follow the plain prompt). Each
model's engine starts once for the module (backends on one model share it).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from vllm_helpers import CHOICE_TASKS, CLOZE_TASKS, ENGINE, compare

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(900)]

TOLERANCE = 1e-4
FIGURES: dict[tuple[str, str, str], tuple[float, int, int]] = {}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch

    torch.set_num_threads(1)
    # heads of 32 dimensions: vLLM's CPU attention takes no smaller
    return build_tiny_gpt2(
        tmp_path_factory.mktemp("tiny-chat"), chat=True, n_embd=64, n_positions=1024
    )


@pytest.fixture(scope="module", autouse=True)
def real_data(shared_data: Path) -> Path:
    """The English tasks read ../shared/data (skipped without it, required in CI)."""
    return shared_data


def _check(model: str, task: str, mode: str, protocol: str) -> None:
    hf = create_backend(f"hf:{model}", mode=mode)
    vl = create_backend(f"vllm:{model}", mode=mode, **ENGINE)
    got = compare(task, hf, vl, protocol)
    FIGURES[(Path(model).name, task, mode)] = (
        got.max_per_token,
        got.requests,
        len(got.differing_predictions),
    )
    print(
        f"\n{Path(model).name} {task} {mode}: {got.requests} requests, max {got.max_per_token:.3g}"
    )
    assert got.requests > 0
    assert not got.errors
    assert got.max_per_token <= TOLERANCE
    assert got.differing_predictions == []


@pytest.mark.parametrize("task", CHOICE_TASKS)
def test_tiny_letters_in_the_chat_template(tiny: Path, task: str) -> None:
    protocol = "nli_forced_choice" if task == "swewinogender" else "forced_choice"
    _check(str(tiny), task, "letters", protocol)


@pytest.mark.parametrize("task", CLOZE_TASKS)
def test_tiny_cloze(tiny: Path, task: str) -> None:
    _check(str(tiny), task, "cloze", "cloze")


def test_tiny_texts(tiny: Path) -> None:
    _check(str(tiny), "winobias-uk", "texts", "forced_choice")


def test_tiny_generation_equals_hf_greedy(tiny: Path) -> None:
    from hf_requests import make_requests

    reqs = make_requests(7)
    hf = {r.request_id: r for r in create_backend(f"hf:{tiny}", mode="generate").respond(reqs)}
    vl = create_backend(f"vllm:{tiny}", mode="generate", **ENGINE)
    got = {r.request_id: r for r in vl.respond(reqs)}
    assert {k: r.text for k, r in got.items()} == {k: r.text for k, r in hf.items()}
    assert {r.finish_reason for r in got.values()} <= {"stop", "length"}


def test_a_prompt_over_max_model_len_fails_alone(tiny: Path) -> None:
    from hf_requests import make_requests

    reqs = make_requests(3)
    long = replace(reqs[1], request_id="long", prompt=reqs[1].prompt * 40)
    vl = create_backend(f"vllm:{tiny}", mode="cloze", **ENGINE)
    got = {r.request_id: r for r in vl.respond([reqs[0], long, reqs[2]])}
    assert got["long"].error is not None
    assert "exceed the engine's max_model_len of 1024" in got["long"].error
    assert got[reqs[0].request_id].ok and got[reqs[2].request_id].ok
    assert vl.params["engine"].startswith("vllm ") and vl.describe().runtime["loaded"]


@pytest.fixture(scope="module")
def gemma_dir() -> Path:
    """The demo's float32 copy of Gemma 3 270M (converted once into the user's model cache)."""
    from winoscope.backends.hf import gemma

    if not gemma.available():
        pytest.fail(f"the gemma extra is missing ({', '.join(gemma.missing_modules())})")
    return gemma.ensure_float_model()


GEMMA_ENGINE = {"max_model_len": 512}
#: Gemma on two CPU cores scores about a request a second through hf:; each task's first
#: requests (both option orders of its first items) keep the module to a few minutes
GEMMA_REQUESTS = 12


def _check_gemma(gemma_dir: Path, task: str, mode: str, protocol: str) -> None:
    hf = create_backend(f"hf:{gemma_dir}", mode=mode)
    vl = create_backend(f"vllm:{gemma_dir}", mode=mode, **ENGINE, **GEMMA_ENGINE)
    got = compare(task, hf, vl, protocol, GEMMA_REQUESTS)
    FIGURES[("gemma-3-270m", task, mode)] = (
        got.max_per_token,
        got.requests,
        len(got.differing_predictions),
    )
    print(f"\ngemma {task} {mode}: {got.requests} requests, max {got.max_per_token:.3g}")
    assert got.requests > 0
    assert not got.errors
    assert got.max_per_token <= TOLERANCE
    assert got.differing_predictions == []


@pytest.mark.parametrize("task", CLOZE_TASKS)
def test_gemma_cloze(gemma_dir: Path, task: str) -> None:
    _check_gemma(gemma_dir, task, "cloze", "cloze")


@pytest.mark.parametrize("task", CHOICE_TASKS)
def test_gemma_letters(gemma_dir: Path, task: str) -> None:
    protocol = "nli_forced_choice" if task == "swewinogender" else "forced_choice"
    _check_gemma(gemma_dir, task, "letters", protocol)
