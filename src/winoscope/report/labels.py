"""Point labels that do not overlap: a small greedy placement, measured in display pixels.

Each label is tried at candidate offsets around its point (right, left, above, below, the
diagonals, then the same further out); the first position whose box overlaps no label placed
so far, no data point and no other text and stays inside the axes wins. A label that fits
nowhere is left out and counted (:func:`place_labels` returns how many), so the figure can
say so instead of printing labels over each other. A label moved beyond its first ring gets a
thin leader line to its point.

Deterministic (no random restarts), so the same data gives the same figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

HAlign = Literal["left", "center", "right"]
VAlign = Literal["bottom", "center", "top"]
# offsets in points: near ring first, then further out
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))
_RINGS = (4.0, 10.0, 18.0, 28.0)


def _box(text: Text, renderer: object, pad: float) -> np.ndarray:
    bb = text.get_window_extent(renderer=renderer)  # type: ignore[arg-type]
    return np.array([bb.x0 - pad, bb.y0 - pad, bb.x1 + pad, bb.y1 + pad])


def _overlap(a: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Overlap area of box ``a`` with each row of ``boxes``."""
    if boxes.size == 0:
        return np.zeros(0)
    w = np.minimum(a[2], boxes[:, 2]) - np.maximum(a[0], boxes[:, 0])
    h = np.minimum(a[3], boxes[:, 3]) - np.maximum(a[1], boxes[:, 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def place_labels(
    ax: Axes,
    xs: Sequence[float],
    ys: Sequence[float],
    labels: Sequence[str],
    *,
    fontsize: float = 6.5,
    point_radius: float = 3.0,
) -> int:
    """Annotate each point of ``ax`` with its label where it fits; return how many labels were
    left out because no candidate place was free.

    A place is free when the label's box overlaps no label placed before, no other data point,
    no text already on the axes (a legend or a note box) and lies inside the axes.
    """
    fig = cast(Figure, ax.figure)
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)  # a renderer to measure text with; no pyplot, no global state
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    pts = ax.transData.transform(
        np.column_stack([np.asarray(xs, float), np.asarray(ys, float)])
    ).reshape(-1, 2)
    r = point_radius * fig.dpi / 72
    point_boxes = np.column_stack([pts[:, 0] - r, pts[:, 1] - r, pts[:, 0] + r, pts[:, 1] + r])
    obstacles = [_box(t, renderer, 1.0) for t in ax.texts if t.get_text() and t.get_visible()]
    legend = ax.get_legend()
    if legend is not None:
        bb = legend.get_window_extent(renderer=renderer)
        obstacles.append(np.array([bb.x0, bb.y0, bb.x1, bb.y1]))
    axes_box = ax.get_window_extent(renderer=renderer)
    placed: list[np.ndarray] = list(obstacles)
    omitted = 0
    scale = fig.dpi / 72
    # isolated points first: they keep their label next to them; crowded ones take what is left
    density = np.array([int((np.hypot(*(pts - p).T) < 30 * scale).sum()) for p in pts])
    for i in np.argsort(density, kind="stable"):
        text = ax.annotate(
            str(labels[i]),
            (float(xs[i]), float(ys[i])),
            xytext=(0, 0),
            textcoords="offset points",
            fontsize=fontsize,
            color="#333333",
            annotation_clip=False,
        )
        others = np.delete(point_boxes, i, axis=0)
        chosen: tuple[float, float, HAlign, VAlign] | None = None
        for dist in _RINGS:
            for dx, dy in _DIRECTIONS:
                ha: HAlign = "left" if dx > 0 else "right" if dx < 0 else "center"
                va: VAlign = "bottom" if dy > 0 else "top" if dy < 0 else "center"
                text.set_horizontalalignment(ha)
                text.set_verticalalignment(va)
                text.set_position((dx * dist, dy * dist))
                box = _box(text, renderer, 2.0)
                inside = (
                    box[0] >= axes_box.x0
                    and box[2] <= axes_box.x1
                    and box[1] >= axes_box.y0
                    and box[3] <= axes_box.y1
                )
                if (
                    inside
                    and not (_overlap(box, np.array(placed).reshape(-1, 4)) > 0).any()
                    and not (_overlap(box, others) > 0).any()
                ):
                    chosen = (dx * dist, dy * dist, ha, va)
                    break
            if chosen is not None:
                break
        if chosen is None:
            text.remove()
            omitted += 1
            continue
        text.set_horizontalalignment(chosen[2])
        text.set_verticalalignment(chosen[3])
        text.set_position((chosen[0], chosen[1]))
        if max(abs(chosen[0]), abs(chosen[1])) > _RINGS[0]:
            ax.annotate(
                "",
                (float(xs[i]), float(ys[i])),
                xytext=(chosen[0], chosen[1]),
                textcoords="offset points",
                arrowprops={
                    "arrowstyle": "-",
                    "color": "#aaaaaa",
                    "lw": 0.5,
                    "shrinkA": 0,
                    "shrinkB": 2,
                },
                annotation_clip=False,
            )
        placed.append(_box(text, renderer, 1.0))
    return omitted
