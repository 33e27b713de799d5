"""booktabs tables for papers: declared labels, and each interval under its value.

A table of values with 95% intervals does not fit a column when each cell holds
``0.708 [0.542, 0.875]``; here each row of values is followed by a row of its intervals in
``\\scriptsize``, the table is ``\\small``, numbers have :data:`DIGITS` decimals (the CSV
files keep full precision), and long headers (the metrics' declared labels,
:attr:`~winoscope.scoring.metric.MetricSpec.display`) and model labels are set on two lines,
so that a table of three metrics fits one column of a two-column paper. Every ``.tex``
winoscope writes needs only ``\\usepackage{booktabs}``; the tests compile each one in a
two-column article with a real LaTeX engine and fail on an overfull box.
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


DIGITS = 2
#: a line break inside a cell; the braces keep a following ``[`` (a tag list) from being read
#: as the break's optional length
BREAK = "\\\\{}"


def stack(text: str, width: int = 11) -> str:
    """Escaped header text on lines of about ``width`` characters (split at spaces), centred,
    when it is longer than that."""
    import textwrap

    lines = textwrap.wrap(str(text), width, break_long_words=False, break_on_hyphens=False)
    if len(lines) < 2:
        return escape(text)
    body = BREAK.join(escape(line) for line in lines)
    return f"\\begin{{tabular}}[b]{{@{{}}c@{{}}}}{body}\\end{{tabular}}"


def wrap_left(text: str, width: int = 16) -> str:
    """A long row label on two left-aligned lines (split at the space nearest its middle)."""
    words = str(text).split(" ")
    if len(str(text)) <= width or len(words) < 2:
        return escape(text)
    cut = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(text) / 2))
    return stack_left(" ".join(words[:cut]), " ".join(words[cut:]))


def wrap_lines(text: str, width: int = 14) -> list[str]:
    """``text`` cut after ``:``, ``/``, ``-`` or a space into lines of at most ``width``
    characters where it can be (a model spec ``hf:org/model-name``)."""
    import re

    pieces = [p for p in re.split(r"(?<=[:/\- ])", str(text)) if p]
    lines: list[str] = []
    for piece in pieces:
        if lines and len(lines[-1]) + len(piece) <= width:
            lines[-1] += piece
        else:
            lines.append(piece)
    return [line.rstrip() for line in lines] or [""]


def row_label(text: str, width: int = 14) -> str:
    """A model label for a table row: the spec wrapped (:func:`wrap_lines`), tags below."""
    spec, _, tags = str(text).partition(" [")
    lines = wrap_lines(spec, width) + (["[" + tags] if tags else [])
    if len(lines) == 1:
        return escape(lines[0])
    body = BREAK.join(escape(line) for line in lines)
    return f"\\begin{{tabular}}[t]{{@{{}}l@{{}}}}{body}\\end{{tabular}}"


def stack_left(top: str, bottom: str = "") -> str:
    """A row label on two left-aligned lines (a model spec, then its tags)."""
    if not bottom:
        return escape(top)
    return (
        f"\\begin{{tabular}}[t]{{@{{}}l@{{}}}}{escape(top)}{BREAK}{escape(bottom)}\\end{{tabular}}"
    )


def number(x: Any, digits: int = DIGITS, signed: bool = False) -> str:
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


def interval(lo: Any, hi: Any, digits: int = DIGITS, signed: bool = False) -> str:
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
    wide: bool = False,
) -> str:
    """One ``table`` float: ``header`` (already escaped), rows of (cells, intervals or None).

    The interval row, when given, is set in ``\\scriptsize`` under its values. ``wide``: a
    ``table*`` spanning both columns of a two-column paper (a leaderboard)."""
    cols = align or "l" + "r" * (len(header) - 1)
    env = "table*" if wide else "table"
    out = [
        f"\\begin{{{env}}}[t]",
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
    out += [f"\\caption{{{caption}}}", f"\\label{{{label}}}", f"\\end{{{env}}}", ""]
    return "\n".join(out)


def tex_label(*parts: str) -> str:
    """A ``\\label`` key: letters, digits and dashes."""
    import re

    return "tab:" + "-".join(re.sub(r"[^A-Za-z0-9]+", "-", p).strip("-") for p in parts if p)
