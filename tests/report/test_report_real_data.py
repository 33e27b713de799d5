"""Reports on the real Winogender data in ../shared/data: occupation statistics from the set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from winoscope.runs.runner import run


def test_winogender_report_plots_behaviour_against_bls_share(
    shared_data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "wg"
    rr = run(
        "winogender-en",
        "baseline:stereotype",
        data=shared_data / "winogender-en",
        out=out,
        n_boot=50,
    )
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="fig-occupations"' in html
    assert (out / "plots" / "occupations.svg").stat().st_size > 1000

    # the same numbers, worked out from the predictions file with plain pandas
    pred = pd.read_parquet(out / "predictions.parquet")
    double = pred[pred["context"] == "double"]
    share = (
        double.assign(hit=double["prediction_role"] == "occupation")
        .groupby(["occupation_en", "pronoun_set"])["hit"]
        .mean()
        .unstack()
    )
    diff = (share["female"] - share["male"]).dropna()
    bls = double.groupby("occupation_en")["bls_pct_female"].first().reindex(diff.index)
    r = float(np.corrcoef(bls, diff)[0, 1])
    svg = (out / "plots" / "occupations.svg").read_text(encoding="utf-8")
    assert f"Pearson r = {r:.2f}" in svg
    assert f"n = {len(diff)} occupations" in svg
    assert len(diff) == double["occupation_en"].nunique()
    assert rr.manifest["dataset"]["source"]["kind"] != "sample"
