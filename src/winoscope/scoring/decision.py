"""When an interval "excludes 0", what is better or worse, and which rows form the Holm family.

**Tolerance.** A bootstrap bound can land a rounding error away from 0 (a lower bound of 1.1e-16
for two runs that differ by nothing in half the resamples). Every decision here treats a bound
within :data:`TOLERANCE` (1e-9) of 0 as 0, so it *includes* 0, and :func:`snap` prints such a
number as 0: the printed interval, the verdict and the colour always say the same thing.

**Better or worse.** Whether a change is good follows the metric's declared direction
(:mod:`.metric`), never the sign alone: a rise in accuracy is better, a rise in a gap's size is
worse; the shift of a signed gap (``B - A`` of a gap whose sign matters) has no better side by
itself, and is drawn as neutral.

**The Holm family** of a comparison is the task's declared headline hypotheses: the summary
stratum's headline metrics (:func:`.metric.headline_metrics`), one row per distinct quantity:

- a signed gap is tested by the change of its size: its declared absolute twin (a ``lower``
  gap of the same components, e.g. WinoBias's ``absolute_bias_gap``) when the task reports one,
  else ``|B| - |A|``; its signed shift ``B - A`` is exploratory;
- a metric that is the mean of members of the family (``overall_accuracy``: the mean of pro
  and anti accuracy) is left out, and so is any diagnostic (option-order consistency, the
  invalid rate) and any metric declared constant under the run's protocol;

every other row keeps its unadjusted p and is exploratory.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

TOLERANCE = 1e-9
ALPHA = 0.05


def snap(x: float) -> float:
    """0.0 for a number within the tolerance of 0 (so it never prints as -0.000 or decides)."""
    return 0.0 if not math.isnan(x) and abs(x) <= TOLERANCE else x


def side(lo: float, hi: float) -> int:
    """+1 when the interval lies above 0, -1 below, 0 when it includes 0 (or is undefined)."""
    if math.isnan(lo) or math.isnan(hi):
        return 0
    if lo > TOLERANCE:
        return 1
    if hi < -TOLERANCE:
        return -1
    return 0


def goodness(direction: str, change_side: int) -> int:
    """+1 better, -1 worse, 0 neither, for a change on ``change_side`` of a metric declared
    ``direction`` (``higher``, ``lower``, ``one`` for values at most 1, ``zero``, ``none``)."""
    if change_side == 0:
        return 0
    if direction in ("higher", "one"):
        return change_side
    if direction == "lower":
        return -change_side
    return 0


def absolute_twin(gap: str, names: Iterable[str]) -> str | None:
    """The declared size of a signed gap among ``names``: a ``lower`` gap of its components."""
    from .metric import get_metric

    spec = get_metric(gap)
    for name in names:
        other = get_metric(name)
        if (
            other.kind == "gap"
            and other.direction == "lower"
            and other.components == spec.components
            and name != gap
        ):
            return name
    return None


def holm_family(names: Sequence[str], protocol: str = "") -> list[tuple[str, str]]:
    """(metric, measure) pairs of the headline hypotheses among the summary ``names``."""
    from .metric import get_metric, headline_metrics

    heads = headline_metrics(list(names), limit=4)
    family: list[tuple[str, str]] = []
    for m in heads:
        spec = get_metric(m)
        if spec.role == "diagnostic" or protocol in spec.constant_under:
            continue
        if spec.signed_gap:
            twin = absolute_twin(m, names)
            family.append((twin, "B - A") if twin else (m, "|B| - |A|"))
            continue
        if spec.kind == "gap":
            continue  # an absolute gap stands in the family through its signed gap, or not at all
        if spec.components and all(c in heads for c in spec.components):
            continue  # the mean of two members says nothing they do not
        family.append((m, "B - A"))
    return list(dict.fromkeys(family))


def describe_family(family: Sequence[tuple[str, str]]) -> str:
    """``pro accuracy, anti accuracy, size of pro − anti accuracy`` for the page."""
    from .metric import get_metric

    parts = []
    for metric, measure in family:
        label = get_metric(metric).display
        parts.append(f"size of {label}" if measure == "|B| - |A|" else label)
    return ", ".join(parts)


def fmt_signed(x: Any, digits: int = 3) -> str:
    v = float(x)
    return "–" if math.isnan(v) else f"{snap(v):+.{digits}f}"


def fmt_interval(lo: Any, hi: Any, digits: int = 3) -> str:
    a, b = float(lo), float(hi)
    if math.isnan(a) or math.isnan(b):
        return "[–]"
    return f"[{snap(a):+.{digits}f}, {snap(b):+.{digits}f}]"
