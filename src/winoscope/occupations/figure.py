"""The association figure in the style of Hansson et al. (2021), Figure 1.

One panel per collocate set (small, medium, large): real-world % female on the x-axis, corpus
% female on the y-axis, one point per occupation, the diagonal, the convex curve of perfect
correspondence after correcting for the corpus-wide female share q, and dashed horizontal
lines at y(1/3) and y(2/3) dividing the corrected zones.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .association import AssociationResult, corrected_curve, zone_lines
from .scan.counts import SETS


def plot_association(
    result: AssociationResult, path: str | Path, *, label_points: bool = False
) -> Path:
    """Draw the three panels to ``path`` (PNG, PDF or SVG by suffix) and return it.

    Needs real-world shares (``associate(..., statistics=...)``).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    occ = result.occupations
    if "real_world" not in occ.columns:
        raise ValueError("the figure needs real-world statistics (pass --stats)")
    path = Path(path)
    fig, axes = plt.subplots(1, len(SETS), figsize=(11, 3.9), sharey=True)
    grid = np.linspace(0.0005, 0.9995, 400)
    for ax, s in zip(axes, SETS, strict=True):
        part = occ[(occ["set"] == s) & occ["real_world"].notna() & occ["pct_female"].notna()]
        q = result.q(s)
        ax.plot([0, 100], [0, 100], color="0.8", lw=0.8, zorder=1)
        if q == q:  # not NaN
            ax.plot(grid * 100, np.asarray(corrected_curve(grid, q)) * 100, color="C3", lw=1.4)
            for y in zone_lines(q):
                ax.axhline(y * 100, color="0.35", ls="--", lw=0.9)
        ax.axvline(100 / 3, color="0.85", lw=0.6)
        ax.axvline(200 / 3, color="0.85", lw=0.6)
        ax.scatter(part["real_world"] * 100, part["pct_female"] * 100, s=14, color="C0", zorder=3)
        if label_points:
            for row in part.itertuples(index=False):
                ax.annotate(
                    row.occupation,
                    (row.real_world * 100, row.pct_female * 100),
                    fontsize=6,
                    xytext=(2, 2),
                    textcoords="offset points",
                )
        qtext = "q = n/a" if q != q else f"q = {q:.3f}"
        ax.set_title(f"{s} collocate set ({qtext}, n = {len(part)})", fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 100)
        ax.set_xlabel("% female (real world)")
    axes[0].set_ylabel("% female (corpus)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return path
