"""The association figure in the style of Hansson et al. (2021), Figure 1.

One panel per collocate set (small, medium, large): real-world % female on the x-axis, corpus
% female on the y-axis, one point per occupation, the diagonal, the convex curve of perfect
correspondence after correcting for the corpus-wide female share q, and dashed horizontal
lines at y(1/3) and y(2/3) dividing the corrected zones. A legend under the panels names each
of these; ``label_points`` names the occupations where a label fits without overlapping
(:func:`winoscope.report.labels.place_labels`).

Drawn on an explicit :class:`~matplotlib.figure.Figure` inside a local ``rc_context``: no
backend is selected and the caller's rcParams are untouched.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..jsonio import atomic_path
from ..occupations.association import AssociationResult, corrected_curve, zone_lines
from ..occupations.scan.counts import SETS

SET_NAMES = {
    "small": "small set (pronouns)",
    "medium": "medium set (+ gendered nouns)",
    "large": "large set (+ first names)",
}


def plot_association(
    result: AssociationResult, path: str | Path, *, label_points: bool = False
) -> Path:
    """Draw the three panels to ``path`` (PNG, PDF or SVG by suffix) and return it.

    Needs real-world shares (``associate(..., statistics=...)``).
    """
    import matplotlib
    from matplotlib.lines import Line2D

    from .figures import BLUE, STYLE, VERMILLION, new_figure
    from .labels import place_labels

    occ = result.occupations
    if "real_world" not in occ.columns:
        raise ValueError("the figure needs real-world statistics (pass --stats)")
    path = Path(path)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, len(SETS), figsize=(11, 4.4), sharey=True, dpi=150)
        grid = np.linspace(0.0005, 0.9995, 400)
        parts = {}
        for ax, s in zip(axes, SETS, strict=True):
            part = occ[(occ["set"] == s) & occ["real_world"].notna() & occ["pct_female"].notna()]
            parts[s] = part
            q = result.q(s)
            ax.plot([0, 100], [0, 100], color="0.75", lw=0.8, zorder=1)
            if q == q:  # not NaN
                ax.plot(
                    grid * 100, np.asarray(corrected_curve(grid, q)) * 100, color=VERMILLION, lw=1.4
                )
                for y in zone_lines(q):
                    ax.axhline(y * 100, color="0.35", ls="--", lw=0.9)
            ax.axvline(100 / 3, color="0.88", lw=0.6)
            ax.axvline(200 / 3, color="0.88", lw=0.6)
            ax.scatter(
                part["real_world"] * 100, part["pct_female"] * 100, s=14, color=BLUE, zorder=3
            )
            qtext = "q = n/a" if q != q else f"q = {q:.3f}"
            ax.set_title(
                f"{SET_NAMES.get(s, s)}\n{qtext}, n = {len(part)}", fontsize=9, fontweight="normal"
            )
            ax.set_xlim(0, 100)
            ax.set_ylim(0, 100)
            ax.set_xlabel("% female (real world)")
        axes[0].set_ylabel("% female (corpus)")
        handles = [
            Line2D([], [], marker="o", ls="none", color=BLUE, ms=4, label="occupation"),
            Line2D([], [], color="0.75", lw=0.8, label="corpus = real world"),
            Line2D(
                [], [], color=VERMILLION, lw=1.4, label="perfect correspondence, corrected for q"
            ),
            Line2D([], [], color="0.35", ls="--", lw=0.9, label="zone boundaries y(1/3), y(2/3)"),
        ]
        fig.legend(handles=handles, loc="lower center", ncol=4, frameon=False, fontsize=8)
        fig.tight_layout(rect=(0, 0.07, 1, 1))
        if label_points:
            for ax, s in zip(axes, SETS, strict=True):
                part = parts[s]
                place_labels(
                    ax,
                    list(part["real_world"] * 100),
                    list(part["pct_female"] * 100),
                    [str(o) for o in part["occupation"]],
                )
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"Software": None} if path.suffix == ".png" else None
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", dpi=150, metadata=meta)
    return path
