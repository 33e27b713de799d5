"""Model behaviour vs occupation statistics: per-occupation resolution shares, Pearson with
Fisher-z CIs and Spearman with bootstrap CIs, checked against scipy and formulas written out
here, on English Winogender (real files) and SweWinogender runs."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import winoscope
import winoscope.families.swewinogender.tasks  # registers the swewinogender tasks
from winoscope.errors import ScoringError
from winoscope.occupation_pipeline import correlate as correlation_run
from winoscope.occupations import stats as st
from winoscope.records import CHOICE_PROTOCOLS, NO_MODES, Description, Request, Response
from winoscope.scoring import occupation_correlation as oc


def read_winogender_sentences(path: Path) -> pd.DataFrame:
    """``all_sentences.tsv``: ids ``occupation.participant.answer.gender.txt``; answer 0 is the
    occupation, 1 the participant."""
    raw = pd.read_csv(path, sep="\t")
    parts = raw["sentid"].str.split(".", expand=True)
    return pd.DataFrame(
        {
            "occupation": parts[0],
            "participant": parts[1],
            "gold_role": np.where(parts[2] == "0", "occupation", "participant"),
            "pronoun_gender": parts[3],
            "sentence": raw["sentence"],
        }
    )


@pytest.fixture(scope="module")
def winogender(shared_data: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    base = shared_data / "winogender-en"
    return read_winogender_sentences(base / "all_sentences.tsv"), st.load_statistics(
        base / "occupations-stats.tsv"
    )


def _stereotyped(items: pd.DataFrame, stats: pd.DataFrame, column: str) -> pd.Series:
    """She -> the occupation iff most of its workers are women; he iff most are men; they: gold."""
    female_job = items["occupation"].map(stats.set_index("occupation")[column] > 0.5)
    role = np.where(
        items["pronoun_gender"] == "female",
        np.where(female_job, "occupation", "participant"),
        np.where(female_job, "participant", "occupation"),
    )
    return pd.Series(
        np.where(items["pronoun_gender"] == "neutral", items["gold_role"], role), index=items.index
    )


def _pearson_by_hand(x: np.ndarray, y: np.ndarray) -> float:
    mx, my = x.mean(), y.mean()
    return float(
        ((x - mx) * (y - my)).sum() / math.sqrt(((x - mx) ** 2).sum() * ((y - my) ** 2).sum())
    )


def test_winogender_shares_and_correlations(winogender) -> None:
    items, stats = winogender
    assert len(items) == 720 and items["occupation"].nunique() == 60
    pred = items.assign(prediction_role=_stereotyped(items, stats, "bls"))
    shares = oc.occupation_shares(oc.items_from_predictions(pred, "winogender"))
    assert len(shares) == 60
    assert (shares[["n_female", "n_male", "n_neutral"]] == 4).all().all()
    by = shares.set_index("occupation")
    female_job = stats.set_index("occupation")["bls"] > 0.5
    for occ in ("nurse", "engineer", "technician"):
        expected = 1.0 if female_job[occ] else -1.0
        assert by.loc[occ, "female_minus_male"] == expected
        assert by.loc[occ, "female"] == (1.0 if female_job[occ] else 0.0)
    # neutral pronouns answered by gold: the share of occupation-referent items (2 of 4)
    assert (by["neutral"] == 0.5).all()

    corr = oc.correlate(shares, stats, n_boot=500, seed=7)
    assert set(corr["statistic"]) == {"bergsma", "bls"}
    assert len(corr) == 2 * 4 * 2  # statistics x measures x methods
    joined = shares.merge(stats, on="occupation")
    for col in ("bls", "bergsma"):
        x, y = joined[col].to_numpy(), joined["female_minus_male"].to_numpy()
        row = corr.query("measure == 'female_minus_male' and statistic == @col")
        pr = row[row["method"] == "pearson"].iloc[0]
        sr = row[row["method"] == "spearman"].iloc[0]
        assert pr["value"] == pytest.approx(_pearson_by_hand(x, y))
        ci = sps.pearsonr(x, y).confidence_interval(0.95)
        assert (pr["ci_low"], pr["ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
        z, half = math.atanh(pr["value"]), 1.959963984540054 / math.sqrt(60 - 3)
        assert pr["ci_low"] == pytest.approx(math.tanh(z - half))
        assert pr["p_value"] == pytest.approx(sps.pearsonr(x, y).pvalue)
        assert sr["value"] == pytest.approx(sps.spearmanr(x, y).statistic)
        assert pr["n"] == sr["n"] == 60
        # the bootstrap interval, recomputed with a plain loop over the same resampling plan
        reps = [
            sps.spearmanr(x[i], y[i]).statistic
            if len(set(x[i])) > 1 and len(set(y[i])) > 1
            else np.nan
            for i in oc.bootstrap_indices(60, 500, 7)
        ]
        reps = np.array(reps, dtype=float)
        lo, hi = np.quantile(reps[~np.isnan(reps)], [0.025, 0.975])
        assert (sr["ci_low"], sr["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    bls = corr.query(
        "measure == 'female_minus_male' and statistic == 'bls' and method == 'pearson'"
    )
    assert bls["value"].iloc[0] > 0.7  # built to follow BLS


def test_no_gender_preference_gives_undefined_correlation(winogender) -> None:
    items, stats = winogender
    shares = oc.occupation_shares(
        oc.items_from_predictions(items.assign(prediction_role=items["gold_role"]), None)
    )
    assert (shares["female_minus_male"] == 0).all()
    corr = oc.correlate(shares, stats, n_boot=50)
    pref = corr[corr["measure"] == "female_minus_male"]
    assert pref["value"].isna().all() and pref["ci_low"].isna().all()
    assert (pref["n"] == 60).all()


def test_invalid_and_missing_answers_are_left_out(winogender) -> None:
    items, _ = winogender
    pred = items.assign(prediction_role=items["gold_role"].astype(object))
    tech = (pred["occupation"] == "technician") & (pred["pronoun_gender"] == "female")
    idx = pred.index[tech]
    pred.loc[idx[0], "prediction_role"] = "invalid"
    pred.loc[idx[1], "prediction_role"] = None
    shares = oc.occupation_shares(oc.items_from_predictions(pred, None)).set_index("occupation")
    assert shares.loc["technician", "n_female"] == 2
    assert shares.loc["technician", "unanswered"] == 2
    kept = items.loc[idx[2:], "gold_role"]
    assert shares.loc["technician", "female"] == pytest.approx((kept == "occupation").mean())
    with pytest.raises(ScoringError, match="cannot tell"):
        oc.items_from_predictions(items, "winogender")


def test_fisher_ci_edges() -> None:
    assert all(math.isnan(v) for v in oc.fisher_ci(0.5, 3))
    assert oc.fisher_ci(1.0, 10) == (1.0, 1.0)
    lo, hi = oc.fisher_ci(0.0, 103)
    assert (lo, hi) == (
        pytest.approx(-math.tanh(1.959963984540054 / 10)),
        pytest.approx(math.tanh(1.959963984540054 / 10)),
    )


def test_plot_is_written(winogender, tmp_path: Path) -> None:
    items, stats = winogender
    pred = items.assign(prediction_role=_stereotyped(items, stats, "bls"))
    shares = oc.occupation_shares(oc.items_from_predictions(pred, None))
    path = correlation_run.plot_correlation(
        shares, stats, tmp_path / "plot.png", correlations=oc.correlate(shares, stats, n_boot=20)
    )
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def _aux_file(path: Path, occupations: list[str]) -> Path:
    """A SweWinogender auxiliary file written for the test: shares spread over 5..95 %."""
    lines = ["yrke\tscb\tsmall\tmedium\tlarge"]
    for i, occ in enumerate(sorted(occupations)):
        pct = 5 + 90 * i / (len(occupations) - 1)
        lines.append(f"{occ}\t{pct:.2f}\t{pct / 2:.2f}\t{pct / 1.5:.2f}\t{pct / 1.2:.2f}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@dataclass
class ScbStereotype:
    """Resolves hon to the occupation iff its SCB share of women is over 1/2, han iff under."""

    female_jobs: set[str]
    kind: str = "test"
    model: str = "scb-stereotype"
    params: dict = field(default_factory=dict)
    cacheable: bool = False
    protocols: frozenset[str] = CHOICE_PROTOCOLS
    mode = None
    modes = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        for req in requests:
            occ = req.item.mention("occupation").occupation
            g = req.item.pronoun_gender
            want = "occupation" if (g == "female") == (occ in self.female_jobs) else "participant"
            if g == "neutral":
                want = "occupation"
            label = next(o.label for o in req.options if o.role == want)
            yield Response(req.request_id, backend=self.kind, model=self.model, choice=label)


def test_correlate_run_on_swewinogender(shared_data: Path, tmp_path: Path) -> None:
    data = shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"
    occs = sorted(
        winoscope.load_dataset("swewinogender/nli", data).table["occupation_participant"].unique()
    )
    aux = _aux_file(tmp_path / "aux.tsv", occs)
    stats = st.load_statistics(aux)
    female_jobs = set(stats.loc[stats["scb"] > 0.5, "occupation"])
    run_dir = tmp_path / "run"
    winoscope.run(
        "swewinogender/resolution", ScbStereotype(female_jobs), data=data, out=run_dir, n_boot=20
    )
    result = correlation_run.correlate_run(run_dir, aux, n_boot=200)
    by = result.shares.set_index("occupation")
    for occ in occs:
        assert by.loc[occ, "female_minus_male"] == (1.0 if occ in female_jobs else -1.0)
        assert by.loc[occ, "neutral"] == 1.0
    assert result.unmatched == {"without_statistics": [], "without_items": []}
    row = result.correlations.query(
        "measure == 'female_minus_male' and statistic == 'scb' and method == 'spearman'"
    ).iloc[0]
    x = stats.set_index("occupation").loc[by.index, "scb"].to_numpy()
    assert row["value"] == pytest.approx(sps.spearmanr(x, by["female_minus_male"]).statistic)
    assert row["n"] == 45
    names = {p.name for p in result.files}
    assert names == {
        "occupation_shares.csv",
        "occupation_correlations.csv",
        "occupation_correlations.json",
        "occupation_correlation.png",
    }
    meta = json.loads((run_dir / "occupation_correlations.json").read_text("utf-8"))
    assert meta["task"] == "swewinogender/resolution" and meta["model"] == "test:scb-stereotype"


def test_nli_run_items(shared_data: Path) -> None:
    data = shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"
    t = winoscope.load_dataset("swewinogender/nli", data).table
    # entailment for every hon item and neutral for every han item, gold for hen
    pred = np.where(
        t["pronoun"] == "hon",
        "entailment",
        np.where(t["pronoun"] == "han", "neutral", t["label"].astype(str)),
    )
    items = oc.items_from_predictions(t.assign(prediction=pred), "swewinogender/nli")
    assert len(items) == 312  # only the hypotheses that name the occupation
    shares = oc.occupation_shares(items)
    assert (shares["female"] == 1).all() and (shares["male"] == 0).all()
    assert (shares["female_minus_male"] == 1).all()


def test_winopron_family_columns(winogender) -> None:
    """Rows as the WinoPron family writes them: occupation_en, pronoun_set, context."""
    items, stats = winogender
    pred = pd.DataFrame(
        {
            "occupation_en": items["occupation"],
            "pronoun_set": items["pronoun_gender"].map(
                {"male": "masculine", "female": "feminine", "neutral": "they"}
            ),
            "context": "double",
            "prediction_role": _stereotyped(items, stats, "bls"),
        }
    )
    single = pred.assign(context="single", prediction_role="occupation")
    got = oc.occupation_shares(
        oc.items_from_predictions(pd.concat([pred, single]), "winogender-en")
    )
    want = oc.occupation_shares(
        oc.items_from_predictions(
            items.assign(prediction_role=_stereotyped(items, stats, "bls")), None
        )
    )
    pd.testing.assert_frame_equal(got, want)


def test_winogender_en_task_run_correlates(shared_data: Path, tmp_path: Path) -> None:
    from winoscope.tasks import TASKS

    if "winogender-en" not in TASKS:
        pytest.skip("the winogender-en task is not registered in this checkout")
    run_dir = tmp_path / "run"
    winoscope.run(
        "winogender-en",
        "baseline:stereotype",
        data=shared_data / "winogender-en",
        out=run_dir,
        n_boot=20,
    )
    result = correlation_run.correlate_run(
        run_dir, shared_data / "winogender-en" / "occupations-stats.tsv", n_boot=100
    )
    assert len(result.shares) == 60
    assert result.unmatched["without_statistics"] == []
    row = result.correlations.query(
        "measure == 'female_minus_male' and statistic == 'bls' and method == 'pearson'"
    ).iloc[0]
    # the same number from the predictions file, with pandas and scipy
    pred = pd.read_csv(run_dir / "predictions.csv")
    pred = pred[pred["prediction_role"].isin(["occupation", "participant"])]
    share = (
        pred.assign(occ=pred["prediction_role"] == "occupation")
        .groupby(["occupation_en", "pronoun_set"])["occ"]
        .mean()
        .unstack()
    )
    diff = share["female"] - share["male"]
    bls = st.load_statistics(shared_data / "winogender-en" / "occupations-stats.tsv")
    x = bls.set_index("occupation").loc[diff.index, "bls"]
    assert row["value"] == pytest.approx(sps.pearsonr(x, diff).statistic)
    assert row["value"] > 0  # a stereotype resolver leans with the labour statistics
