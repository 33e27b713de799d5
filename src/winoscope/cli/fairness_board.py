"""``winoscope fairness-board``: the Ukrainian fairness leaderboard's file from a model's runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import WinoscopeError
from .common import fail, out_console


def fairness_board(
    runs: Annotated[
        list[Path], typer.Argument(help="Run directories of one model, one per benchmark.")
    ],
    out: Annotated[Path, typer.Option(help="The JSON file to write (eval-results/fairness/).")],
    model_name: Annotated[
        str | None, typer.Option(help="model.name (default: the runs' model).")
    ] = None,
    revision: Annotated[
        str | None, typer.Option(help="model.revision (default: the runs' model commit).")
    ] = None,
    details: Annotated[
        Path | None,
        typer.Option(help="Folder for the per-item details (default: beside --out, .details)."),
    ] = None,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Write runs of the bundled sample or under --limit too (the file says so).",
        ),
    ] = False,
) -> None:
    """Write the leaderboard's result file (and per-item details) from runs by its methods."""
    from ..jsonio import atomic_path, write_json
    from ..report.fairness_board import board_file, check_run
    from ..report.fairness_board import details as item_details
    from ..results.rundir import load_predictions, load_run_dir

    try:
        checked = [check_run(load_run_dir(r), allow_partial=allow_partial) for r in runs]
        payload = board_file(checked, model_name=model_name, revision=revision)
        folder = details or out.with_suffix(".details")
        frames = [(c, item_details(c, load_predictions(c.run))) for c in checked]
        out.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        for c, frame in frames:
            name = c.benchmark.benchmark.lower().replace(" ", "-")
            with atomic_path(folder / f"{name}.parquet") as tmp:
                frame.to_parquet(tmp, index=False)
        write_json(out, payload)  # through a temporary file: a reader never sees half of it
    except (WinoscopeError, OSError) as exc:
        fail(exc)
    note = payload["winoscope"].get("not_for_publication")
    out_console.print(
        f"wrote {out} ({len(payload['benchmarks'])} benchmark(s)) and per-item details in {folder}"
        + (" [yellow]not for publication:[/] " + "; ".join(note) if note else ""),
        highlight=False,
    )
