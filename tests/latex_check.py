"""Compile a winoscope ``.tex`` table with a real LaTeX engine (pdflatex and booktabs) in a
two-column article: a table that does not fit one column is an overfull box, and fails.

Skipped where pdflatex is missing, except under CI (``CI=true``), where ``.ci/run`` installs
it and a missing engine fails the test: the tables must compile where papers are written."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

PREAMBLE = r"""\documentclass[twocolumn]{article}
\usepackage[T1]{fontenc}
\usepackage{booktabs}
\begin{document}
"""


def compile_tex(tex: Path, work: Path) -> Path:
    """Wrap ``tex`` in a minimal article, compile it, and return the PDF."""
    engine = shutil.which("pdflatex")
    if engine is None:
        if os.environ.get("CI") == "true":
            pytest.fail("pdflatex is missing: .ci/run installs texlive-latex-base")
        pytest.skip("pdflatex is not installed (Debian: texlive-latex-base, -recommended)")
    work.mkdir(parents=True, exist_ok=True)
    doc = work / f"{tex.stem}-doc.tex"
    doc.write_text(
        PREAMBLE + tex.read_text(encoding="utf-8") + "\n\\end{document}\n", encoding="utf-8"
    )
    done = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = (work / f"{doc.stem}.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-3000:]
    assert "Overfull \\hbox" not in log, log[log.index("Overfull") :][:1500]  # fits its column
    pdf = work / f"{doc.stem}.pdf"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    return pdf
