"""Occupation commands: ``correlate`` (a run against real-world shares) and ``associate`` (a
corpus's gender association of occupations)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..errors import WinoscopeError
from .common import err_console, fail, out_console

# the occupation-to-category table and how to combine categories: both commands take them
MappingOption = Annotated[
    Path | None,
    typer.Option(help="category,occupation table: official categories -> occupations."),
]
CombineOption = Annotated[
    str | None,
    typer.Option(
        help="A percentage-only table with several categories per occupation: 'mean' averages "
        "their shares, 'weighted' weights them by a 'total' column (people per category)."
    ),
]


def correlate(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `winoscope run`.")],
    stats: Annotated[
        Path,
        typer.Option(
            "--stats",
            help="Occupation statistics: Winogender's occupations-stats.tsv, a SweWinogender "
            "auxiliary TSV, or a table with occupation and women/men or pct_female.",
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="Folder for the tables and the plot (default: RUN_DIR).")
    ] = None,
    mapping: MappingOption = None,
    combine: CombineOption = None,
    seed: Annotated[int, typer.Option(min=0, help="Bootstrap seed.")] = 0,
    bootstrap: Annotated[
        int, typer.Option(min=0, help="Bootstrap replicates (over occupations).")
    ] = 2000,
) -> None:
    """Correlate per-occupation resolution shares with occupation statistics (Rudinger et al.)."""
    from ..occupation_pipeline.correlate import correlate_run

    try:
        res = correlate_run(
            run_dir,
            stats,
            out=out,
            n_boot=bootstrap,
            seed=seed,
            mapping=mapping,
            percent_combine=combine,
        )
    except WinoscopeError as exc:
        fail(exc)
    table = Table("measure", "statistic", "method", "value", "95% CI", "p", "n", title=run_dir.name)
    for r in res.correlations.itertuples(index=False):
        ci = "–" if r.ci_low != r.ci_low else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        value = "–" if r.value != r.value else f"{r.value:.3f}"
        p = "–" if r.p_value != r.p_value else f"{r.p_value:.3g}"
        table.add_row(r.measure, r.statistic, r.method, value, ci, p, str(r.n))
    out_console.print(table)
    for key, names in res.unmatched.items():
        if names:
            err_console.print(f"[yellow]{key}:[/] {', '.join(names)}", highlight=False)
    out_console.print("wrote " + ", ".join(str(p) for p in res.files), highlight=False)


def associate(
    corpus: Annotated[
        list[Path],
        typer.Argument(
            help="Corpus files: plain text (one sentence per line), .gz, .zst, or .conllu.",
            show_default=False,
        ),
    ],
    lang: Annotated[str, typer.Option("--lang", help="Lexicon language: sv or uk.")],
    out: Annotated[Path, typer.Option(help="Folder for the tables and the figure.")],
    stats: Annotated[
        Path | None,
        typer.Option(help="Real-world shares of women per occupation (any format of `correlate`)."),
    ] = None,
    stat_column: Annotated[
        str | None, typer.Option(help="Which statistic of --stats to plot against.")
    ] = None,
    mapping: MappingOption = None,
    combine: CombineOption = None,
    names: Annotated[
        Path | None,
        typer.Option(
            help="First names with bearers for the large set: a Statistics Sweden folder "
            "({kind}-kvinnor.csv, {kind}-man.csv) or a name,gender,persons table."
        ),
    ] = None,
    names_kind: Annotated[
        str, typer.Option(help="Names file kind in a Statistics Sweden folder.")
    ] = "tilltalsnamn",
    min_bearers: Annotated[
        int, typer.Option(help="Large set: names with more bearers than this.")
    ] = 1000,
    workers: Annotated[
        int, typer.Option(help="Processes (0: every core); with --dask local, its workers.")
    ] = 0,
    dask: Annotated[
        str | None,
        typer.Option(help="Run on Dask: a scheduler address, or 'local' for a LocalCluster."),
    ] = None,
    occupations_only: Annotated[
        bool,
        typer.Option(
            "--occupations-only",
            help="Classify only sentences that mention an occupation (faster; no corpus-wide q).",
        ),
    ] = False,
    conllu: Annotated[
        str, typer.Option(help="CoNLL-U input: use the sentence text, forms or lemmas.")
    ] = "text",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Count female/male sentences around each occupation in a corpus; write tables and figure."""
    from ..occupation_pipeline.associate import associate_corpus

    try:
        result = associate_corpus(
            corpus,
            lang,
            stats=stats,
            stat_column=stat_column,
            mapping=mapping,
            combine=combine,
            names=names,
            names_kind=names_kind,
            min_bearers=min_bearers,
            workers=workers,
            dask=dask,
            mode="occupations" if occupations_only else "full",
            conllu=conllu,
            out=out,
            quiet=quiet,
        )
    except WinoscopeError as exc:
        fail(exc)
    table = Table("set", "sentences", "female", "male", "tie", "q", title=f"{lang} corpus")
    import pandas as pd

    def show(value: object) -> str:
        return "–" if pd.isna(value) else str(value)  # type: ignore[call-overload]

    for r in result.corpus.itertuples(index=False):
        q = "–" if pd.isna(r.q) else f"{r.q:.4f}"
        table.add_row(r.set, str(r.sentences), show(r.female), show(r.male), show(r.tie), q)
    out_console.print(table)
    if len(result.correlations):
        corr = result.correlations[result.correlations["measure"] == "pct_female"]
        ct = Table("set", "method", "r", "p", "n", title="real world vs corpus % female")
        for r in corr.itertuples(index=False):
            ct.add_row(r.set, r.method, f"{r.value:.3f}", f"{r.p_value:.3g}", str(r.n))
        out_console.print(ct)
    left_out = result.settings.get("occupations_without_statistics") or []
    if left_out:
        err_console.print(
            f"[yellow]{len(left_out)} occupation(s) without statistics[/] (left out of the "
            f"correlations and the figure): {', '.join(left_out)}",
            highlight=False,
        )
    mb = result.settings["bytes"] / 1e6
    secs = result.settings["seconds"]
    out_console.print(
        f"scanned {mb:,.1f} MB in {secs:.1f} s ({mb / secs if secs else 0:,.1f} MB/s); wrote {out}",
        highlight=False,
    )
