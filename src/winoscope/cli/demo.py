"""``winoscope demo``: the offline report folder on the bundled samples."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import WinoscopeError
from .common import fail, out_console


def demo(
    out: Annotated[Path, typer.Option(help="Report folder to write.")] = Path("winoscope-demo"),
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    baselines_only: Annotated[
        bool,
        typer.Option("--baselines-only", help="Skip the offline language model (Gemma 3 270M)."),
    ] = False,
) -> None:
    """Evaluate the reference baselines and the offline Gemma 3 270M (when installed) on the
    bundled samples and write a report folder (offline)."""
    from ..studies.demo import run_demo

    try:
        summary = run_demo(out, quiet=quiet, lm=not baselines_only)
    except WinoscopeError as exc:
        fail(exc)
    print(summary)
    out_console.print(
        f"wrote {out}/index.html (open it), README.md, comparison/ and one run directory per model",
        highlight=False,
    )
