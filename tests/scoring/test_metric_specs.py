"""Metric declarations: every built-in metric is declared once with its meaning, and plots,
tables, headline cards and comparison verdicts read the declaration, not the name."""

from __future__ import annotations

import doctest
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shared_paths import SHARED_DATA
from winoscope.compare.difference import difference_table
from winoscope.records import SEQUENCE_PROTOCOL
from winoscope.report.plots import run_figures
from winoscope.report.tables import macro_cells, wide_table
from winoscope.runs.runner import run
from winoscope.scoring import metric as metric_module
from winoscope.scoring.base import METRIC_COLUMNS
from winoscope.scoring.metric import (
    KINDS,
    METRICS,
    gap_meaning,
    get_metric,
    headline_metrics,
    metric,
    signed_gap_metrics,
)
from winoscope.tasks import TASKS

# tasks without a bundled sample (their default source is the original repository) and the
# shared data that stands in for it
REAL_DATA = {
    "winobias-en": "winobias-en",
    "winobias-en/coref": "winobias-en/conll_format",
    "winopron-en": "winopron-en",
    "winogender-en": "winogender-en",
}


def _frame(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "metric": m,
                "split": s,
                "type": t,
                "value": v,
                "ci_low": v - 0.1,
                "ci_high": v + 0.1,
                "n": 10,
                "n_strata": 1,
            }
            for m, s, t, v in rows
        ],
        columns=METRIC_COLUMNS,
    )


def test_the_module_examples_run() -> None:
    result = doctest.testmod(metric_module, raise_on_error=False)
    assert result.attempted > 0 and result.failed == 0


def test_every_metric_a_task_lists_is_declared() -> None:
    missing = {
        (name, m)
        for name in TASKS.names()
        for m in TASKS.get(name).metrics
        if not get_metric(m).declared
    }
    assert not missing, f"no declaration (a neutral fallback would be used): {sorted(missing)}"


def builtin_declared_names() -> list[str]:
    """Every metric name the winoscope package declares (this module's examples left out); the
    registry's first listing imports every family's scorer."""
    return sorted(
        name
        for name, spec in METRICS.items()
        if spec.module.startswith("winoscope.") and spec.module != metric_module.__name__
    )


def test_declarations_are_complete_and_their_components_exist() -> None:
    names = builtin_declared_names()
    assert {"signed_bias_gap", "gender_gap", "conll_f1_pro_minus_anti", "accuracy_gap"} <= set(
        names
    )
    for name in names:
        spec = METRICS.get(name)
        assert spec.kind in KINDS and spec.card, name
        for c in spec.components:
            assert get_metric(c).declared, f"{name}: component {c} is not declared"
        if spec.kind == "gap":
            assert len(spec.components) == 2, name
    spec = get_metric("signed_bias_gap")
    assert (spec.kind, spec.direction, spec.components) == (
        "gap",
        "zero",
        ("pro_accuracy", "anti_accuracy"),
    )
    assert get_metric("absolute_bias_gap").direction == "lower"
    assert not get_metric("absolute_bias_gap").signed_gap
    assert get_metric("pro_accuracy").group == "pro"
    assert get_metric("conll_f1_anti").measure == "conll_f1"
    assert gap_meaning("signed_bias_gap") == "pro − anti accuracy"
    assert gap_meaning("gender_gap") == "female − male accuracy"
    assert gap_meaning("conll_f1_pro_minus_anti") == "conll f1 pro − anti"


#: a task asked only by a published scoring method (mean token log-probabilities) has no
#: baseline: the tiny test model answers it
TINY = "hf:tiny"


def _sample_jobs() -> list[tuple[str, str]]:
    out = []
    for name in TASKS.names():
        t = TASKS.get(name)
        if t.primary.answered_by(t.protocol) == SEQUENCE_PROTOCOL:
            model = TINY
        elif name.startswith("swewinogender") and name != "swewinogender/resolution":
            model = "nli-baseline:entailment"
        else:
            model = "baseline:first"
        out.append((name, model))
    return out


@pytest.mark.parametrize(("task", "model"), _sample_jobs())
def test_every_metric_a_run_writes_is_declared(
    task: str, model: str, shared_data_or_none: Path | None, tmp_path: Path
) -> None:
    data = None
    if task in REAL_DATA:
        if shared_data_or_none is None or not (shared_data_or_none / REAL_DATA[task]).exists():
            pytest.skip("needs the shared English data")
        data = str(shared_data_or_none / REAL_DATA[task])
    if model == TINY:
        from tiny_lm import build_tiny_gpt2

        model = f"hf:{build_tiny_gpt2(tmp_path / 'tiny')}"
    rr = run(task, model, data=data, n_boot=0)
    written = set(rr.metrics["metric"].astype(str))
    assert written
    undeclared = sorted(m for m in written if not get_metric(m).declared)
    assert not undeclared, f"{task}: undeclared metrics {undeclared}"


@pytest.fixture
def shared_data_or_none() -> Path | None:
    return SHARED_DATA if SHARED_DATA.is_dir() else None


def test_unknown_names_get_a_neutral_spec_whatever_they_contain() -> None:
    spec = get_metric("third_party_gap_minus_absolute")
    assert not spec.declared and spec.kind == "count" and spec.direction == "none"
    assert signed_gap_metrics(["third_party_gap_minus_absolute", "signed_bias_gap"]) == [
        "signed_bias_gap"
    ]


def test_a_conflicting_declaration_is_refused_and_a_repeat_is_allowed() -> None:
    metric("spec_test_share", kind="share", direction="none", card="A share.")
    metric("spec_test_share", kind="share", direction="none", card="A share.")
    with pytest.raises(ValueError, match="another meaning"):
        metric("spec_test_share", kind="rate", direction="lower", card="A share.")
    with pytest.raises(ValueError, match="unknown kind"):
        metric("spec_test_bad", kind="ratio", direction="none")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="two components"):
        metric("spec_test_gap", kind="gap", direction="zero")


def test_plots_tables_and_cards_follow_the_declaration_not_the_name(tmp_path: Path) -> None:
    # a signed difference whose name says nothing about it, and a score named like a gap
    metric(
        "tilt",
        kind="gap",
        direction="zero",
        components=("pro_accuracy", "anti_accuracy"),
        label="pro − anti tilt",
        card="A made-up signed difference.",
    )
    metric("gap_filling_score", kind="accuracy", direction="higher", card="A made-up score.")
    metrics = _frame(
        [
            ("tilt", "dev", "type1", 0.3),
            ("tilt", "macro", "macro", 0.3),
            ("gap_filling_score", "macro", "macro", 0.8),
        ]
    )
    figures = {f.key: f for f in run_figures(metrics, None)}
    assert list(figures) == ["signed_gap"]
    ax = figures["signed_gap"].figure.axes[0]
    assert ax.get_xlabel() == "pro − anti tilt (95% CI)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["dev/type1", "macro avg"]

    cells = macro_cells(metrics)
    assert cells["tilt"].signed and cells["tilt"].direction == "pos"  # interval above zero
    assert not cells["gap_filling_score"].signed
    assert cells["tilt"].card == "A made-up signed difference."  # the headline card's sentence
    table = wide_table(metrics)
    signed = {name: [c.signed for c in row if c is not None] for name, row in table.rows}
    assert signed == {"tilt": [True, True], "gap_filling_score": [False]}
    assert headline_metrics(["gap_filling_score", "tilt"]) == ["tilt", "gap_filling_score"]

    # an undeclared name with "gap" in it is no longer drawn as a gap
    plain = _frame([("third_party_gap", "macro", "macro", 0.3)])
    assert [f.key for f in run_figures(plain, None)] == ["macro_metrics"]


def test_compare_verdicts_read_the_declaration() -> None:
    metric(
        "lean",
        kind="gap",
        direction="zero",
        components=("pro_accuracy", "anti_accuracy"),
        card="A made-up signed difference.",
    )
    ma = _frame([("lean", "macro", "macro", -0.2), ("other_gap", "macro", "macro", 0.1)])
    mb = _frame([("lean", "macro", "macro", 0.1), ("other_gap", "macro", "macro", 0.3)])
    reps = {("lean", "macro", "macro"): np.zeros(5), ("other_gap", "macro", "macro"): np.zeros(5)}
    table = difference_table(ma, mb, reps, reps)
    measures = {(r.metric, r.measure) for r in table.itertuples(index=False)}
    # a signed gap is also compared by its size (|B| - |A|); an undeclared name is not
    assert ("lean", "|B| - |A|") in measures
    assert ("other_gap", "|B| - |A|") not in measures
    size = table[(table["metric"] == "lean") & (table["measure"] == "|B| - |A|")]
    assert math.isclose(float(size["diff"].iloc[0]), 0.1 - 0.2)


def test_the_documented_declaration_runs_as_written() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text("utf-8")
    section = doc[doc.index("## Declaring a scorer's metrics") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    exec(code[: code.index("```")], {})
    assert get_metric("pro_score").group == "pro" and get_metric("stereotype_lean").signed_gap
    metrics = _frame(
        [
            ("pro_score", "macro", "macro", 0.9),
            ("anti_score", "macro", "macro", 0.5),
            ("stereotype_lean", "macro", "macro", 0.4),
        ]
    )
    assert [f.key for f in run_figures(metrics, None)] == ["accuracy_by_condition", "signed_gap"]
    assert headline_metrics(list(metrics["metric"])) == [
        "stereotype_lean",
        "pro_score",
        "anti_score",
    ]


def test_coreference_headlines_are_conll_f1_and_link_accuracy() -> None:
    """MUC, B-cubed and CEAF-e F1 are declared components of CoNLL F1 (their mean), so where
    CoNLL F1 is reported they come after link accuracy, the other measure of its own."""
    from winoscope.scoring.metric import get_metric, headline_metrics
    from winoscope.tasks import get_task

    assert get_metric("conll_f1").components == ("muc_f1", "bcub_f1", "ceafe_f1")
    heads = headline_metrics(list(get_task("winobias-uk/coref").metrics), limit=4)
    assert heads == [
        "conll_f1_pro_minus_anti",
        "conll_f1_pro",
        "conll_f1_anti",
        "link_accuracy_pro",
    ]
    heads = headline_metrics(list(get_task("winopron-uk/coref").metrics), limit=5)
    assert heads[-1] == "link_accuracy" and "muc_f1" not in heads
    # the forced-choice tasks' headlines are as before
    assert headline_metrics(list(get_task("winobias-uk").metrics), limit=4) == [
        "signed_bias_gap",
        "overall_accuracy",
        "pro_accuracy",
        "anti_accuracy",
    ]
