"""Shared pieces of every report figure: colours, the local style, explicit figures, saving.

Figures are explicit :class:`matplotlib.figure.Figure` objects drawn inside a local
``rc_context`` (:data:`STYLE`): nothing here selects a backend or changes the user's
``rcParams``, so a notebook that imports winoscope keeps its own settings. They are written as
PNG (embedded in the HTML), PDF and SVG with its text kept as text (for papers), with fixed
metadata, so the same run gives the same files.
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
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import PlaceHolderLayoutEngine

from ..jsonio import atomic_path, write_bytes_atomic

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
    pdf_path: Path | None = None

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


#: characters of data text a figure draws at most (a 5-million-character cell would overflow
#: the rasteriser)
LABEL_LIMIT = 120


def plain(text: str) -> str:
    """Data text as a literal label: matplotlib would read ``$...$`` as mathematics; text
    longer than :data:`LABEL_LIMIT` is cut with an ellipsis."""
    text = str(text)
    if len(text) > LABEL_LIMIT:
        text = text[: LABEL_LIMIT - 1] + "…"
    return text.replace("$", r"\$")


def err(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Error-bar half-lengths; a missing interval draws no bar."""
    low = np.where(np.isnan(lo), 0.0, np.clip(values - lo, 0, None))
    high = np.where(np.isnan(hi), 0.0, np.clip(hi - values, 0, None))
    return np.vstack([low, high])


#: marker colours by what a row means: better or worse by the metric's declared direction,
#: a change with no better side (the shift of a signed gap), or an interval including 0
TONE_COLOURS = {1: BLUE, -1: VERMILLION, 2: PURPLE, 0: "#555555"}


def forest(
    ax: Axes,
    labels: Sequence[str],
    values: np.ndarray,
    emphasise: Sequence[bool],
    tone: Sequence[int] | None = None,
    bound: float | None = None,
) -> None:
    """Shared by the run gap plot, the comparison forest and the diff (rows top to bottom).

    ``tone`` per row: 1 better, -1 worse (blue, vermillion; by the metric's declared
    direction, :func:`winoscope.scoring.decision.goodness`), 2 a difference with no better side
    (purple), 0 an interval including 0 (hollow grey); by default every row whose interval
    excludes 0 is purple. The frame holds every whisker and 0; ``bound`` (the half-width)
    gives small multiples one shared axis. Rows of one look are drawn with one ``errorbar``
    call, so a comparison of many runs stays quick to draw."""
    from ..scoring.decision import side

    y = np.arange(len(labels))[::-1]
    values = np.asarray(values, dtype=float).reshape(-1, 3)
    v, lo, hi = values[:, 0], values[:, 1], values[:, 2]
    sides = np.array([side(a, b) for a, b in zip(lo, hi, strict=True)], dtype=int)
    tones = np.asarray(tone if tone is not None else np.where(sides != 0, 2, 0), dtype=int)
    tones = np.where(sides == 0, 0, tones)  # an interval including 0 is never coloured
    strong = np.asarray(emphasise, dtype=bool)
    for t, colour in TONE_COLOURS.items():
        for emph in (True, False):
            rows = (tones == t) & (strong == emph)
            if not rows.any():
                continue
            ax.errorbar(
                v[rows],
                y[rows],
                xerr=err(v[rows], lo[rows], hi[rows]),
                fmt="D" if emph else "o",
                ms=7 if emph else 5,
                capsize=3,
                color=colour,
                mfc=colour if t != 0 else "white",
                lw=1.8 if emph else 1.2,
            )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [plain(x) for x in labels])
    half = forest_bound(values) if bound is None else bound
    ax.set_xlim(-half, half)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.grid(axis="x", alpha=0.3)


def forest_bound(values: np.ndarray) -> float:
    """Half-width of a symmetric frame around 0 that holds every value and whisker."""
    arr = np.asarray(values, dtype=float)
    finite = arr[np.isfinite(arr)]
    top = float(np.abs(finite).max()) if finite.size else 0.0
    return max(0.1, top * 1.08)


def settle(figure: Figure) -> Figure:
    """Drop the placeholder layout engine ``tight_layout`` leaves behind.

    ``tight_layout`` places the axes once and then leaves a placeholder engine on the figure;
    with any engine set, every ``savefig`` lays the whole figure out again in a draw of its own
    before drawing it, which doubles the text layout of each format written. The axes keep the
    positions ``tight_layout`` gave them.
    """
    if isinstance(figure.get_layout_engine(), PlaceHolderLayoutEngine):
        figure.set_layout_engine(None)
    return figure


def save_figure(fig: ReportFigure, folder: Path, *, paper: bool = True) -> SavedFigure:
    """Write ``folder/KEY.png``, ``KEY.svg`` and ``KEY.pdf`` (for papers), the SVG with its
    text kept as text (editable, searchable) instead of outlines; ``paper=False`` writes the
    PNG and an outlined SVG only."""
    folder.mkdir(parents=True, exist_ok=True)
    png_path, svg_path = folder / f"{fig.key}.png", folder / f"{fig.key}.svg"
    pdf_path = folder / f"{fig.key}.pdf" if paper else None
    buf = io.BytesIO()
    style = {**STYLE, "svg.fonttype": "none"} if paper else STYLE
    settle(fig.figure)
    with matplotlib.rc_context(style):
        fig.figure.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
        png = buf.getvalue()
        write_bytes_atomic(png_path, png)
        with atomic_path(svg_path) as tmp:
            fig.figure.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
        if pdf_path is not None:
            with atomic_path(pdf_path) as tmp:
                fig.figure.savefig(
                    tmp, format="pdf", metadata={"CreationDate": None, "Producer": None}
                )
    return SavedFigure(fig.key, fig.title, fig.caption, png, png_path, svg_path, pdf_path)
