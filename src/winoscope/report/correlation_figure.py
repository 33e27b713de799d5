"""The ``correlate`` figure: per-occupation resolution shares against occupation statistics.

One panel per pronoun gender (female, male, neutral: the share of that pronoun's items resolved
to the occupation) and one row per statistic; every point is an occupation, labelled without
overlaps (:mod:`.labels`), with the least-squares line and Pearson's r and Spearman's rho from
the correlation table in the corner. Axis names say what the statistic is (``% women employed
(US Bureau of Labor Statistics)``, ``% female in the corpus (small collocate set: pronouns)``)
instead of a column name. No title is drawn over the panels: the caption belongs to the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .figures import GENDER_COLOURS, GENDER_MARKERS, GREY, new_figure, plain, styled
from .labels import place_labels

STATISTIC_NAMES = {
    "bls": "% women employed (US Bureau of Labor Statistics)",
    "bergsma": "% female pronouns in text (Bergsma and Lin 2006)",
    "scb": "% women employed (Statistics Sweden)",
    "corpus_small": "% female in the corpus (small collocate set: pronouns)",
    "corpus_medium": "% female in the corpus (medium set: + gendered nouns)",
    "corpus_large": "% female in the corpus (large set: + first names)",
    "pct_female": "% women (official statistics)",
    "female_share": "% women (official statistics)",
}
PRONOUN_NAMES = {
    "female": "female pronouns",
    "male": "male pronouns",
    "neutral": "neutral pronouns",
}


def statistic_name(column: str) -> str:
    """What a statistics column measures, for an axis label.

    >>> statistic_name("corpus_small")
    '% female in the corpus (small collocate set: pronouns)'
    >>> statistic_name("census_2021")
    '% women: census_2021'
    """
    return STATISTIC_NAMES.get(column, f"% women: {column}")


def _corr_note(correlations: pd.DataFrame | None, measure: str, statistic: str) -> str:
    if correlations is None or correlations.empty:
        return ""
    sel = correlations[
        (correlations["measure"] == measure) & (correlations["statistic"] == statistic)
    ]
    vals = dict(zip(sel["method"], sel["value"], strict=True))
    parts = []
    for method, sym in (("pearson", "r"), ("spearman", "ρ")):
        v = vals.get(method)
        if v is not None:
            parts.append(f"{sym} = {'n/a' if math.isnan(float(v)) else f'{float(v):.2f}'}")
    n = int(sel["n"].iloc[0]) if len(sel) and "n" in sel else None
    return ", ".join(parts) + (f" (n = {n})" if n is not None else "")


@styled
def correlation_figure(
    joined: pd.DataFrame,
    statistic_columns: Sequence[str],
    *,
    correlations: pd.DataFrame | None = None,
    genders: Sequence[str] = ("female", "male", "neutral"),
    label_points: bool = True,
) -> tuple[Figure, int]:
    """Draw the panels; ``joined`` has ``occupation``, one share column per gender and the
    statistic columns (fractions). Returns the figure and how many point labels were left out
    for lack of a free place (each panel says how many in its corner)."""
    present = [g for g in genders if g in joined.columns and joined[g].notna().any()]
    if not present:
        raise ValueError("no pronoun gender has answered items to plot")
    rows, cols = len(statistic_columns), len(present)
    fig, axes = new_figure(rows, cols, figsize=(3.6 * cols + 0.4, 3.5 * rows + 0.3), squeeze=False)
    omitted = 0
    for r, stat in enumerate(statistic_columns):
        for c, g in enumerate(present):
            ax = axes[r, c]
            both = joined[["occupation", g, stat]].dropna()
            x, y = 100 * both[stat].to_numpy(float), 100 * both[g].to_numpy(float)
            ax.scatter(
                x,
                y,
                s=16,
                color=GENDER_COLOURS.get(g, GREY),
                marker=GENDER_MARKERS.get(g, "o"),
                alpha=0.85,
                zorder=3,
                linewidths=0,
            )
            if len(both) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
                slope, icpt = np.polyfit(x, y, 1)
                xs = np.array([0.0, 100.0])
                ax.plot(xs, slope * xs + icpt, color=GREY, lw=1.0, ls="--", zorder=2)
            ax.plot([0, 100], [0, 100], color="#dddddd", lw=0.8, zorder=1)
            ax.set_xlim(-2, 102)
            ax.set_ylim(-4, 104)
            ax.grid(alpha=0.25)
            if c == 0:
                ax.set_ylabel("% of items resolved\nto the occupation")
            ax.set_xlabel(plain(statistic_name(stat)), fontsize=8)
            note = _corr_note(correlations, g, stat)
            head = plain(PRONOUN_NAMES.get(g, f"{g} pronouns")) + (f": {note}" if note else "")
            # the second line is final once the labels are placed; this text holds its room
            ax.set_title(
                f"{head}\n{len(both)} of {len(both)} occupations labelled",
                fontsize=8,
                fontweight="normal",
            )
    fig.tight_layout()
    # after the layout, so labels are measured where they will be drawn
    for r, stat in enumerate(statistic_columns):
        for c, g in enumerate(present):
            both = joined[["occupation", g, stat]].dropna()
            ax = axes[r, c]
            left_out = 0
            if label_points:
                left_out = place_labels(
                    ax,
                    list(100 * both[stat]),
                    list(100 * both[g]),
                    [plain(o) for o in both["occupation"]],
                )
            head = ax.get_title().split("\n")[0]
            shown = (
                f"all {len(both)} occupations labelled"
                if not left_out
                else f"{len(both) - left_out} of {len(both)} occupations labelled"
            )
            ax.set_title(
                f"{head}\n{shown if label_points else ''}".rstrip(), fontsize=8, fontweight="normal"
            )
            omitted += left_out
    return fig, omitted
