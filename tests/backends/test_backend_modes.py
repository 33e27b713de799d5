"""What a backend states it supports: its modes, the protocols each mode answers, and the
refusals that quote them; an object that is not a backend is refused with what it lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

import winoscope.backends.nli_baselines  # noqa: F401  registers nli-baseline:*
from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.backends.base import BACKEND_MEMBERS, Backend, check_backend
from winoscope.errors import BackendError, TaskError
from winoscope.records import CHOICE_PROTOCOLS, NO_MODES
from winoscope.runs.runner import run

# every scoring backend with a tokenizer also scores sequence requests, in every mode
CHOICE_AND_CLOZE = CHOICE_PROTOCOLS | {"cloze", "mean_token_logprob"}
CLOZE = {"cloze", "mean_token_logprob"}
LOCAL = "http://127.0.0.1:9/v1"  # nothing listens: nothing may be asked


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2") / "model", seed=1)


def test_the_member_list_is_the_protocols() -> None:
    declared = {n for n in vars(Backend) if not n.startswith("_")} | set(Backend.__annotations__)
    assert set(BACKEND_MEMBERS) == declared


@pytest.mark.parametrize(
    ("spec", "protocols"),
    [
        ("baseline:agreement", {"forced_choice", "nli_forced_choice", "coref"}),
        ("nli-baseline:neutral", {"nli_forced_choice"}),
    ],
)
def test_a_backend_without_modes_says_so(spec: str, protocols: set[str]) -> None:
    b = create_backend(spec)
    assert b.mode is None and dict(b.modes) == {} and b.modes is NO_MODES
    assert b.protocols == protocols


@pytest.mark.parametrize(
    ("mode", "protocols"),
    [
        ("chat", CHOICE_PROTOCOLS),
        ("letters", CHOICE_PROTOCOLS),
        ("chat-letters", CHOICE_PROTOCOLS),
        ("cloze", {"cloze"}),
    ],
)
def test_openai_states_each_mode_and_answers_by_its_present_one(
    mode: str, protocols: set[str]
) -> None:
    b = create_backend("openai:m", base_url=LOCAL, mode=mode)
    assert b.mode == mode and b.params["mode"] == mode
    assert dict(b.modes) == {
        "chat": CHOICE_PROTOCOLS,
        "letters": CHOICE_PROTOCOLS,
        "chat-letters": CHOICE_PROTOCOLS,
        "cloze": {"cloze"},
    }
    assert b.protocols == protocols == b.modes[mode]


@pytest.mark.parametrize(
    ("mode", "protocols"),
    [
        ("letters", CHOICE_AND_CLOZE),
        ("texts", CHOICE_AND_CLOZE),
        ("generate", CHOICE_AND_CLOZE),
        ("cloze", CLOZE),
    ],
)
def test_hf_states_each_mode_and_answers_by_its_present_one(
    tiny_dir: Path, mode: str, protocols: set[str]
) -> None:
    b = create_backend(f"hf:{tiny_dir}", mode=mode)
    assert b.mode == mode and b.params["mode"] == mode
    assert dict(b.modes) == {
        "letters": CHOICE_AND_CLOZE,
        "texts": CHOICE_AND_CLOZE,
        "generate": CHOICE_AND_CLOZE,
        "cloze": CLOZE,
    }
    assert b.protocols == protocols


def test_the_refusal_names_the_mode_that_would_answer() -> None:
    with pytest.raises(TaskError) as err:
        run(
            "winobias-uk",
            "openai:m",
            protocol="cloze",
            backend_options={"base_url": LOCAL, "mode": "chat"},
        )
    assert str(err.value) == (
        "openai:m in mode chat does not answer the cloze protocol of task winobias-uk "
        "(it answers forced_choice, nli_forced_choice; -M mode=cloze does)"
    )


def test_a_task_without_cloze_names_the_modes_that_ask_it(tiny_dir: Path) -> None:
    with pytest.raises(TaskError) as err:
        run("swewinogender", f"hf:{tiny_dir}", backend_options={"mode": "cloze"})
    message = str(err.value)
    assert message.startswith(
        "task swewinogender has no cloze protocol (the backend's mode is cloze): ask it in "
        "another mode (-M mode=letters or -M mode=texts or -M mode=generate), or run a task "
        "with one: "
    ), message


def test_a_refusal_without_modes_names_none() -> None:
    with pytest.raises(TaskError) as err:
        run("winobias-uk", "nli-baseline:neutral")
    assert str(err.value) == (
        "nli-baseline:neutral does not answer the forced_choice protocol of task winobias-uk "
        "(it answers nli_forced_choice)"
    )


def test_an_object_that_is_not_a_backend_is_refused_with_what_it_lacks() -> None:
    class OldStyle:  # written before backends stated their modes
        kind = model = "old"
        cacheable = False
        protocols = CHOICE_PROTOCOLS

        def __init__(self) -> None:
            self.params: dict[str, str] = {}

        def describe(self) -> None:
            return None

        def respond(self, requests):  # type: ignore[no-untyped-def]  # pragma: no cover
            raise AssertionError("asked")

    with pytest.raises(BackendError) as err:
        run("winobias-uk", OldStyle())  # type: ignore[arg-type]
    assert str(err.value) == (
        "the model object (OldStyle) is not a backend: it lacks mode, modes "
        "(see winoscope.backends.base.Backend)"
    )
    with pytest.raises(BackendError, match=r"\(int\) is not a backend: it lacks kind, model"):
        check_backend(3)


def test_the_check_never_reads_a_member() -> None:
    """``params`` of a model held in Python fingerprints its weights: checking that an object
    is a backend must not read it (a run reads it once, when it asks)."""
    reads: list[str] = []

    class Live:
        kind = model = "live"
        cacheable = False
        protocols = CHOICE_PROTOCOLS
        mode = None
        modes = NO_MODES

        @property
        def params(self) -> dict[str, str]:
            reads.append("params")
            return {}

        def describe(self) -> None:
            return None

        def respond(self, requests):  # type: ignore[no-untyped-def]  # pragma: no cover
            raise AssertionError("asked")

    live = Live()
    assert check_backend(live) is live
    assert reads == []
