"""Figures: no global matplotlib state, labels without overlaps, honest axes, legends."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from winoscope.report.correlation_figure import correlation_figure, statistic_name
from winoscope.report.figures import new_figure
from winoscope.report.labels import place_labels


def test_drawing_and_saving_leave_rcparams_and_backend_alone(tmp_path: Path) -> None:
    """In a fresh interpreter: rcParams identical after importing winoscope, drawing a run
    report's figures and a comparison; pyplot never imported; no backend chosen."""
    script = textwrap.dedent(
        f"""
        import sys, matplotlib
        keys = [k for k in matplotlib.rcParams if k != "backend"]
        before = {{k: matplotlib.rcParams[k] for k in keys}}
        import winoscope
        from winoscope.report.compare import compare_runs
        winoscope.run("winobias-uk", "baseline:stereotype", out=r"{tmp_path}/a", n_boot=50)
        compare_runs([r"{tmp_path}/a"], r"{tmp_path}/cmp")
        after = {{k: matplotlib.rcParams[k] for k in keys}}
        changed = [k for k in keys if str(before[k]) != str(after[k])]
        print("changed", changed)
        print("pyplot", "matplotlib.pyplot" in sys.modules)
        print("backend", matplotlib.rcParams._get_backend_or_none())
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True
    ).stdout
    assert "changed []" in out and "pyplot False" in out and "backend None" in out, out
    assert (tmp_path / "a" / "plots" / "signed_gap.png").is_file()


def overlaps_by_matplotlib(ax) -> int:  # type: ignore[no-untyped-def]
    """Overlapping label pairs by matplotlib's own text extents (independent of the placer's
    box arithmetic)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = ax.figure
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text() and t.get_visible()]
    return sum(
        1
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].x0 < boxes[j].x1
        and boxes[j].x0 < boxes[i].x1
        and boxes[i].y0 < boxes[j].y1
        and boxes[j].y0 < boxes[i].y1
    )


def test_the_overlap_checks_see_a_planted_overlap() -> None:
    _fig, ax = new_figure(figsize=(4, 3))
    ax.text(0.5, 0.5, "occupation one")
    ax.text(0.52, 0.5, "occupation two")  # on top of the first
    ax.text(0.1, 0.1, "apart")
    assert overlaps_by_matplotlib(ax) == 1


def test_labels_never_overlap_and_the_left_out_are_counted() -> None:
    rng = np.random.default_rng(0)
    _fig, ax = new_figure(figsize=(4, 3))
    x, y = rng.uniform(0, 100, 80), rng.uniform(0, 100, 80)
    ax.scatter(x, y, s=10)
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    left_out = place_labels(ax, list(x), list(y), [f"occupation {i}" for i in range(80)])
    shown = [t for t in ax.texts if t.get_text()]
    assert len(shown) + left_out == 80
    assert 0 < left_out < 80  # 80 long labels cannot all fit in 4 x 3 inches
    assert overlaps_by_matplotlib(ax) == 0
    # few points: every label fits next to its point
    _fig2, ax2 = new_figure(figsize=(4, 3))
    ax2.set_xlim(0, 100)
    ax2.set_ylim(0, 100)
    assert place_labels(ax2, [10, 50, 90], [10, 50, 90], ["a", "b", "c"]) == 0
    assert overlaps_by_matplotlib(ax2) == 0


def test_correlation_figure_one_panel_per_pronoun_and_honest_axes() -> None:
    occ = [f"occ{i}" for i in range(12)]
    rng = np.random.default_rng(1)
    joined = pd.DataFrame(
        {
            "occupation": occ,
            "female": rng.uniform(0, 1, 12),
            "male": rng.uniform(0, 1, 12),
            "neutral": rng.uniform(0, 1, 12),
            "bls": np.linspace(0.05, 0.95, 12),
            "corpus_small": np.linspace(0.1, 0.6, 12),
        }
    )
    corr = pd.DataFrame(
        {
            "measure": ["female", "female"],
            "statistic": ["bls", "bls"],
            "method": ["pearson", "spearman"],
            "value": [0.5, 0.4],
            "n": [12, 12],
        }
    )
    fig, left_out = correlation_figure(joined, ["bls", "corpus_small"], correlations=corr)
    axes = np.array(fig.axes).reshape(2, 3)
    assert [a.get_title().split(":")[0].split("\n")[0] for a in axes[0]] == [
        "female pronouns",
        "male pronouns",
        "neutral pronouns",
    ]
    assert "r = 0.50" in axes[0, 0].get_title() and "ρ = 0.40" in axes[0, 0].get_title()
    assert axes[1, 0].get_xlabel() == statistic_name("corpus_small")
    assert "corpus_small" not in axes[1, 0].get_xlabel()
    assert fig._suptitle is None  # no title over the panels
    assert left_out == 0
    assert all(overlaps_by_matplotlib(a) == 0 for a in axes.flat)
    # the y label fits inside the figure (not clipped at the left edge)
    fig.canvas.draw()  # type: ignore[no-untyped-call]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    assert axes[0, 0].yaxis.label.get_window_extent(renderer).x0 >= 0


def test_each_format_is_drawn_once(tmp_path: Path) -> None:
    """``tight_layout`` leaves a placeholder layout engine; left in place, every ``savefig``
    lays the figure out in an extra draw first (six draws for three formats)."""
    from winoscope.report.figures import ReportFigure, save_figure

    fig, ax = new_figure(figsize=(3.0, 2.0))
    ax.plot([0, 1], [0, 1])
    ax.set_title("title")
    fig.tight_layout()
    draws: list[int] = []
    plain_draw = fig.draw

    def counted(renderer):  # type: ignore[no-untyped-def]
        draws.append(1)
        return plain_draw(renderer)

    fig.draw = counted  # type: ignore[method-assign]
    saved = save_figure(ReportFigure("f", "t", "c", fig), tmp_path)
    assert len(draws) == 3
    assert saved.pdf_path is not None and saved.pdf_path.stat().st_size > 0
