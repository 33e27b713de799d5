"""Both option orders are required, Cyrillic letters, and the failed-request policy."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from winoscope import TaskError
from winoscope.families.winobias.dataset import UK as winobias_uk
from winoscope.families.winobias.tasks import WINOBIAS_UK
from winoscope.protocols.answers import normalise
from winoscope.protocols.forced_choice import (
    UK_DEFAULT,
    apply_failed_policy,
    combine_orders,
)
from winoscope.records import CHOICE_PROTOCOLS, NO_MODES, Description, Option, Response

requests_for = WINOBIAS_UK.primary.build_requests

TWO = (
    Option("A", "дизайнер", "target", ("дизайнер", "дизайнерка")),
    Option("B", "розробник", "distractor", ("розробник", "розробниця")),
)
THREE = (*TWO, Option("C", "ніхто", "neither", ()))


@pytest.mark.parametrize(
    ("answer", "role"),
    [
        ("B. дизайнером", "invalid"),  # the letter names розробник, the words дизайнер
        ("B) розробником", "distractor"),
        ("B.", "distractor"),
        ("Б", "distractor"),
        ("Б.", "distractor"),
        ("В", "invalid"),  # two options: no third letter, and not read as Latin B
        ("В реченні йдеться про дизайнера", "target"),  # the preposition, then the words
    ],
)
def test_letters_two_options(answer: str, role: str) -> None:
    assert normalise(answer, TWO) == role


def test_cyrillic_v_is_the_third_option_where_there_is_one() -> None:
    assert normalise("В", THREE) == "neither"
    assert normalise("Б", THREE) == "distractor"
    assert normalise("А", THREE) == "target"
    assert normalise("С.", THREE) == "neither"  # Cyrillic С, Latin C's look-alike


def _resp(req, **kw) -> Response:
    return Response(request_id=req.request_id, backend="test", model="m", **kw)


def _item_requests():
    ds = winobias_uk.load()
    reqs = [r for r in requests_for(ds, UK_DEFAULT) if r.item_id == "validation/type1/1"]
    return ds, reqs


def test_a_row_asked_in_one_order_only_is_invalid() -> None:
    _, reqs = _item_requests()
    mm = [r for r in reqs if r.row_id.endswith("/mm")]
    ff = [r for r in reqs if r.row_id.endswith("/ff")]
    one_order = [r for r in mm if r.order == "target_first"]
    target = {
        r.request_id: _resp(r, choice=next(o.label for o in r.options if o.role == "target"))
        for r in mm + ff
    }
    out = combine_orders(one_order + ff, target).set_index("row_id")
    mm_id, ff_id = mm[0].row_id, ff[0].row_id
    assert out.loc[mm_id, "prediction_role"] == "invalid"
    assert not out.loc[mm_id, "order_consistent"]
    assert out.loc[mm_id, "orders_asked"] == 1
    assert out.loc[ff_id, "prediction_role"] == "target"
    assert bool(out.loc[ff_id, "order_consistent"])


def test_failed_policy_exclude_and_wrong() -> None:
    table = pd.DataFrame({"prediction_role": ["target", None, "", "invalid"]})
    same, n = apply_failed_policy(table, "prediction_role", "exclude")
    assert n == 2 and same["prediction_role"].isna().sum() == 1
    wrong, n = apply_failed_policy(table, "prediction_role", "wrong")
    assert n == 2
    assert list(wrong["prediction_role"]) == ["target", "invalid", "invalid", "invalid"]
    with pytest.raises(TaskError, match="exclude or wrong"):
        apply_failed_policy(table, "prediction_role", "drop")


class _Flaky:
    """Answers every request with the target's letter, except the listed ones, which fail."""

    kind = "flaky"
    model = "flaky"
    cacheable = False
    protocols = CHOICE_PROTOCOLS | {"coref"}  # a coref request gets clusters of no mention
    mode = None
    modes = NO_MODES

    def describe(self) -> Description:
        return Description()

    def __init__(self, fail: set[str]) -> None:
        self.fail = fail
        self.params: dict[str, str] = {}

    def respond(self, requests):
        for r in requests:
            if r.request_id in self.fail:
                yield Response(r.request_id, self.kind, self.model, error="HTTP 500")
            else:
                label = next(o.label for o in r.options if o.role == "target")
                yield Response(r.request_id, self.kind, self.model, choice=label)


def test_run_failed_wrong_counts_rows_as_wrong_and_says_so(tmp_path) -> None:
    from winoscope.runs.runner import run

    ds = winobias_uk.load()
    reqs = requests_for(ds, UK_DEFAULT)
    fail = {reqs[0].request_id, reqs[3].request_id}
    rows_failed = {reqs[0].row_id, reqs[3].row_id}
    base = run("winobias-uk", _Flaky(fail), n_boot=10, out=tmp_path / "exclude")
    wrong = run("winobias-uk", _Flaky(fail), n_boot=10, failed="wrong", out=tmp_path / "wrong")
    n_rows = len(rows_failed)
    assert base.manifest["failed_requests"] == {"policy": "exclude", "requests": 2, "rows": n_rows}
    assert wrong.manifest["failed_requests"] == {"policy": "wrong", "requests": 2, "rows": n_rows}
    pe = base.predictions.set_index("row_id")["prediction_role"]
    pw = wrong.predictions.set_index("row_id")["prediction_role"]
    for rid in rows_failed:
        assert pd.isna(pe[rid]) and pw[rid] == "invalid"
    assert base.result.counts["missing"].sum() > 0
    assert wrong.result.counts["missing"].sum() == 0
    man = json.loads((tmp_path / "wrong" / "manifest.json").read_text(encoding="utf-8"))
    assert man["failed_requests"]["policy"] == "wrong"
    report = (tmp_path / "wrong" / "report.md").read_text(encoding="utf-8")
    assert "`--failed wrong`" in report and "scored as wrong" in report
    report = (tmp_path / "exclude" / "report.md").read_text(encoding="utf-8")
    assert "`--failed exclude`" in report and "left out" in report


def test_html_report_states_the_failed_policy(tmp_path) -> None:
    from winoscope.runs.runner import run

    ds = winobias_uk.load()
    reqs = requests_for(ds, UK_DEFAULT)
    run("winobias-uk", _Flaky({reqs[0].request_id}), n_boot=0, failed="wrong", out=tmp_path)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "scored as wrong answers" in html and "--failed wrong" in html


def test_winopron_uk_sentence_with_one_prompt_is_invalid() -> None:
    """A WinoPron-UK sentence whose forced_choice configuration has only one option order."""
    import dataclasses

    from winoscope.families.winopron.tasks import WINOPRON_UK
    from winoscope.tasks import get_task

    predict = WINOPRON_UK.primary.predict

    t = get_task("winopron-uk")
    ds = t.data.load(None)
    key = "double/double-001-occupation-male"
    prompts = ds.prompts
    drop = prompts[(prompts["row_key"] == key) & (prompts["option_order"] == "participant_first")]
    assert len(drop) == 1
    ds = dataclasses.replace(ds, prompts=prompts.drop(drop.index))
    reqs = t.primary.build_requests(ds, t.primary.template)
    assert sum(r.row_id == key for r in reqs) == 1
    gold = ds.table.set_index("row_key")["gold_role"].astype(str)
    resp = {
        r.request_id: Response(
            r.request_id,
            "t",
            "m",
            choice=next(o.label for o in r.options if o.role == gold[r.row_id]),
        )
        for r in reqs
    }
    pred = predict(ds, reqs, resp).set_index("row_key")
    assert pred.loc[key, "prediction_role"] == "invalid"
    assert not pred.loc[key, "order_consistent"]
    others = pred.drop(key)
    assert others["prediction_role"].eq(others["gold_role"].astype(str)).all()


def test_coref_failed_requests_follow_the_policy() -> None:
    from winoscope.runs.runner import run
    from winoscope.tasks import get_task

    t = get_task("winobias-uk/coref")
    ds = t.data.load(None)
    reqs = t.primary.build_requests(ds, t.primary.template)
    fail = {reqs[0].request_id}
    excl = run("winobias-uk/coref", _Flaky(fail), n_boot=0)
    wrong = run("winobias-uk/coref", _Flaky(fail), n_boot=0, failed="wrong")
    assert excl.manifest["failed_requests"] == {"policy": "exclude", "requests": 1, "rows": 1}
    assert wrong.manifest["failed_requests"] == {"policy": "wrong", "requests": 1, "rows": 1}
    assert excl.result.counts["rows"].sum() == wrong.result.counts["rows"].sum() - 1
    assert wrong.result.counts["missing"].sum() == 1
    assert len(excl.predictions) == len(wrong.predictions) == len(ds.table)  # all rows shown


def test_an_unknown_failed_policy_stops_a_run_before_its_data_loads(tmp_path: Path) -> None:
    """Checked by the plan before anything is loaded or asked (the data named here does not
    exist: the policy is reported, not the file)."""
    import winoscope

    with pytest.raises(TaskError, match="unknown failed-request policy 'drop'"):
        winoscope.run(
            "winobias-uk", "baseline:first", failed="drop", data=str(tmp_path / "nosuch.csv")
        )
