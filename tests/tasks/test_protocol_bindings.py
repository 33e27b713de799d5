"""A task is its data, its protocol bindings and a scorer: a protocol added to a task is one
binding, which the run plan chooses, resolves a template for and builds requests by without
knowing its name."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from winoscope import run
from winoscope.errors import TaskError
from winoscope.prompt_templates import resolve
from winoscope.protocols.cloze import EN_CLOZE
from winoscope.records import NO_MODES, PROTOCOLS, Description, Request, Response
from winoscope.tasks import TASKS, ProtocolBinding, Task, get_task

RUN_PLAN = Path(__file__).resolve().parents[2] / "src" / "winoscope" / "runs" / "plan.py"


def _toy_requests(base: ProtocolBinding) -> Any:
    def build(ds: Any, template: Any) -> list[Request]:
        return [
            dataclasses.replace(r, prompt="TOY " + r.prompt)
            for r in base.build_requests(ds, template)
        ]

    return build


def with_toy(name: str = "winobias-uk") -> Task:
    """A built-in task with a third protocol, ``toy``: its forced-choice requests with the
    prompt marked, joined back like them."""
    t = get_task(name)
    toy = ProtocolBinding(_toy_requests(t.primary), t.primary.predict, t.primary.template)
    return dataclasses.replace(t, name="toy-uk", protocols={**t.protocols, "toy": toy})


@dataclass
class LastOption:
    """Answers every request it is asked with its last option; says which protocols."""

    protocols: frozenset[str]
    model: str = "last"
    kind: str = "toy-backend"
    cacheable: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    mode = None
    modes = NO_MODES
    asked: list[str] = field(default_factory=list)

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Iterable[Request]) -> Iterator[Response]:
        for req in requests:
            self.asked.append(req.prompt)
            yield Response(req.request_id, self.kind, self.model, choice=req.options[-1].label)


def test_a_third_binding_runs_without_a_change_to_the_run_plan() -> None:
    toy_task = with_toy()
    method = "counterbalanced_ab_mean_token_logprob_v1"
    assert list(toy_task.protocols) == ["forced_choice", "cloze", method, "toy"]
    assert toy_task.describe()["protocols"] == ["forced_choice", "cloze", method, "toy"]
    backend = LastOption(frozenset({"toy"}))
    # not asked for: the first binding the backend answers
    rr = run(toy_task, backend, n_boot=20, seed=0)
    assert backend.asked and all(p.startswith("TOY ") for p in backend.asked)
    assert rr.manifest["protocol"] == "toy"
    # the same answers as forced choice: the same numbers
    plain = LastOption(frozenset({"forced_choice"}))
    fc = run(get_task("winobias-uk"), plain, n_boot=20, seed=0)
    assert [p.removeprefix("TOY ") for p in backend.asked] == plain.asked
    assert rr.metrics["value"].tolist() == pytest.approx(fc.metrics["value"].tolist(), nan_ok=True)
    assert fc.manifest["protocol"] == "forced_choice"


def test_a_binding_takes_its_kind_of_template() -> None:
    toy_task = with_toy()
    backend = LastOption(frozenset({"toy"}))
    run(toy_task, backend, protocol="toy", template="uk-plain-v1", n_boot=10)
    plain = toy_task.primary.build_requests(toy_task.data.load(), resolve("uk-plain-v1"))
    assert backend.asked == ["TOY " + r.prompt for r in plain]
    assert (
        plain[0].prompt
        != toy_task.primary.build_requests(toy_task.data.load(), toy_task.primary.template)[
            0
        ].prompt
    )
    with pytest.raises(TaskError, match="is a cloze template; this run needs a choice"):
        run(toy_task, backend, protocol="toy", template="uk-cloze-v1", n_boot=10)
    with pytest.raises(TaskError, match="cloze template 'en-cloze-v1' needs a backend"):
        run(toy_task, backend, protocol="toy", template=EN_CLOZE, n_boot=10)


def test_a_protocol_the_task_lacks_is_refused_with_the_one_it_has() -> None:
    backend = LastOption(frozenset({"coref"}))
    with pytest.raises(TaskError) as err:
        run("winobias-uk", backend, protocol="coref")
    assert str(err.value) == (
        "task winobias-uk is asked by forced_choice or cloze or "
        "counterbalanced_ab_mean_token_logprob_v1, not by coref"
    )
    with pytest.raises(TaskError) as err:
        run("winobias-uk/coref", LastOption(frozenset({"cloze"})))
    able = ", ".join(n for n in TASKS.names() if "cloze" in TASKS.get(n).protocols)
    assert str(err.value) == (
        "task winobias-uk/coref has no cloze protocol (the backend's mode is cloze): run a "
        f"task with one: {able}"
    )


def protocol_literals(source: str) -> list[str]:
    """The string constants outside docstrings that name a protocol (a built-in one or a
    registered task's binding)."""
    names = set(PROTOCOLS) | {p for n in TASKS.names() for p in TASKS.get(n).protocols}
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value in names
    ]


def test_the_run_plan_names_no_protocol() -> None:
    assert protocol_literals(RUN_PLAN.read_text(encoding="utf-8")) == []


def test_a_protocol_branch_would_be_found(tmp_path: Path) -> None:
    planted = tmp_path / "run_plan.py"
    planted.write_text(
        RUN_PLAN.read_text(encoding="utf-8")
        + '\n\ndef special(protocol: str) -> bool:\n    """cloze"""\n'
        + '    return protocol == "cloze"\n',
        encoding="utf-8",
    )
    assert protocol_literals(planted.read_text(encoding="utf-8")) == ["cloze"]
