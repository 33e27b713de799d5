"""Tasks swewinogender/nli and swewinogender/resolution end to end: requests in both orders,
reference baselines on the real release (values worked out here from the text), SuperLim's
submission format, log-likelihood responses, the bundled sample."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

import winoscope
import winoscope.backends.nli_baselines  # registers nli-baseline:*
import winoscope.families.swewinogender.tasks as tasks
from winoscope.errors import DatasetError, ScoringError
from winoscope.families.swewinogender import dataset as sw
from winoscope.families.swewinogender import scorer as sc
from winoscope.records import CHOICE_PROTOCOLS, NO_MODES, Description, Request, Response


@pytest.fixture(scope="module")
def real_file(shared_data: Path) -> Path:
    return shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"


@pytest.fixture(scope="module")
def raw_rows(real_file: Path) -> list[dict]:
    return [json.loads(x) for x in real_file.read_text(encoding="utf-8").splitlines() if x]


def _value(metrics: pd.DataFrame, metric: str, split: str = "all", typ: str = "all") -> float:
    row = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(row) == 1
    return float(row["value"].iloc[0])


def _position(text: str, lemma: str) -> int:
    """Offset of the first word that is ``lemma`` plus a short ending (a separate regex search)."""
    m = re.search(rf"\b{re.escape(lemma)}(?:|n|en|et|t|s|ns|ens|ets)\b", text, flags=re.IGNORECASE)
    if m is None:
        raise AssertionError((text, lemma))
    return m.start()


def test_request_shapes(real_file: Path) -> None:
    t = winoscope.load_dataset("swewinogender/nli", real_file)
    reqs = tasks.nli_requests(t, tasks.SV_NLI)
    assert len(reqs) == 2 * 624
    first, swapped = reqs[0], reqs[1]
    assert first.row_id == swapped.row_id == "1"
    assert [o.role for o in first.options] == ["entailment", "neutral"]
    assert [o.role for o in swapped.options] == ["neutral", "entailment"]
    assert "Premiss: Teknikern sa till kunden att han kunde betala kontant." in first.prompt
    assert "Hypotes: Meddelandet var att teknikern kunde betala kontant." in first.prompt
    assert "A. ja\nB. nej" in first.prompt and "A. nej\nB. ja" in swapped.prompt
    assert first.item is not None and first.item.candidate == "occupation"
    assert not hasattr(first, "meta") and first.content_hash != swapped.content_hash

    res = winoscope.load_dataset("swewinogender/resolution", real_file)
    assert len(res) == 312 and res.table["row_id"].is_unique
    rreqs = tasks.resolution_requests(res, tasks.SV_RESOLUTION)
    assert len(rreqs) == 624
    r0 = rreqs[0]
    assert r0.prompt.startswith("Läs meningen och avgör vem pronomenet «han» syftar på.")
    assert [(o.text, o.role) for o in r0.options] == [
        ("teknikern", "occupation"),
        ("kunden", "participant"),
    ]
    assert r0.item.mention("participant").start == 18
    assert "gold_referent" not in json.dumps(dataclasses.asdict(r0.item), default=str)


def test_nli_baselines_on_real_release(real_file: Path, raw_rows: list[dict]) -> None:
    gold = [r["label"] for r in raw_rows]
    first = []
    for r in raw_rows:
        m = r["meta"]
        occ_first = _position(r["premise"], m["occupation_participant"]) < _position(
            r["premise"], m["other_participant"]
        )
        named = (
            "occupation"
            if m["occupation_participant"] in r["hypothesis"].lower()
            else "participant"
        )
        if (
            m["occupation_participant"] in r["hypothesis"].lower()
            and m["other_participant"] in r["hypothesis"].lower()
        ):
            named = (
                "occupation"
                if r["hypothesis"].lower().index(m["occupation_participant"])
                < r["hypothesis"].lower().index(m["other_participant"])
                else "participant"
            )
        if "erapeuten" in r["hypothesis"] and "terapeuten" not in r["hypothesis"]:
            named = "occupation"  # the release's typo
        first.append("entailment" if (named == "occupation") == occ_first else "neutral")
    expected_first = sum(g == p for g, p in zip(gold, first, strict=True)) / len(gold)

    runs = {
        m: winoscope.run("swewinogender/nli", f"nli-baseline:{m}", data=real_file, n_boot=200)
        for m in ("entailment", "neutral", "random", "first-mention", "overlap")
    }
    ent = runs["entailment"].metrics
    assert _value(ent, "accuracy") == 0.5 and _value(ent, "gender_parity") == 1.0
    assert _value(runs["neutral"].metrics, "entailment_rate") == 0.0
    fm = runs["first-mention"].predictions
    assert list(fm["prediction"]) == first
    assert _value(runs["first-mention"].metrics, "accuracy") == pytest.approx(expected_first)
    for rr in runs.values():  # answers by role: both orders agree, nothing invalid
        assert rr.predictions["order_consistent"].all()
        assert set(rr.predictions["prediction"]) <= {"entailment", "neutral"}
    assert _value(runs["overlap"].metrics, "option_order_consistency") == 1.0
    # the generic random baseline picks a letter per request: the orders often disagree
    generic = winoscope.run("swewinogender/nli", "baseline:random", data=real_file, n_boot=20)
    oc = generic.predictions["order_consistent"]
    assert _value(generic.metrics, "option_order_consistency") == pytest.approx(oc.mean())
    assert (generic.predictions.loc[~oc.astype(bool), "prediction"] == "invalid").all()
    rnd = runs["random"].predictions
    again = winoscope.run("swewinogender/nli", "nli-baseline:random", data=real_file, n_boot=10)
    assert list(again.predictions["prediction"]) == list(rnd["prediction"])
    other = winoscope.run(
        "swewinogender/nli", "nli-baseline:random", data=real_file, n_boot=10, seed=3
    )
    assert list(other.predictions["prediction"]) != list(rnd["prediction"])

    # overlap: share of hypothesis word types in the premise, computed here with str.split
    def words(s: str) -> set[str]:
        return {w.strip(".,!?;:").lower() for w in s.split()} - {""}

    expected_overlap = [
        "entailment"
        if len(words(r["hypothesis"]) & words(r["premise"])) / len(words(r["hypothesis"])) >= 0.5
        else "neutral"
        for r in raw_rows
    ]
    assert list(runs["overlap"].predictions["prediction"]) == expected_overlap


def test_resolution_baselines_on_real_release(real_file: Path) -> None:
    view = winoscope.load_dataset("swewinogender/resolution", real_file).table
    occ_first = [
        _position(p, o) < _position(p, q)
        for p, o, q in zip(
            view["premise"], view["occupation_participant"], view["other_participant"], strict=True
        )
    ]
    first_role = ["occupation" if f else "participant" for f in occ_first]
    rr = winoscope.run("swewinogender/resolution", "baseline:first", data=real_file, n_boot=200)
    assert list(rr.predictions["prediction_role"]) == first_role
    acc = sum(a == g for a, g in zip(first_role, view["gold_referent"], strict=True)) / 312
    assert _value(rr.metrics, "accuracy") == pytest.approx(acc)
    assert _value(rr.metrics, "gender_parity") == 1.0
    assert _value(rr.metrics, "occupation_share") == pytest.approx(sum(occ_first) / 312)
    assert _value(rr.metrics, "option_order_consistency") == 1.0
    rnd = winoscope.run("swewinogender/resolution", "baseline:random", data=real_file, n_boot=50)
    consistent = rnd.predictions["order_consistent"]
    assert _value(rnd.metrics, "option_order_consistency") == pytest.approx(consistent.mean())
    assert (rnd.predictions.loc[~consistent, "prediction_role"] == "invalid").all()


@dataclass
class PreferText:
    """A backend answering with log-probabilities: prefers the option whose text is ``text``."""

    text: str
    kind: str = "test-lm"
    model: str = "prefer"
    params: dict = field(default_factory=dict)
    cacheable: bool = False
    protocols: frozenset[str] = CHOICE_PROTOCOLS
    mode = None
    modes = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        for req in requests:
            lp = tuple(-0.1 if o.text == self.text else -2.3 for o in req.options)
            yield Response(req.request_id, backend=self.kind, model=self.model, option_logprobs=lp)


def test_log_likelihood_responses_are_combined_over_orders(real_file: Path) -> None:
    rr = winoscope.run("swewinogender/nli", PreferText("ja"), data=real_file, n_boot=20)
    assert set(rr.predictions["prediction"]) == {"entailment"}
    assert rr.predictions["answer_entailment_first"].iloc[0] == "logprobs -0.1000 -2.3000"
    res = winoscope.run("swewinogender/resolution", PreferText("kunden"), data=real_file, n_boot=20)
    p = res.predictions
    kund = p["other_participant"] == "kund"
    assert (p.loc[kund, "prediction_role"] == "participant").all()
    # elsewhere both options score -2.3: a tie picks nothing, so the row is invalid
    assert (p.loc[~kund, "prediction_role"] == "invalid").all()


def test_superlim_submission_is_scored(tmp_path: Path, raw_rows: list[dict]) -> None:
    rows = [
        dict(r, prediction=r["label"] if r["meta"]["pronoun"] != "hon" else "neutral")
        for r in raw_rows
    ]
    path = tmp_path / "swewinogender_test.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    result = winoscope.score("swewinogender", path, n_boot=50)
    assert _value(result.metrics, "accuracy", "pronoun", "han") == 1.0
    assert _value(result.metrics, "accuracy", "pronoun", "hon") == 0.5
    table = sw.load(path).table
    direct = sc.score_nli(table, n_boot=50, labels="superlim")  # score's default here
    pd.testing.assert_frame_equal(result.metrics, direct.metrics)
    assert "superlim" in result.settings["conventions"]["labels"]
    rows[3]["prediction"] = "kanske"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    with pytest.raises(ScoringError, match="row 4, field 'prediction'"):
        winoscope.score("swewinogender/nli", path, n_boot=10)


def test_resolution_predictions_file_round_trip(tmp_path: Path, real_file: Path) -> None:
    rr = winoscope.run(
        "swewinogender/resolution",
        "baseline:first",
        data=real_file,
        n_boot=30,
        out=tmp_path / "run",
    )
    again = winoscope.score(
        "swewinogender/resolution", tmp_path / "run" / "predictions.csv", n_boot=30
    )
    pd.testing.assert_frame_equal(again.metrics, rr.metrics)
    # order consistency read back from text ("True"/"False") must not turn every row True
    rnd = winoscope.run(
        "swewinogender/resolution", "baseline:random", data=real_file, n_boot=30, out=tmp_path / "r"
    )
    assert 0 < rnd.predictions["order_consistent"].mean() < 1
    again = winoscope.score(
        "swewinogender/resolution", tmp_path / "r" / "predictions.csv", n_boot=30
    )
    pd.testing.assert_frame_equal(again.metrics, rnd.metrics)
    broken = pd.read_csv(tmp_path / "run" / "predictions.csv").drop(columns=["gold_referent"])
    with pytest.raises(DatasetError, match="gold_referent"):
        winoscope.score("swewinogender/resolution", broken)


def test_bundled_sample_runs_offline() -> None:
    for model in ("nli-baseline:first-mention", "nli-baseline:random"):
        rr = winoscope.run("swewinogender/nli", model, n_boot=20)
        assert rr.dataset.is_sample and len(rr.predictions) == 36
    rr = winoscope.run("swewinogender/resolution", "baseline:first", n_boot=20)
    assert len(rr.predictions) == 18
    # the sample's first mentions: 1A/2B/3A have the occupation-referent (see the sample file)
    assert _value(rr.metrics, "gender_parity") == 1.0
    assert winoscope.validate("swewinogender/resolution") == []
    assert winoscope.validate("swewinogender/nli") == []
