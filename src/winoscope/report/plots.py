"""Matplotlib figures for run and comparison reports, chosen by which metrics a task reports.

The choice is generic over metric names (tokens split on ``_``):

- an *accuracy by condition* plot for accuracy metrics naming ``pro``/``anti``
  (``pro_accuracy``, ``anti_accuracy``);
- an *accuracy by pronoun gender* plot for accuracy metrics naming ``male``/``female``/``plural``
  (or ``neutral``, ``he``/``she``/``they``, ``han``/``hon``/``hen``);
- a *signed gap* plot for every metric whose name holds ``gap`` and not ``absolute``;
- a *per-occupation* plot when the predictions carry occupations (see :mod:`.occupations`);
- an overview of every macro metric when none of the above applies.

Every plot shows 95% intervals as error bars. Figures are explicit
:class:`matplotlib.figure.Figure` objects drawn inside a local ``rc_context`` (:data:`STYLE`):
nothing here selects a backend or changes the user's ``rcParams``, so a notebook that imports
winoscope keeps its own settings. They are written as PNG (embedded in the HTML) and SVG (for
papers) with fixed metadata, so the same run gives the same files.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .occupations import occupation_behaviour

# Okabe-Ito: distinguishable with the common colour-vision deficiencies
BLUE, ORANGE, VERMILLION, GREEN, SKY, PURPLE, GREY = (
    "#0072B2",
    "#E69F00",
    "#D55E00",
    "#009E73",
    "#56B4E9",
    "#CC79A7",
    "#7F7F7F",
)
PALETTE = (BLUE, VERMILLION, GREEN, ORANGE, PURPLE, SKY, GREY)
GENDER_COLOURS = {"male": BLUE, "female": VERMILLION, "plural": GREEN, "neutral": GREEN}
GENDER_MARKERS = {"male": "s", "female": "o", "plural": "^", "neutral": "^"}

CONDITION_TOKENS = ("pro", "anti")
GENDER_TOKENS = (
    "male",
    "female",
    "plural",
    "neutral",
    "nonbinary",
    "he",
    "she",
    "they",
    "han",
    "hon",
    "hen",
)
DPI = 144

STYLE: dict[Any, Any] = {  # rc_context wants its literal key type
    "svg.hashsalt": "winoscope",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
}

P = ParamSpec("P")
R = TypeVar("R")


def styled(fn: Callable[P, R]) -> Callable[P, R]:
    """Run a drawing function inside ``rc_context(STYLE)``: the style applies to what it draws
    and the caller's rcParams are untouched afterwards."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with matplotlib.rc_context(STYLE):
            return fn(*args, **kwargs)

    return wrapper


def new_figure(
    nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float], dpi: int = DPI, **kw: Any
) -> tuple[Figure, Any]:
    """A figure unknown to pyplot (no backend, no global figure list) and its axes, as
    ``pyplot.subplots`` would return them."""
    fig = Figure(figsize=figsize, dpi=dpi)
    return fig, fig.subplots(nrows, ncols, **kw)


@dataclass
class ReportFigure:
    """A figure ready to save: ``key`` is the file stem under ``plots/``."""

    key: str
    title: str
    caption: str
    figure: Figure


@dataclass(frozen=True)
class SavedFigure:
    key: str
    title: str
    caption: str
    png: bytes
    png_path: Path
    svg_path: Path

    @property
    def pixels(self) -> tuple[int, int]:
        """(width, height) of the PNG, read from its IHDR chunk."""
        return (
            int.from_bytes(self.png[16:20], "big"),
            int.from_bytes(self.png[20:24], "big"),
        )

    @property
    def css_width(self) -> int:
        """Display width in CSS pixels: the figure's size in inches at 96 px per inch."""
        return round(self.pixels[0] * 96 / DPI)


def plain(text: str) -> str:
    """Data text as a literal label: matplotlib would read ``$...$`` as mathematics."""
    return str(text).replace("$", r"\$")


def tokens(metric: str) -> list[str]:
    return metric.lower().split("_")


MEASURE_TOKENS = ("accuracy", "f1")
DIFFERENCE_TOKENS = ("gap", "minus", "difference", "diff")


def metrics_naming(metrics: Sequence[str], group: Sequence[str]) -> list[str]:
    """Accuracy / F1 metrics naming one of ``group``'s tokens, in the group's order.

    >>> metrics_naming(["overall_accuracy", "anti_accuracy", "pro_accuracy"], ("pro", "anti"))
    ['pro_accuracy', 'anti_accuracy']
    >>> metrics_naming(["conll_f1_pro", "muc_f1_pro", "conll_f1_anti", "muc_f1_anti"], ("pro", "anti"))
    ['conll_f1_pro', 'conll_f1_anti', 'muc_f1_pro', 'muc_f1_anti']
    """
    found: list[tuple[int, int, str]] = []
    bases: dict[str, int] = {}
    for m in dict.fromkeys(metrics):
        toks = tokens(m)
        if not set(MEASURE_TOKENS) & set(toks) or {"control", *DIFFERENCE_TOKENS} & set(toks):
            continue
        hits = [t for t in toks if t in group]
        if len(hits) == 1:
            base = bases.setdefault("_".join(t for t in toks if t != hits[0]), len(bases))
            found.append((base, group.index(hits[0]), m))
    return [m for _, _, m in sorted(found)]


def signed_gap_metrics(metrics: Sequence[str]) -> list[str]:
    """``signed_bias_gap``, ``gender_gap``, ``conll_f1_pro_minus_anti`` ...: differences that
    keep their sign (names holding ``gap`` or ``minus``, but not ``absolute``)."""
    return [
        m
        for m in dict.fromkeys(metrics)
        if {"gap", "minus"} & set(tokens(m)) and not ({"absolute", "abs"} & set(tokens(m)))
    ]


GAP_MEANINGS = {
    "signed_bias_gap": "pro − anti accuracy",
    "gender_gap": "female − male accuracy",
}


def gap_meaning(metric: str) -> str:
    """What a signed gap subtracts, for axis labels.

    >>> gap_meaning("conll_f1_pro_minus_anti")
    'conll f1 pro − anti'
    """
    if metric in GAP_MEANINGS:
        return GAP_MEANINGS[metric]
    if "minus" in tokens(metric):
        return metric.replace("_minus_", " − ").replace("_", " ")
    return metric.replace("_", " ")


def group_points(metrics: pd.DataFrame, group: Sequence[str]) -> pd.DataFrame:
    """Points for a by-group plot: columns ``x, series, value, ci_low, ci_high, macro``.

    A group member is found in the metric name (``pro_accuracy``, ``conll_f1_anti``,
    ``male_accuracy``) or, for accuracy metrics, as the last part of the stratum's ``type``
    (WinoPron-UK reports ``accuracy`` with ``type == "nominative/male"``). The x position is the
    stratum, prefixed by the measure when several measures are present (then only macro rows,
    or the only stratum, are used to keep the plot readable).
    """
    rows = []
    for r in metrics.itertuples(index=False):
        toks = tokens(str(r.metric))
        if {"control", "absolute", *DIFFERENCE_TOKENS} & set(toks):
            continue
        if not set(MEASURE_TOKENS) & set(toks):
            continue
        hits = [t for t in toks if t in group]
        split, typ = str(r.split), str(r.type)
        if len(hits) == 1:
            series = hits[0]
            base = "_".join(t for t in toks if t != series)
            where = stratum_label(split, typ)
        else:
            parts = typ.split("/")
            if hits or parts[-1] not in group or "accuracy" not in toks:
                continue
            series = parts[-1]
            base = str(r.metric)
            prefix = "/".join(parts[:-1])
            where = split if prefix in ("", "all") else f"{split}/{prefix}"
        rows.append(
            {
                "base": base,
                "where": where,
                "series": series,
                "value": float(r.value),
                "ci_low": float(r.ci_low),
                "ci_high": float(r.ci_high),
                "macro": split == "macro",
            }
        )
    points = pd.DataFrame(
        rows, columns=["base", "where", "series", "value", "ci_low", "ci_high", "macro"]
    )
    points = points[points["value"].notna()]
    if points["base"].nunique() > 1:
        keep = points["macro"] | (points.groupby("base")["where"].transform("nunique") == 1)
        points = points[keep]
        points = points.assign(
            x=[
                b.replace("_", " ") + ("" if m else f" · {w}")
                for b, w, m in zip(points["base"], points["where"], points["macro"], strict=True)
            ]
        )
    else:
        points = points.assign(x=points["where"])
    order = {g: i for i, g in enumerate(group)}
    points = points.assign(_o=points["series"].map(order)).sort_values(
        ["macro", "_o"], kind="stable"
    )
    return points.drop(columns=["_o"]).reset_index(drop=True)


def strata(metrics: pd.DataFrame) -> list[tuple[str, str]]:
    """(split, type) strata in table order, macro last."""
    keys = list(
        dict.fromkeys(zip(metrics["split"].astype(str), metrics["type"].astype(str), strict=True))
    )
    return [k for k in keys if k[0] != "macro"] + [k for k in keys if k[0] == "macro"]


def stratum_label(split: str, typ: str) -> str:
    if split == "macro":
        return "macro avg"
    if typ in ("", "all", "nan", split):
        return split
    return f"{split}/{typ}"


def _err(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Error-bar half-lengths; a missing interval draws no bar."""
    low = np.where(np.isnan(lo), 0.0, np.clip(values - lo, 0, None))
    high = np.where(np.isnan(hi), 0.0, np.clip(hi - values, 0, None))
    return np.vstack([low, high])


def _lookup(metrics: pd.DataFrame) -> dict[tuple[str, str, str], tuple[float, float, float]]:
    return {
        (str(r.metric), str(r.split), str(r.type)): (
            float(r.value),
            float(r.ci_low),
            float(r.ci_high),
        )
        for r in metrics.itertuples(index=False)
    }


@styled
def group_figure(points: pd.DataFrame, title: str) -> Figure:
    """Dots with 95% intervals: one colour per group member, strata (or measures) along x.

    Macro averages come last on a shaded background; the dotted line marks 0.5.
    """
    xs = list(dict.fromkeys(points["x"]))
    series = list(dict.fromkeys(points["series"]))
    fig, ax = new_figure(
        figsize=(min(11.0, max(4.8, 0.35 * len(xs) * len(series) + 2.2)), 3.4), dpi=DPI
    )
    width = 0.72 / max(len(series), 1)
    pos = {x: i for i, x in enumerate(xs)}
    for i, name in enumerate(series):
        sub = points[points["series"] == name]
        offset = (i - (len(series) - 1) / 2) * width
        ax.errorbar(
            np.array([pos[x] for x in sub["x"]]) + offset,
            sub["value"],
            yerr=_err(sub["value"].to_numpy(), sub["ci_low"].to_numpy(), sub["ci_high"].to_numpy()),
            fmt=GENDER_MARKERS.get(name, "o"),
            ms=6,
            capsize=3,
            color=GENDER_COLOURS.get(name, PALETTE[i % len(PALETTE)]),
            label=plain(name),
        )
    macro = sorted(pos[x] for x in points.loc[points["macro"], "x"])
    if macro and len(macro) < len(xs):  # shade the macro block only next to strata
        ax.axvspan(macro[0] - 0.5, macro[-1] + 0.5, color="#f0f0f0", zorder=-1)
    ax.set_xticks(
        range(len(xs)),
        [plain(x) for x in xs],
        rotation=25 if len(xs) > 3 else 0,
        ha="right" if len(xs) > 3 else "center",
    )
    ax.set_xlim(-0.6, len(xs) - 0.4)
    ax.set_ylim(-0.03, 1.03)
    measures = {str(b).replace("_", " ") for b in points["base"]}
    ax.set_ylabel((measures.pop() if len(measures) == 1 else "score") + " (95% CI)")
    ax.axhline(0.5, color=GREY, lw=0.8, ls=":", zorder=0)
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


@styled
def gap_figure(metrics: pd.DataFrame, names: Sequence[str]) -> Figure:
    """Horizontal forest of signed gaps per stratum; filled dots: the interval excludes 0."""
    look = _lookup(metrics)
    keys = strata(metrics)
    rows = [
        (n, s, t)
        for n in names
        for s, t in keys
        if (n, s, t) in look and not np.isnan(look[(n, s, t)][0])
    ]
    fig, ax = new_figure(figsize=(6.0, 0.8 + 0.32 * max(len(rows), 1)), dpi=DPI)
    _forest(
        ax,
        labels=[
            (f"{n.replace('_', ' ')} · " if len(names) > 1 else "") + stratum_label(s, t)
            for n, s, t in rows
        ],
        values=np.array([look[r] for r in rows], dtype=float).reshape(-1, 3),
        emphasise=[s == "macro" for _, s, _ in rows],
    )
    ax.set_xlabel(" · ".join(gap_meaning(n) for n in names) + " (95% CI)")
    ax.set_title("Signed gap by stratum")
    fig.tight_layout()
    return fig


def _forest(
    ax: Axes, labels: Sequence[str], values: np.ndarray, emphasise: Sequence[bool]
) -> None:
    """Shared by the run gap plot and the comparison forest plot (rows top to bottom).

    Rows are drawn with one ``errorbar`` call per look (colour x emphasis), not one per row, so
    a comparison of many runs stays quick to draw."""
    y = np.arange(len(labels))[::-1]
    values = np.asarray(values, dtype=float).reshape(-1, 3)
    v, lo, hi = values[:, 0], values[:, 1], values[:, 2]
    excludes = ~np.isnan(lo) & ((lo > 0) | (hi < 0))
    strong = np.asarray(emphasise, dtype=bool)
    side = np.where(~excludes, 0, np.where(v > 0, 1, -1))
    for s in (0, 1, -1):
        colour = {0: "#555555", 1: VERMILLION, -1: BLUE}[s]
        for emph in (True, False):
            rows = (side == s) & (strong == emph)
            if not rows.any():
                continue
            ax.errorbar(
                v[rows],
                y[rows],
                xerr=_err(v[rows], lo[rows], hi[rows]),
                fmt="D" if emph else "o",
                ms=7 if emph else 5,
                capsize=3,
                color=colour,
                mfc=colour if s != 0 else "white",
                lw=1.8 if emph else 1.2,
            )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [plain(x) for x in labels])
    finite = values[np.isfinite(values)] if values.size else np.array([0.0])
    bound = max(0.1, float(np.abs(finite).max()) if finite.size else 0.1) * 1.1
    ax.set_xlim(-min(bound, 1.05), min(bound, 1.05))
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.grid(axis="x", alpha=0.3)


@styled
def occupation_figure(behaviour: pd.DataFrame) -> Figure:
    """Share resolved to each occupation, one marker per pronoun gender, grouped by statistic.

    Numeric statistics (e.g. % women) give a scatter against the statistic; labels (male /
    female stereotype) give a dot plot with occupations grouped by label.
    """
    genders = sorted(
        dict.fromkeys(behaviour["pronoun_gender"]),
        key=lambda g: GENDER_TOKENS.index(g) if g in GENDER_TOKENS else len(GENDER_TOKENS),
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
                yerr=_err(
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
            xerr=_err(sub["share"].to_numpy(), sub["ci_low"].to_numpy(), sub["ci_high"].to_numpy()),
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


@styled
def overview_figure(metrics: pd.DataFrame) -> Figure:
    macro = metrics[metrics["split"] == "macro"]
    fig, ax = new_figure(figsize=(6.0, 0.9 + 0.3 * max(len(macro), 1)), dpi=DPI)
    _forest(
        ax,
        labels=[m.replace("_", " ") for m in macro["metric"]],
        values=macro[["value", "ci_low", "ci_high"]].to_numpy(dtype=float),
        emphasise=[True] * len(macro),
    )
    ax.set_xlim(min(-0.05, float(macro["ci_low"].min(skipna=True) or 0) - 0.05), 1.05)
    ax.set_title("Macro metrics (95% CI)")
    fig.tight_layout()
    return fig


def run_figures(metrics: pd.DataFrame, predictions: pd.DataFrame | None) -> list[ReportFigure]:
    """The figures a run report shows, chosen by which metrics and columns exist."""
    names = list(metrics["metric"].astype(str)) if not metrics.empty else []
    out: list[ReportFigure] = []
    condition = group_points(metrics, CONDITION_TOKENS)
    if not condition.empty:
        out.append(
            ReportFigure(
                "accuracy_by_condition",
                "Pro- vs anti-stereotypical scores",
                "Scores on pro- and anti-stereotypical items per stratum and macro-averaged "
                "(shaded), with 95% bootstrap intervals over source items. The dotted line marks 0.5.",
                group_figure(condition, "Pro- vs anti-stereotypical"),
            )
        )
    gendered = group_points(metrics, GENDER_TOKENS)
    if not gendered.empty:
        out.append(
            ReportFigure(
                "accuracy_by_gender",
                "Scores by pronoun gender",
                "Scores per pronoun gender, per stratum and macro-averaged (shaded), with 95% "
                "bootstrap intervals.",
                group_figure(gendered, "By pronoun gender"),
            )
        )
    gaps = signed_gap_metrics(names)
    if gaps:
        out.append(
            ReportFigure(
                "signed_gap",
                "Signed gap with 95% interval",
                "Signed gap per stratum; the macro average is the diamond. Coloured, filled "
                "markers: the 95% interval excludes zero (red above, blue below); hollow grey: "
                "it includes zero.",
                gap_figure(metrics, gaps),
            )
        )
    behaviour = occupation_behaviour(predictions) if predictions is not None else None
    if behaviour is not None and not behaviour.empty:
        out.append(
            ReportFigure(
                "occupations",
                "Per-occupation behaviour",
                "For each occupation, the share of rows mentioning it where the pronoun was "
                "resolved to it, split by pronoun gender, with 95% Wilson intervals; occupations "
                "are grouped by the shipped occupation statistic.",
                occupation_figure(behaviour),
            )
        )
    if not out and not metrics.empty and bool((metrics["split"] == "macro").any()):
        out.append(
            ReportFigure(
                "macro_metrics",
                "Macro metrics",
                "Every macro-averaged metric with its 95% interval.",
                overview_figure(metrics),
            )
        )
    return out


def save_figure(fig: ReportFigure, folder: Path) -> SavedFigure:
    """Write ``folder/KEY.png`` and ``folder/KEY.svg``."""
    folder.mkdir(parents=True, exist_ok=True)
    png_path, svg_path = folder / f"{fig.key}.png", folder / f"{fig.key}.svg"
    buf = io.BytesIO()
    with matplotlib.rc_context(STYLE):
        fig.figure.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
        png = buf.getvalue()
        png_path.write_bytes(png)
        fig.figure.savefig(svg_path, format="svg", metadata={"Date": None, "Creator": None})
    return SavedFigure(fig.key, fig.title, fig.caption, png, png_path, svg_path)
