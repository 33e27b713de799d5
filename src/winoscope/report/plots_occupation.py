"""The per-occupation figures of a run report (the behaviour comes from :mod:`.occupations`).

Share resolved to each occupation by pronoun gender, against a numeric occupation statistic
(a scatter, or Winogender's female − male difference with Pearson's r) or grouped by a
stereotype label (a dot plot).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..scoring.metric import GENDER_GROUPS
from .figures import (
    DPI,
    GENDER_COLOURS,
    GENDER_MARKERS,
    GREY,
    PALETTE,
    PURPLE,
    err,
    new_figure,
    plain,
    styled,
)


@styled
def occupation_figure(behaviour: pd.DataFrame) -> Figure:
    """Share resolved to each occupation, one marker per pronoun gender, grouped by statistic.

    Numeric statistics (e.g. % women) give a scatter against the statistic; labels (male /
    female stereotype) give a dot plot with occupations grouped by label.
    """
    genders = sorted(
        dict.fromkeys(behaviour["pronoun_gender"]),
        key=lambda g: GENDER_GROUPS.index(g) if g in GENDER_GROUPS else len(GENDER_GROUPS),
    )
    numeric = pd.api.types.is_numeric_dtype(behaviour["statistic"]) and bool(
        behaviour["statistic"].notna().any()
    )
    if numeric and {"male", "female"} <= set(genders):
        return difference_vs_statistic_figure(behaviour)
    if numeric:
        fig, ax = new_figure(figsize=(6.0, 4.0), dpi=DPI)
        for i, g in enumerate(genders):
            sub = behaviour[behaviour["pronoun_gender"] == g]
            ax.errorbar(
                sub["statistic"],
                sub["share"],
                yerr=err(
                    sub["share"].to_numpy(), sub["ci_low"].to_numpy(), sub["ci_high"].to_numpy()
                ),
                fmt=GENDER_MARKERS.get(g, "o"),
                color=GENDER_COLOURS.get(g, PALETTE[i % len(PALETTE)]),
                capsize=2,
                alpha=0.85,
                label=plain(f"pronoun: {g}"),
            )
        ax.set_xlabel(plain(behaviour.attrs.get("statistic") or "occupation statistic"))
        ax.set_ylabel("share resolved to the occupation")
        ax.set_ylim(-0.03, 1.03)
        ax.legend(frameon=False, fontsize=8)
        ax.set_title("Per-occupation behaviour vs occupation statistic")
        fig.tight_layout()
        return fig

    wide = behaviour.pivot_table(
        index=["occupation", "label"], columns="pronoun_gender", values="share"
    )
    stat = behaviour.groupby("occupation")["statistic"].first().astype("string").fillna("unknown")
    first, second = [*genders, None, None][:2]
    diff = (wide[first] - wide[second]) if second is not None else wide[first]
    order = (
        pd.DataFrame(
            {
                "stat": stat.reindex(wide.index.get_level_values(0)).to_numpy(),
                "diff": diff.to_numpy(),
            },
            index=wide.index,
        )
        .sort_values(["stat", "diff"], ascending=[True, True])
        .index
    )
    occupations = [o for o, _ in order]
    labels = [lab for _, lab in order]
    pos = {o: i for i, o in enumerate(occupations)}
    fig, ax = new_figure(figsize=(6.4, 1.2 + 0.27 * len(occupations)), dpi=DPI)
    step = 0.36 / max(len(genders), 1)
    for i, g in enumerate(genders):
        sub = behaviour[behaviour["pronoun_gender"] == g]
        yy = np.array([pos[o] for o in sub["occupation"]]) + (i - (len(genders) - 1) / 2) * step
        ax.errorbar(
            sub["share"],
            yy,
            xerr=err(sub["share"].to_numpy(), sub["ci_low"].to_numpy(), sub["ci_high"].to_numpy()),
            fmt=GENDER_MARKERS.get(g, "o"),
            ms=5,
            color=GENDER_COLOURS.get(g, PALETTE[i % len(PALETTE)]),
            elinewidth=0.8,
            capsize=0,
            alpha=0.9,
            label=plain(f"pronoun: {g}"),
        )
    # shade and name the statistic groups
    groups = stat.reindex(occupations).tolist()
    start = 0
    for j in range(1, len(groups) + 1):
        if j == len(groups) or groups[j] != groups[start]:
            if (len(set(groups))) > 1 and groups[start] is not None:
                shade = (
                    "#fbeee6"
                    if groups[start] == "female"
                    else "#e6f0f8"
                    if groups[start] == "male"
                    else "#f3f3f3"
                )
                ax.axhspan(start - 0.5, j - 0.5, color=shade, zorder=-2)
                tall = j - start >= 4
                ax.text(
                    1.02,
                    (start + j - 1) / 2,
                    plain(
                        f"{groups[start]}-stereotyped"
                        if tall and groups[start] in ("male", "female")
                        else str(groups[start])
                    ),
                    rotation=90 if tall else 0,
                    va="center",
                    ha="left",
                    fontsize=8,
                    transform=ax.get_yaxis_transform(),
                )
            start = j
    ax.set_yticks(range(len(labels)), [plain(x) for x in labels], fontsize=8)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_xlim(-0.03, 1.03)
    ax.axvline(0.5, color=GREY, lw=0.8, ls=":", zorder=-1)
    ax.set_xlabel("share resolved to the occupation (95% Wilson CI)")
    ax.legend(
        frameon=False, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(genders)
    )
    ax.set_title("Per-occupation behaviour by pronoun gender", pad=22)
    fig.tight_layout()
    return fig


def occupation_differences(behaviour: pd.DataFrame) -> pd.DataFrame:
    """Per occupation: statistic and share(female pronoun) − share(male pronoun)."""
    wide = behaviour.pivot_table(index="occupation", columns="pronoun_gender", values="share")
    stat = behaviour.groupby("occupation")["statistic"].first()
    out = pd.DataFrame(
        {"statistic": stat.reindex(wide.index), "difference": wide["female"] - wide["male"]}
    )
    return out.dropna()


@styled
def difference_vs_statistic_figure(behaviour: pd.DataFrame) -> Figure:
    """Winogender-style: female − male share resolved to the occupation against a numeric
    occupation statistic, with the least-squares line and Pearson's r (and its p-value)."""
    from scipy.stats import pearsonr

    d = occupation_differences(behaviour)
    fig, ax = new_figure(figsize=(6.0, 4.0), dpi=DPI)
    ax.scatter(d["statistic"], d["difference"], s=22, color=PURPLE, alpha=0.8, zorder=3)
    ax.axhline(0, color="black", lw=0.8)
    note = f"n = {len(d)} occupations"
    if len(d) >= 3 and d["statistic"].nunique() > 1 and d["difference"].nunique() > 1:
        slope, intercept = np.polyfit(d["statistic"], d["difference"], 1)
        xs = np.linspace(d["statistic"].min(), d["statistic"].max(), 50)
        ax.plot(xs, slope * xs + intercept, color=GREY, lw=1.2, ls="--")
        r, p = pearsonr(d["statistic"], d["difference"])
        note = f"Pearson r = {r:.2f} (p = {p:.2g}), " + note
    ax.text(
        0.99,
        0.03,
        note,
        transform=ax.transAxes,
        ha="right",
        va="bottom",
        fontsize=8,
        bbox={"facecolor": "white", "edgecolor": "#cccccc", "alpha": 0.9},
    )
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel(plain(behaviour.attrs.get("statistic") or "occupation statistic"))
    ax.set_ylabel("share resolved to the occupation:\nfemale − male pronoun")
    ax.set_title("Per-occupation behaviour vs occupation statistic")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
