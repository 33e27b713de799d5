"""A run's predictions file read back as the data of another run: the answers a protocol joins
replace the file's own answer columns, so the second run scores as a run on the original data.

Before the answers met the rows in one join (``winoscope.tasks.base.join_answers``), each
family merged them itself, and pandas kept both copies as ``prediction_role_x`` and
``prediction_role_y``: the run then failed with "no 'prediction_role' column to score".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from winoscope.runs.runner import run

TASKS = ("winobias-uk", "winobias-uk-controlled", "swewinogender", "bbq-uk", "winobias-uk/coref")


@pytest.mark.parametrize("task", TASKS)
def test_a_predictions_file_as_data_scores_as_the_original(task: str, tmp_path: Path) -> None:
    first = run(task, "baseline:random", n_boot=50, quiet=True, out=tmp_path / "first")
    data = tmp_path / "first" / "predictions.csv"
    again = run(task, "baseline:random", n_boot=50, quiet=True, out=tmp_path / "again", data=data)
    assert again.record.outcome.success
    assert again.metrics.equals(first.metrics)
    suffixed = [c for c in again.predictions.columns if str(c).endswith(("_x", "_y"))]
    assert suffixed == []
    column = again.task.primary.prediction_column
    assert again.predictions[column].tolist() == first.predictions[column].tolist()
