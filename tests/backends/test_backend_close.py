"""Who closes a backend, and when: whoever made it, once done with it, however the work ends.

``vllm:``'s engine must be shut down before its process exits (tests/backends/test_vllm_exit.py
runs the real thing); what decides when is the same for every backend with a ``close()``, so it
is pinned here with a small real backend registered as ``close-test``, which answers cloze
requests (the shorter continuation wins) and records each backend made and each close, in order.
Its ``raise_in`` option makes it stop mid-answer with that exception, as a crash or Ctrl-C would.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from winoscope.backends import backend, close_backend, create_backend
from winoscope.records import NO_MODES, Description, Request, Response
from winoscope.runs.runner import run
from winoscope.studies.sensitivity import run_templates
from winoscope.studies.sweep import sweep

#: what happened, in order: ("made", name, id) and ("closed", name, id); ("asked", name, id)
EVENTS: list[tuple[str, str, int]] = []
INTERRUPTS = {"keyboard": KeyboardInterrupt, "error": RuntimeError}


@dataclass(eq=False)
class Recording:
    model: str
    params: dict[str, Any]
    raise_in: str = ""
    kind: str = "close-test"
    cacheable: bool = False
    protocols: frozenset[str] = frozenset({"cloze"})
    mode = None
    modes = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        EVENTS.append(("asked", self.model, id(self)))
        for i, req in enumerate(requests):
            if self.raise_in and i == 1:
                raise INTERRUPTS[self.raise_in]("stopped mid-answer")
            yield Response(
                req.request_id,
                self.kind,
                self.model,
                option_logprobs=tuple(-float(len(o.text)) for o in req.options),
                option_token_counts=tuple(1 for _ in req.options),
            )

    def close(self) -> None:
        EVENTS.append(("closed", self.model, id(self)))


@backend("close-test")
def _make(name: str, *, raise_in: str = "", seed: int = 0) -> Recording:
    del seed
    made = Recording(model=name, params={"raise_in": raise_in}, raise_in=raise_in)
    EVENTS.append(("made", name, id(made)))
    return made


@pytest.fixture(autouse=True)
def _events() -> Iterator[None]:
    EVENTS.clear()
    yield
    EVENTS.clear()


def kinds() -> list[tuple[str, str]]:
    return [(what, name) for what, name, _ in EVENTS]


def test_a_run_closes_the_backend_it_made_from_a_spec_after_asking() -> None:
    rr = run("winobias-uk", "close-test:a", n_boot=10, limit=1)
    assert rr.manifest["outcome"]["success"] is True
    assert kinds() == [("made", "a"), ("asked", "a"), ("closed", "a")]
    assert len({i for _, _, i in EVENTS}) == 1  # the same object, closed once


def test_a_backend_passed_in_is_left_open_for_the_next_run() -> None:
    b = create_backend("close-test:mine")
    run("winobias-uk", b, n_boot=10, limit=1)
    run("winobias-uk", b, n_boot=10, limit=1)
    assert kinds() == [("made", "mine"), ("asked", "mine"), ("asked", "mine")]
    close_backend(b)  # its maker closes it
    assert kinds()[-1] == ("closed", "mine")


@pytest.mark.parametrize("stop", ["keyboard", "error"])
def test_a_run_stopped_mid_answer_still_closes_its_backend(stop: str) -> None:
    with pytest.raises(INTERRUPTS[stop], match="stopped mid-answer"):
        run("winobias-uk", "close-test:a", n_boot=10, limit=1, backend_options={"raise_in": stop})
    assert kinds() == [("made", "a"), ("asked", "a"), ("closed", "a")]


def test_a_sweep_makes_each_spec_point_once_for_all_its_tasks_and_closes_it_before_the_next(
    tmp_path: Path,
) -> None:
    sweep(
        ["winobias-uk", "winopron-uk"],
        {0: "close-test:p0", 1: "close-test:p1"},
        out=tmp_path / "sweep",
        n_boot=10,
        limit=1,
    )
    assert kinds() == [
        ("made", "p0"),
        ("asked", "p0"),
        ("asked", "p0"),
        ("closed", "p0"),
        ("made", "p1"),
        ("asked", "p1"),
        ("asked", "p1"),
        ("closed", "p1"),
    ]
    assert len({i for _, name, i in EVENTS if name == "p0"}) == 1


def test_a_set_of_templates_closes_its_backend_once_after_the_last() -> None:
    run_templates("winobias-uk", "close-test:t", n_boot=10, limit=1)
    asked = [k for k in kinds() if k[0] == "asked"]
    assert len(asked) >= 2  # several templates, one backend
    assert kinds() == [("made", "t"), *asked, ("closed", "t")]


def test_a_study_job_closes_each_spec_point_before_the_next(tmp_path: Path) -> None:
    from winoscope.studies.job import run_job

    study = tmp_path / "study.toml"
    study.write_text(
        f'name = "close"\nout = "{tmp_path / "out"}"\ntasks = ["winobias-uk"]\n'
        'bootstrap = 10\nlimit = 1\n\n[[models]]\nname = "m"\n'
        'points = {0 = "close-test:p0", 1 = "close-test:p1"}\n',
        encoding="utf-8",
    )
    report = run_job(str(study), "m")
    assert len(report["done"]) == 2 and not report["failed"]
    assert kinds() == [
        ("made", "p0"),
        ("asked", "p0"),
        ("closed", "p0"),
        ("made", "p1"),
        ("asked", "p1"),
        ("closed", "p1"),
    ]
