"""One call from corpus files to association tables and figure (the ``associate`` command).

:mod:`winoscope.occupations` scans the corpus and computes the association; this module runs
the scan, writes the tables and draws ``figure.png``/``figure.pdf``
(:func:`winoscope.report.association_figure.plot_association`).

>>> from winoscope.occupation_pipeline.associate import associate_corpus
>>> result = associate_corpus(["news.txt.zst"], "sv", names="sv-names", stats="scb.tsv",
...                           workers=0, out="assoc-sv")          # doctest: +SKIP
>>> result.corpus[["set", "q"]]                                  # doctest: +SKIP
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..jsonio import write_csv
from ..occupations.association import AssociationResult, associate
from ..occupations.lexicons import Lexicon, load_lexicon
from ..occupations.scan import build_spec, scan_corpus


def associate_corpus(
    corpus: Sequence[str | os.PathLike[str]],
    lang: str,
    *,
    stats: str | Path | None = None,
    stat_column: str | None = None,
    mapping: str | Path | None = None,
    combine: str | None = None,
    names: str | Path | None = None,
    names_kind: str = "tilltalsnamn",
    min_bearers: int = 1000,
    min_share: float = 0.9,
    workers: int = 1,
    dask: str | None = None,
    mode: str = "full",
    conllu: str = "text",
    out: str | Path | None = None,
    lexicon: Lexicon | None = None,
    quiet: bool = False,
) -> AssociationResult:
    """Scan ``corpus`` for ``lang``'s occupations and collocates and build the association.

    With ``out``, writes the tables (see :meth:`AssociationResult.write`) and, when ``stats``
    is given, ``figure.png`` and ``figure.pdf``. ``mapping`` (official category -> occupation)
    and ``combine`` (``mean``/``weighted``, for percentage-only tables) read ``stats`` as
    ``winoscope correlate`` does; a statistics table matching none of the lexicon's
    occupations is an error (no empty figure), the ones it lacks are listed in
    ``settings["occupations_without_statistics"]``.
    """
    lexicon = lexicon or load_lexicon(
        lang, names=names, names_kind=names_kind, min_bearers=min_bearers, min_share=min_share
    )
    spec = build_spec(lexicon)
    statistics = None
    if stats is not None:  # read and matched before the scan: a bad table fails in a second
        from ..occupations.names import join_report
        from ..occupations.stats import load_statistics

        statistics = load_statistics(stats, mapping=mapping, percent_combine=combine)
        join_report(
            lexicon.occupations,
            statistics["occupation"],
            what="lexicon's occupations",
            where=str(stats),
        )
    started = time.perf_counter()
    counts = scan_corpus(
        spec, corpus, workers=workers, dask=dask, mode=mode, conllu=conllu, quiet=quiet
    )
    elapsed = time.perf_counter() - started
    settings: dict[str, Any] = {
        "corpus": [str(p) for p in corpus],
        "mode": mode,
        "conllu": conllu,
        "workers": workers,
        "dask": dask,
        "seconds": round(elapsed, 3),
        "bytes": counts.bytes,
        "lexicon": {
            "lang": lexicon.lang,
            "digest": lexicon.digest(),
            "notes": list(lexicon.notes),
            "set_sizes": lexicon.set_sizes().to_dict("records"),
            "dropped_forms": len(lexicon.dropped),
            "patterns": len(spec.patterns),
            "conflicts": list(spec.conflicts),
        },
        "collocate_tokens": {
            g: dict(zip(("small", "medium", "large"), (int(v) for v in row), strict=True))
            for g, row in zip(("female", "male"), counts.hits, strict=True)
        },
        "stats": str(stats) if stats is not None else None,
        "mapping": str(mapping) if mapping is not None else None,
        "combine": combine,
    }
    result = associate(
        counts,
        lexicon.occupations,
        lexicon.lemmas,
        lang=lang,
        statistics=statistics,
        stat_column=stat_column,
        settings=settings,
    )
    if out is not None:
        result.write(out)
        write_csv(Path(out) / "dropped_forms.csv", lexicon.dropped)
        if statistics is not None:
            from ..report.association_figure import plot_association

            plot_association(result, Path(out) / "figure.png")
            plot_association(result, Path(out) / "figure.pdf")
    return result
