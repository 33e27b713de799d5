"""Helpers shared by the report tests."""

from __future__ import annotations

from winoscope.results.run import RunResult

SCRIPT = "<script>alert(1)</script>"


def inject_markup(rr: RunResult) -> None:
    """Put markup into a sentence, a model answer and the model parameters of a run (in place).

    The first row's prediction is set to ``invalid`` so it is listed among the rows to read.
    """
    pred = rr.predictions
    pred.loc[pred.index[0], "sentence_uk"] = f"{SCRIPT} Розробник посперечався з дизайнером."
    pred.loc[pred.index[0], "answer_target_first"] = f'{SCRIPT}<img src=x onerror="alert(2)">'
    pred.loc[pred.index[0], "prediction_role"] = "invalid"
    rr.manifest["model"]["params"] = {"note": SCRIPT}
