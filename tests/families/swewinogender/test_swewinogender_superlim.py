"""SweWinogender as SuperLim scores it (``labels="superlim"``) beside the binary reading.

Hand-worked example on the real release (312 entailment and 312 neutral items, 208 tuples):
every prediction ``entailment`` except two neutral items, in different tuples, predicted
``contradiction``.

superlim (labels compared exactly): accuracy 312/624 = 0.5. Coincidences: (E,E) x 312,
(N,E) x 310, (N,C) x 2, so o[E,E] = 624, o[E,N] = 310, o[N,C] = 2 (and symmetric), n = 1248,
n_E = 934, n_N = 312, n_C = 2; alpha = 1 - 1247 * 624 / (2 * (934*312 + 934*2 + 312*2))
= 1 - 778128 / 587800 = -0.3237972. Tuples with three identical labels: 206 of 208, so the
correct parity is 206/208 and SuperLim's published formula (identical tuples / items) 206/624.

binary (contradiction read as neutral): accuracy 314/624; o[E,E] = 624, o[N,N] = 4,
o[E,N] = 310, n_E = 934, n_N = 314; alpha = 1 - 1247 * 620 / (2 * 934 * 314) = -0.3181104.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.errors import ScoringError
from winoscope.families.swewinogender import dataset as sw
from winoscope.families.swewinogender import scorer as sc


@pytest.fixture(scope="module")
def raw(shared_data: Path) -> list[dict]:
    path = shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _two_contradictions(raw: list[dict]) -> list[dict]:
    out, changed, tuples = [], 0, set()
    for r in raw:
        pred = "entailment"
        if r["label"] == "neutral" and changed < 2 and r["meta"]["tuple_id"] not in tuples:
            pred, changed = "contradiction", changed + 1
            tuples.add(r["meta"]["tuple_id"])
        out.append({**r, "prediction": pred})
    assert changed == 2
    return out


def _values(result) -> pd.Series:
    m = result.metrics
    return m[m["split"] == "all"].set_index("metric")["value"]


def _table(rows: list[dict], tmp_path: Path) -> pd.DataFrame:
    path = tmp_path / "submission.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return sw.load(path).table.assign(prediction=[r["prediction"] for r in rows])


def test_superlim_and_binary_conventions_by_hand(raw, tmp_path) -> None:
    table = _table(_two_contradictions(raw), tmp_path)
    sl = sc.score_nli(table, n_boot=20, labels="superlim")
    v = _values(sl)
    assert v["accuracy"] == pytest.approx(312 / 624)
    assert v["krippendorff_alpha"] == pytest.approx(1 - 778128 / 587800)
    assert v["gender_parity"] == pytest.approx(206 / 208)
    assert v["superlim_parity"] == pytest.approx(206 / 624)
    # F1 over the labels that occur: E 624/934, N 0, C 0 (as SuperLim's published "f1")
    assert v["macro_f1"] == pytest.approx(624 / 934 / 3)
    assert "superlim" in sl.settings["conventions"]["labels"]
    b = _values(sc.score_nli(table, n_boot=20, labels="binary"))
    assert b["accuracy"] == pytest.approx(314 / 624)
    assert b["krippendorff_alpha"] == pytest.approx(1 - 1247 * 620 / (2 * 934 * 314))
    assert b["gender_parity"] == pytest.approx(206 / 208)
    assert b["macro_f1"] == pytest.approx((624 / 934 + 4 / 314) / 2)
    assert "superlim_parity" not in b.index
    with pytest.raises(ScoringError, match="binary or superlim"):
        sc.score_nli(table, labels="exact")


def test_invalid_in_alpha_is_a_value_or_missing(raw, tmp_path) -> None:
    """Gold (E, N) x 312; the system copies gold except one neutral item answered invalid.

    value: o[N,I] = o[I,N] = 1, n = 1248, n_E = 624, n_N = 623, n_I = 1:
    alpha = 1 - 1247 * 2 / (2 * (624*623 + 624 + 623)) = 1 - 2494 / 780 ... worked below.
    missing: that item leaves; the other 623 agree exactly: alpha = 1.
    """
    rows = [{**r, "prediction": r["label"]} for r in raw]
    i = next(k for k, r in enumerate(rows) if r["label"] == "neutral")
    rows[i]["prediction"] = "invalid"
    table = _table(rows, tmp_path)
    value = _values(sc.score_nli(table, n_boot=10))
    d_exp = 2 * (624 * 623 + 624 * 1 + 623 * 1)
    assert value["krippendorff_alpha"] == pytest.approx(1 - 1247 * 2 / d_exp)
    missing = _values(sc.score_nli(table, n_boot=10, alpha_invalid="missing"))
    assert missing["krippendorff_alpha"] == pytest.approx(1.0)
    assert value["accuracy"] == missing["accuracy"] == pytest.approx(623 / 624)


def test_score_cli_defaults_to_superlim_and_names_it(raw, tmp_path) -> None:
    path = tmp_path / "submission.jsonl"
    rows = _two_contradictions(raw)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    res = CliRunner().invoke(
        app, ["score", "--task", "swewinogender", "-p", str(path), "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 0, res.output
    assert "convention: labels = superlim" in res.output
    out = json.loads((tmp_path / "o" / "metrics.json").read_text(encoding="utf-8"))
    by = {m["metric"]: m["value"] for m in out["metrics"] if m["split"] == "all"}
    assert by["superlim_parity"] == pytest.approx(206 / 624)
    assert by["accuracy"] == pytest.approx(0.5)
    res = CliRunner().invoke(
        app, ["score", "--task", "swewinogender", "-p", str(path), "-S", "labels=binary"]
    )
    assert res.exit_code == 0 and "convention: labels = binary" in res.output
    res = CliRunner().invoke(
        app, ["score", "--task", "winobias-uk", "-p", str(path), "-S", "labels=superlim"]
    )
    assert res.exit_code == 2
    assert "unknown scorer option(s) labels (known: keep_unpaired)" in res.output


def test_unknown_convention_fails_before_any_request() -> None:
    from winoscope.errors import TaskError
    from winoscope.records import CHOICE_PROTOCOLS, NO_MODES, Description
    from winoscope.runs.runner import run

    class Never:
        kind = model = "never"
        cacheable = False
        protocols = CHOICE_PROTOCOLS
        mode = None
        modes = NO_MODES

        def describe(self) -> Description:
            return Description()

        def __init__(self) -> None:
            self.params: dict[str, str] = {}

        def respond(self, requests):  # pragma: no cover - must not be reached
            raise AssertionError("asked")

    with pytest.raises(TaskError, match="labels='exact': choose binary or superlim"):
        run("swewinogender", Never(), scorer_options={"labels": "exact"})
    with pytest.raises(TaskError, match="alpha_invalid='drop': choose value or missing"):
        run("swewinogender", Never(), scorer_options={"alpha_invalid": "drop"})
    with pytest.raises(TaskError, match=r"unknown scorer option\(s\) keep_unpaired"):
        run("swewinogender", Never(), scorer_options={"keep_unpaired": True})
