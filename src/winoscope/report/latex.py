"""booktabs tables for papers: declared labels, and each interval under its value.

A table of values with 95% intervals does not fit a column when each cell holds
``0.708 [0.542, 0.875]``; here each row of values is followed by a row of its intervals in
``\\scriptsize``, the table is ``\\small``, and headers are the metrics' declared labels
(:attr:`~winoscope.scoring.metric.MetricSpec.display`). Every ``.tex`` winoscope writes needs
only ``\\usepackage{booktabs}``; the tests compile each one with a real LaTeX engine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "−": "--",
    "–": "--",
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def escape(text: Any) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def number(x: Any, digits: int = 3, signed: bool = False) -> str:
    """``$0.708$`` / ``$+0.125$``; ``--`` for a missing value; -0.000 never printed."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "--"
    if math.isnan(v):
        return "--"
    from ..scoring.decision import snap

    v = snap(v)
    return f"${v:+.{digits}f}$" if signed else f"${v:.{digits}f}$"


def interval(lo: Any, hi: Any, digits: int = 3, signed: bool = False) -> str:
    a, b = number(lo, digits, signed), number(hi, digits, signed)
    return "" if "--" in (a, b) else f"[{a.strip('$')}, {b.strip('$')}]".join("$$")


def table(
    header: Sequence[str],
    rows: Sequence[tuple[Sequence[str], Sequence[str] | None]],
    *,
    caption: str,
    label: str,
    align: str | None = None,
    note: str = "",
) -> str:
    """One ``table`` float: ``header`` (already escaped), rows of (cells, intervals or None).

    The interval row, when given, is set in ``\\scriptsize`` under its values."""
    cols = align or "l" + "r" * (len(header) - 1)
    out = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\setlength{\tabcolsep}{4pt}",
        f"\\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for cells, below in rows:
        out.append(" & ".join(cells) + r" \\")
        if below is not None and any(below):
            out.append(" & ".join(f"{{\\scriptsize {c}}}" if c else "" for c in below) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    if note:
        out.append(f"\\par\\smallskip{{\\footnotesize {note}}}")
    out += [f"\\caption{{{caption}}}", f"\\label{{{label}}}", r"\end{table}", ""]
    return "\n".join(out)


def tex_label(*parts: str) -> str:
    """A ``\\label`` key: letters, digits and dashes."""
    import re

    return "tab:" + "-".join(re.sub(r"[^A-Za-z0-9]+", "-", p).strip("-") for p in parts if p)
