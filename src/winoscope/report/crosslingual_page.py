"""Writing a :class:`~winoscope.compare.across_languages.CrosslingualResult` as Markdown and HTML.

``write_crosslingual(result, out)`` writes, beside the three tidy CSV files::

  OUT/
    crosslingual_mismatches.csv  linked rows whose occupations do not correspond (only
                        when allow_mismatched let some through)
    crosslingual.md     UK - EN on the shared items, agreement and occupations (Markdown)
    crosslingual.html   self-contained page: the two runs, a forest plot of UK - EN and the
                        same tables
    plots/forest_crosslingual.png, plots/forest_crosslingual.svg

The numbers are formatted once (:func:`display_rows`) for the terminal, the Markdown and the
page alike: values to three decimals, UK - EN signed, its interval as ``[+lo, +hi]``. Both
pages open with what limits the comparison: a banner for a run on a bundled sample, and the
result's notes (a model difference or mismatched occupations that were allowed).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._version import __version__
from ..jsonio import write_atomic
from ..results.crosslingual import CrosslingualResult
from .figures import (
    BLUE,
    VERMILLION,
    ReportFigure,
    SavedFigure,
    forest,
    new_figure,
    plain,
    save_figure,
    styled,
)
from .html import environment
from .plots import stratum_label


def is_gap(metric: object) -> bool:
    """A signed gap as its family declares it (WinoBias's ``signed_bias_gap``, WinoPron's
    ``gender_gap``): marked in the tables and drawn as a gap in the forest plot."""
    from ..scoring.metric import get_metric

    return get_metric(str(metric)).signed_gap


def _num(x: Any, digits: int = 3, signed: bool = False) -> str:
    """A number for the tables (``–`` when missing), by the shared formatters: a value within
    the decision tolerance of 0 prints as 0."""
    from ..scoring.decision import fmt_signed
    from .tables import fmt

    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return fmt_signed(x, digits) if signed else fmt(x, digits)


def _p(x: Any) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):.3g}"


def ci_text(lo: float, hi: float) -> str:
    """``[+lo, +hi]``, or ``–`` without an interval."""
    from ..scoring.decision import fmt_interval

    return "–" if math.isnan(lo) else fmt_interval(lo, hi)


def display_rows(table: pd.DataFrame) -> list[dict[str, str]]:
    """Rows as display strings: metric, stratum, UK, EN, UK - EN, 95% CI, p, items; an interval
    excludes 0 by the decision rule (a bound within 1e-9 of 0 includes it)."""
    from ..scoring.decision import side

    return [
        {
            "metric": str(r.metric),
            "stratum": stratum_label(str(r.split), str(r.type)),
            "uk": _num(r.uk),
            "en": _num(r.en),
            "diff": _num(r.diff, signed=True),
            "ci": ci_text(float(r.ci_low), float(r.ci_high)),
            "p": _p(r.p_boot),
            "n": str(r.n_items),
            "excludes": "yes" if side(float(r.ci_low), float(r.ci_high)) else "",
            "gap": "yes" if is_gap(r.metric) else "",
        }
        for r in table.itertuples(index=False)
    ]


def agreement_rows(agreement: pd.DataFrame) -> list[dict[str, Any]]:
    return [{**a, "p": _p(a["mcnemar_p"])} for a in agreement.to_dict("records")]


def occupation_rows(occupations: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {
            **o,
            "uk": _num(o["accuracy_uk"]),
            "en": _num(o["accuracy_en"]),
            "diff_text": _num(o["diff"], signed=True),
        }
        for o in occupations.to_dict("records")
    ]


def sample_banners(result: CrosslingualResult) -> list[str]:
    """One line per run whose data is a bundled sample."""
    return [
        f"Bundled sample: the {lang.upper()} run's data is "
        f"“{result.runs.get(lang, {}).get('dataset', 'the sample')}”, shipped with winoscope to "
        "check the pipeline. It is not the published dataset: these numbers say nothing about "
        "the model."
        for lang in result.sample_runs
    ]


def mismatch_rows(mismatches: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: str(v) for k, v in m.items()} for m in mismatches.to_dict("records")]


def _unit(result: CrosslingualResult) -> str:
    s = result.settings
    return (
        f"{s.get('level', 0.95):.0%} paired bootstrap intervals ({s.get('n_boot')} resamples of "
        f"{s.get('resampling_unit')}, seed {s.get('seed')})"
    )


def markdown(result: CrosslingualResult) -> str:
    runs = result.runs
    out = [
        f"# {runs['uk']['task']} against {runs['en']['task']}: UK − EN on the shared items",
        "",
        *[
            f"- {lang.upper()}: `{r['model']}` ({Path(r['run']).name}); task {r['task']}; "
            f"data {r['data']}; prompt {r['prompt']}"
            for lang, r in runs.items()
        ],
        "",
        *[f"> **{line}**\n" for line in sample_banners(result)],
        *[f"> {line}\n" for line in result.notes],
        f"{result.settings.get('shared_rows')} shared rows joined on "
        f"{', '.join(result.settings.get('join', []))}; {_unit(result)}; p: two-sided "
        "bootstrap p-value.",
        "",
        "| metric | stratum | UK | EN | UK − EN | 95% CI | p | items |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in display_rows(result.table):
        out.append(
            f"| {r['metric']} | {r['stratum']} | {r['uk']} | {r['en']} | {r['diff']} | "
            f"{r['ci']} | {r['p']} | {r['n']} |"
        )
    out += [
        "",
        "Per-row agreement (exact McNemar on only EN right vs only UK right):",
        "",
        "| condition | rows | both right | only EN right | only UK right | both wrong | p |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in agreement_rows(result.agreement):
        out.append(
            f"| {a['condition']} | {a['rows']} | {a['both_right']} | {a['only_en_right']} | "
            f"{a['only_uk_right']} | {a['both_wrong']} | {a['p']} |"
        )
    if len(result.occupations):
        out += [
            "",
            "Occupations where the languages differ most (accuracy):",
            "",
            "| occupation | Ukrainian | rows | UK | EN | UK − EN |",
            "|---|---|---|---|---|---|",
        ]
        for o in occupation_rows(result.occupations):
            out.append(
                f"| {o['occupation']} | {o['occupation_uk']} | {o['rows']} | {o['uk']} | "
                f"{o['en']} | {o['diff_text']} |"
            )
    if len(result.mismatches):
        out += [
            "",
            "Linked rows whose occupations do not correspond (compared anyway):",
            "",
            "| item | role | Ukrainian | English | expected | rows |",
            "|---|---|---|---|---|---|",
        ]
        for m in mismatch_rows(result.mismatches):
            out.append(
                f"| {m['item']} | {m['role']} | {m['occupation_uk']} | {m['occupation_en']} | "
                f"{m['expected']} | {m['rows']} |"
            )
    return "\n".join(out).rstrip() + "\n"


def _figure_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The macro rows, then each stratum's signed gap; rows without a value left out."""
    macro = table[table["split"] == "macro"]
    gaps = table[(table["split"] != "macro") & table["metric"].map(is_gap).astype(bool)]
    rows = pd.concat([macro, gaps])
    return rows[~rows["diff"].isna()]


@styled
def forest_figure(result: CrosslingualResult) -> ReportFigure | None:
    """Left: each language's value; right: UK - EN with its paired interval (same rows)."""
    rows = _figure_rows(result.table)
    if rows.empty:
        return None
    labels = [
        str(r.metric) if r.split == "macro" else f"{r.metric} · {stratum_label(r.split, r.type)}"
        for r in rows.itertuples(index=False)
    ]
    fig, (left, right) = new_figure(
        1,
        2,
        figsize=(8.4, 1.0 + 0.3 * len(rows)),
        sharey=True,
        gridspec_kw={"width_ratios": [1, 1.2]},
    )
    y = np.arange(len(rows))[::-1]
    left.hlines(y, rows["en"], rows["uk"], color="#bbbbbb", lw=1.5)
    left.plot(rows["en"], y, "s", color=BLUE, ms=5, label="EN")
    left.plot(rows["uk"], y, "o", color=VERMILLION, ms=5, label="UK")
    left.axvline(0, color="black", lw=0.8)
    left.set_xlim(-1.05, 1.05)
    left.grid(axis="x", alpha=0.3)
    left.legend(
        loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False, ncols=2,
        borderaxespad=0.2, handletextpad=0.2,
    )  # fmt: skip
    left.set_title(plain("Each language"), loc="left", fontsize=9)
    left.set_xlabel("value")
    forest(
        right,
        labels,
        rows[["diff", "ci_low", "ci_high"]].to_numpy(dtype=float),
        [is_gap(m) for m in rows["metric"]],
    )
    # a difference of gaps reaches 2 (forest caps its axis at the +-1 of a difference of rates)
    values = rows[["diff", "ci_low", "ci_high"]].to_numpy(dtype=float)
    bound = min(2.1, max(0.1, float(np.nanmax(np.abs(values)))) * 1.1)
    right.set_xlim(-bound, bound)
    left.set_yticks(y, [plain(x) for x in labels])
    right.tick_params(labelleft=False)
    right.set_title(plain("UK − EN"), loc="left", fontsize=9)
    right.set_xlabel(
        f"UK − EN ({result.settings.get('level', 0.95):.0%} paired bootstrap interval)"
    )
    fig.tight_layout()
    return ReportFigure(
        "forest_crosslingual",
        f"{result.runs['uk']['task']} against {result.runs['en']['task']}",
        "Left: each language's value on the shared items (squares EN, circles UK). Right: "
        "UK − EN with its paired bootstrap interval (the same resampled source units for both "
        "languages). Coloured, filled markers: the interval excludes zero (red above, blue "
        "below); hollow grey: it includes zero. Diamonds: signed gaps.",
        fig,
    )


def latex(result: CrosslingualResult) -> str:
    """booktabs: per summary metric (declared label), each language's value and UK - EN with
    its 95% paired interval under it, in one column of a paper."""
    from ..scoring.metric import get_metric
    from .latex import escape, interval, number, table, tex_label, wrap_left

    macro = result.table[result.table["split"] == "macro"]
    body = [
        (
            [
                wrap_left(get_metric(str(r.metric)).display),
                number(r.uk),
                number(r.en),
                number(r.diff, signed=True),
            ],
            ["", "", "", interval(r.ci_low, r.ci_high, signed=True)],
        )
        for r in macro.itertuples(index=False)
    ]
    caption = (
        f"{escape(result.runs.get('uk', {}).get('task', 'UK'))} against "
        f"{escape(result.runs.get('en', {}).get('task', 'EN'))} on "
        f"{result.settings.get('shared_rows', '?')} shared rows ({escape(result.model_uk)}): "
        "UK $-$ EN with its 95\\% paired bootstrap interval under it."
    )
    if result.notes:
        caption += " " + escape(" ".join(result.notes))[:400]
    return f"% winoscope {__version__}\n" + table(
        ["Metric", "UK", "EN", "UK $-$ EN"],
        body,
        caption=caption,
        label=tex_label("crosslingual", str(result.runs.get("uk", {}).get("task", ""))),
    )


def write_crosslingual(result: CrosslingualResult, out: Path) -> list[Path]:
    """crosslingual.md, crosslingual.tex, crosslingual.html and the figure under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    md = out / "crosslingual.md"
    write_atomic(md, markdown(result))
    write_atomic(out / "crosslingual.tex", latex(result))
    fig = forest_figure(result)
    figures: list[SavedFigure] = [save_figure(fig, out / "plots")] if fig else []
    if fig is not None:
        fig.figure.clear()
    s = result.settings
    counts = {
        k: v
        for k, v in s.items()
        if isinstance(v, int) and not isinstance(v, bool) and k not in ("n_boot", "seed")
    }
    html = out / "crosslingual.html"
    write_atomic(
        html,
        environment()
        .get_template("crosslingual.html.j2")
        .render(
            title=f"winoscope crosslingual: {result.runs['uk']['task']} / "
            f"{result.runs['en']['task']}",
            result=result,
            runs=result.runs,
            unit=_unit(result),
            join=", ".join(s.get("join", [])),
            counts=counts,
            macro=display_rows(result.table[result.table["split"] == "macro"]),
            strata=display_rows(result.table[result.table["split"] != "macro"]),
            agreement=agreement_rows(result.agreement),
            occupations=occupation_rows(result.occupations),
            samples=sample_banners(result),
            notes=result.notes,
            mismatches=mismatch_rows(result.mismatches),
            figures=figures,
            version=__version__,
        ),
    )
    return [md, html, *(f.png_path for f in figures), *(f.svg_path for f in figures)]
