"""A model that reads its prompt: forced choice (WinoBias-UK, WinoPron-UK's four steps),
cloze and the OpenAI path answer the gold referent in both option orders, and a prompt whose
options are listed in one order while its letters map through the other (planted here, in the
test) is caught: every row of the swapped order turns wrong and order-inconsistent."""

from __future__ import annotations

from dataclasses import replace

import pytest

import winoscope
from winoscope.backends import create_backend
from winoscope.runs.runner import run
from winoscope.tasks import get_task
from winoscope.testing.openai_server import StubBehaviour, serve_in_thread
from winoscope.testing.prompt_reader import (
    PromptReader,
    ScriptedBackend,
    lettered_options,
    prefer_in_sentences,
)


def gold_texts(task_name: str, gold_column: str) -> list[tuple[str, str]]:
    """(sentence, the gold referent's text as the options show it) for every row."""
    task = get_task(task_name)
    ds = winoscope.load_dataset(task_name)
    gold = dict(zip(ds.table["sentence_uk"], ds.table[gold_column], strict=True))
    return [
        (req.item.sentence, next(o.text for o in req.options if o.role == gold[req.item.sentence]))
        for req in task.primary.build_requests(ds, task.primary.template)
    ]


GOLD = {"winobias-uk": "coreference_role", "winopron-uk": "gold_role"}


def test_the_options_are_read_from_the_prompt_text() -> None:
    prompt = "Речення: X.\nA. лікар\nB. секретарка\nВідповідь (A або B):"
    assert lettered_options(prompt) == {"A": "лікар", "B": "секретарка"}
    reader = PromptReader(lambda p, o: "секретарка")
    assert reader.letter(prompt) == "B"
    assert reader.letter(prompt.replace("секретарка", "кухар")) == "?" and reader.unanswered


def _swap_prompt_bug(requests):
    """The planted bug: every later order's prompt lists the options as the first order
    does, while its letters still map through its own (swapped) options."""
    first_order = requests[0].order
    first = {r.row_id: r.prompt for r in requests if r.order == first_order}
    return [r if r.order == first_order else replace(r, prompt=first[r.row_id]) for r in requests]


@pytest.mark.parametrize("task_name", ["winobias-uk", "winopron-uk"])
def test_forced_choice_answers_the_gold_referent_in_both_orders(task_name: str) -> None:
    task = get_task(task_name)
    ds = winoscope.load_dataset(task_name)
    reader = PromptReader(prefer_in_sentences(gold_texts(task_name, GOLD[task_name])))
    rr = run(task_name, ScriptedBackend(reader), n_boot=50)
    assert reader.unanswered == []
    pred = rr.predictions
    assert pred["order_consistent"].all()
    assert (pred["prediction_role"] == pred[GOLD[task_name]]).all()
    accuracy = rr.metrics[rr.metrics["metric"].str.endswith("accuracy")]
    assert (accuracy["value"].dropna() == 1.0).all()  # WinoPron: the card's four steps, all right

    requests = task.primary.build_requests(ds, task.primary.template)
    bugged = _swap_prompt_bug(requests)
    assert (
        sum(a.prompt != b.prompt for a, b in zip(requests, bugged, strict=True))
        == len(requests) // 2
    )
    answers = dict(
        zip((r.request_id for r in bugged), ScriptedBackend(reader).respond(bugged), strict=True)
    )
    broken = task.primary.predict(ds, bugged, answers)
    assert not broken["order_consistent"].any()  # the planted bug shows on every row


def test_cloze_scores_prefer_the_gold_continuation() -> None:
    task = get_task("winobias-uk")
    ds = winoscope.load_dataset("winobias-uk")
    assert "cloze" in task.protocols
    tmpl = task.protocols["cloze"].template
    requests = task.protocols["cloze"].build_requests(ds, tmpl)
    reader = PromptReader(prefer_in_sentences(gold_texts("winobias-uk", "coreference_role")))
    backend = ScriptedBackend(reader)
    answers = {r.request_id: a for r, a in zip(requests, backend.respond(requests), strict=True)}
    pred = task.protocols["cloze"].predict(ds, requests, answers)
    assert reader.unanswered == []
    assert (pred["prediction_role"] == pred["coreference_role"]).all()
    # the same answers with the options reversed, as a join that lost the order would see them
    flipped = {k: replace(a, option_logprobs=a.option_logprobs[::-1]) for k, a in answers.items()}
    assert (
        task.protocols["cloze"].predict(ds, requests, flipped)["prediction_role"]
        != pred["coreference_role"]
    ).all()


def test_the_openai_path_reads_the_prompt_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    reader = PromptReader(prefer_in_sentences(gold_texts("winobias-uk", "coreference_role")))
    with serve_in_thread(StubBehaviour(pick=reader.letter)) as server:
        backend = create_backend("openai:reader", base_url=server.url, concurrency=4)
        rr = run("winobias-uk", backend, n_boot=50)
    assert reader.unanswered == []
    pred = rr.predictions
    assert pred["order_consistent"].all()
    assert (pred["prediction_role"] == pred["coreference_role"]).all()
