"""The run report's "rows to read": every log-probability beside the option it scores.

A real ``hf:`` run of the tiny test model answers with log-probabilities
(``logprobs -5.2665 -4.8698``, one per option in the order asked); the page shows
``A розробник −5.27 · B дизайнер −4.87``: the options as the row offered them in that order
(A: the role the column names), with their letters.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pandas as pd
import pytest

import winoscope
from tiny_lm import build_tiny_gpt2
from winoscope.languages.uk.morphology import nominative
from winoscope.report import html as report_html
from winoscope.report.html import example_rows, label_answer
from winoscope.results.run import RunResult


@pytest.fixture(scope="module")
def hf_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("rows")
    model = build_tiny_gpt2(root / "model", seed=1)
    return winoscope.run("winobias-uk", f"hf:{model}", out=root / "run", n_boot=20, limit=4)


def _cells(html: str, table_id: str) -> list[list[str]]:
    body = html.split(f'<table id="{table_id}">', 1)[1].split("</table>", 1)[0]
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr)]
        for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)
    ]


def _expected(raw: str, first: str, second: str) -> str:
    values = [float(v) for v in raw.split()[1:]]
    digits = 2
    while len({round(v, digits) for v in values}) < len(set(values)) and digits < 4:
        digits += 1
    a, b = (f"{v:.{digits}f}".replace("-", "−") for v in values)
    return f"A {first} {a} · B {second} {b}"


def test_log_probabilities_are_labelled_with_their_options(hf_run: RunResult) -> None:
    assert hf_run.out_dir is not None
    page = (hf_run.out_dir / "report.html").read_text(encoding="utf-8")
    rows = _cells(page, "examples")
    header, body = rows[0], rows[1:]
    assert header[-2:] == ["answer_target_first", "answer_distractor_first"]
    assert body, "no rows to read"
    pred = hf_run.predictions.set_index("row_id")
    for cells in body:
        row = pred.loc[cells[0]]
        raw_t, raw_d = row["answer_target_first"], row["answer_distractor_first"]
        assert raw_t.startswith("logprobs ") and raw_d.startswith("logprobs ")
        # the options as offered: the mentions in the nominative (the task's wording)
        target, other = nominative(row["target_span_uk"]), nominative(row["other_span_uk"])
        assert cells[-2] == _expected(raw_t, target, other)  # target offered as A
        assert cells[-1] == _expected(raw_d, other, target)  # distractor offered as A
        assert "logprobs" not in cells[-2] + cells[-1]
    assert 'id="examples-note"' in page


def test_rows_without_their_options_keep_the_raw_answer() -> None:
    pred = pd.DataFrame(
        {
            "row_id": ["r1", "r2", "r3"],
            "sentence_uk": ["s1", "s2", "s3"],
            "coreference_role": ["target"] * 3,
            "target_span_uk": ["Лікарка", None, "Лікар"],
            "other_span_uk": ["секретарку", "секретаря", "секретаря"],
            "prediction_role": ["invalid", "target", "distractor"],
            "answer_target_first": ["logprobs -1.5 -2.25", "logprobs -1 -2", "logprobs -1 -2 -3"],
            "answer_distractor_first": ["garbled", "A", "B"],
        }
    )
    cols, rows = example_rows(pred, "prediction_role")
    by_id = {r[0]: dict(zip(cols, r, strict=True)) for r in rows}
    assert by_id["r1"]["answer_target_first"] == "A лікарка −1.50 · B секретарка −2.25"
    assert by_id["r1"]["answer_distractor_first"] == "garbled"  # neither letter nor logprobs
    assert by_id["r2"]["answer_target_first"] == "logprobs -1 -2"  # the target has no span
    assert by_id["r3"]["answer_target_first"] == "logprobs -1 -2 -3"  # three values, two options
    assert by_id["r3"]["answer_distractor_first"] == "B лікар"  # B: the target in that order


def test_label_answer_examples() -> None:
    assert label_answer(None, [("A", "x"), ("B", "y")]) is None
    result = doctest.testmod(report_html, raise_on_error=False)
    assert result.attempted >= 4 and result.failed == 0


def test_winopron_and_swewinogender_options_come_from_their_columns(
    shared_data: Path,
) -> None:
    pron = pd.DataFrame(
        {
            "row_key": ["k1"],
            "sentence_uk": ["s"],
            "gold_role": ["occupation"],
            "occupation_uk": ["технікиня"],
            "participant_uk": ["клієнтка"],
            "prediction_role": ["invalid"],
            "answer_occupation_first": ["logprobs -0.5 -0.75"],
            "answer_participant_first": ["logprobs -0.25 -1"],
        }
    )
    cols, rows = example_rows(pron, "prediction_role")
    cells = dict(zip(cols, rows[0], strict=True))
    assert cells["answer_occupation_first"] == "A технікиня −0.50 · B клієнтка −0.75"
    assert cells["answer_participant_first"] == "A клієнтка −0.25 · B технікиня −1.00"
    data = shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"
    sv = winoscope.run("swewinogender/resolution", "baseline:first", data=data, n_boot=20)
    cols, rows = example_rows(sv.predictions, sv.task.primary.prediction_column)
    first = sv.predictions.set_index("row_id").loc[rows[0][0]]
    cells = dict(zip(cols, rows[0], strict=True))
    letter = first["answer_occupation_first"]
    named = first["occupation_form"] if letter == "A" else first["participant_form"]
    assert cells["answer_occupation_first"] == f"{letter} {named}"
