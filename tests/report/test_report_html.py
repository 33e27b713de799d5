"""report.html, its plots and the per-occupation behaviour behind one of them."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from report_helpers import SCRIPT, inject_markup
from winoscope.report import write_run
from winoscope.report.figures import save_figure
from winoscope.report.occupations import occupation_behaviour, wilson_interval
from winoscope.report.plots import run_figures
from winoscope.report.tables import wide_table
from winoscope.results.run import RunResult
from winoscope.runs.runner import run
from winoscope.scoring.metric import headline_metrics, metric, metrics_naming, signed_gap_metrics


class TableCells(HTMLParser):
    """Text of every cell of the table with a given id, row by row."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.inside, self.depth = table_id, False, 0
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and ("id", self.table_id) in attrs:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table_cells(html: str, table_id: str) -> list[list[str]]:
    parser = TableCells(table_id)
    parser.feed(html)
    return parser.rows


@pytest.fixture(scope="module")
def stereotype_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    out = tmp_path_factory.mktemp("run") / "stereotype"
    return run("winobias-uk", "baseline:stereotype", out=out, n_boot=200, seed=3)


# --- per-occupation behaviour -------------------------------------------------------------


def _rows(*rows: tuple[str, str, str, str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        rows,
        columns=[
            "target_occupation_uk",
            "other_occupation_uk",
            "pronoun_gender",
            "prediction_role",
            "score_group",
        ],
    )


def test_occupation_behaviour_counts_each_mentioned_occupation_by_hand() -> None:
    pred = _rows(
        ("лікар", "секретар", "male", "target", "primary_balanced"),
        ("лікар", "секретар", "female", "distractor", "primary_balanced"),
        ("лікар", "секретар", "female", "invalid", "primary_balanced"),  # neither; counted
        ("лікар", "секретар", "male", "", "primary_balanced"),  # no answer: excluded
        ("лікар", "секретар", "male", "distractor", "agreement_control"),  # not primary
    )
    got = occupation_behaviour(pred).set_index(["occupation", "pronoun_gender"])
    # лікар: he 1/1; she 0/2 (distractor, invalid). секретар: he 0/1; she 1/2
    expected = {
        ("лікар", "male"): (1, 1),
        ("лікар", "female"): (0, 2),
        ("секретар", "male"): (0, 1),
        ("секретар", "female"): (1, 2),
    }
    assert {k: (int(r.k), int(r.n)) for k, r in got.iterrows()} == expected
    assert got.loc[("секретар", "female"), "share"] == 0.5
    # the shipped lexicon supplies labels and stereotypes
    assert got.loc[("лікар", "male"), "label"] == "лікар (physician)"
    assert got.loc[("лікар", "male"), "statistic"] == "male"
    assert got.loc[("секретар", "female"), "statistic"] == "female"


def test_occupation_behaviour_maps_feminine_forms_to_the_occupation() -> None:
    pred = _rows(
        ("лікарка", "секретарка", "female", "target", "primary_balanced"),
        ("лікар", "секретар", "male", "target", "primary_balanced"),
    )
    got = occupation_behaviour(pred)
    assert sorted(set(got["occupation"])) == ["лікар", "секретар"]
    assert got.loc[got["occupation"] == "лікар", "k"].tolist() == [1, 1]


def test_wilson_interval_matches_the_formula() -> None:
    z = 1.959963984540054
    for k, n in [(0, 4), (3, 7), (10, 10), (1, 2)]:
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        lo, hi = wilson_interval(k, n)
        assert lo == pytest.approx(max(0.0, centre - half), abs=1e-12)
        assert hi == pytest.approx(min(1.0, centre + half), abs=1e-12)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_wilson_interval_is_scipys_to_the_last_bit(level: float) -> None:
    """Computed without importing scipy.stats (a run's import time), the same floats."""
    from scipy.stats import binomtest

    for n in range(1, 41):
        for k in range(n + 1):
            ci = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
            assert wilson_interval(k, n, level) == (float(ci.low), float(ci.high))


def test_long_layout_with_a_numeric_statistic() -> None:
    pred = pd.DataFrame(
        {
            "occupation": ["nurse", "nurse", "nurse", "engineer"],
            "pronoun_gender": ["male", "male", "female", "male"],
            "resolved_to_occupation": [True, False, True, None],
            "occupation_statistic": [90.0, 90.0, 90.0, 12.0],
        }
    )
    got = occupation_behaviour(pred).set_index(["occupation", "pronoun_gender"])
    assert (got.loc[("nurse", "male"), "k"], got.loc[("nurse", "male"), "n"]) == (1, 2)
    assert ("engineer", "male") not in got.index  # the unanswered row is left out
    assert got.loc[("nurse", "female"), "statistic"] == 90.0


def test_no_occupations_means_no_behaviour() -> None:
    assert occupation_behaviour(pd.DataFrame({"prediction_role": ["target"]})) is None


# --- plot choice ---------------------------------------------------------------------------


def _metrics(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "metric": m,
                "split": s,
                "type": t,
                "value": v,
                "ci_low": v - 0.1,
                "ci_high": v + 0.1,
                "n": 10,
            }
            for m, s, t, v in rows
        ]
    )


def test_metric_names_pick_the_plots(tmp_path: Path) -> None:
    # made-up gaps: drawn as gaps because they are declared so, not because of their names
    metric(
        "male_female_gap",
        kind="gap",
        direction="zero",
        components=("male_accuracy", "female_accuracy"),
    )
    metric(
        "absolute_male_female_gap",
        kind="gap",
        direction="lower",
        components=("male_accuracy", "female_accuracy"),
    )
    gendered = _metrics(
        [
            (m, s, s, v)
            for s in ("single", "macro")
            for m, v in [
                ("male_accuracy", 0.8),
                ("female_accuracy", 0.6),
                ("plural_accuracy", 0.4),
                ("male_female_gap", 0.2),
                ("absolute_male_female_gap", 0.2),
                ("accuracy", 0.6),
            ]
        ]
    )
    figs = run_figures(gendered, None)
    assert [f.key for f in figs] == ["accuracy_by_gender", "signed_gap"]
    saved = [save_figure(f, tmp_path) for f in figs]
    for s in saved:
        assert s.png.startswith(b"\x89PNG") and s.png_path.read_bytes() == s.png
        assert s.svg_path.read_text().lstrip().startswith("<?xml")
    assert metrics_naming(gendered["metric"].tolist(), ("male", "female", "plural")) == [
        "male_accuracy",
        "female_accuracy",
        "plural_accuracy",
    ]
    assert signed_gap_metrics(gendered["metric"].tolist()) == ["male_female_gap"]

    only_accuracy = _metrics([("accuracy", "macro", "macro", 0.7), ("f1", "macro", "macro", 0.6)])
    assert [f.key for f in run_figures(only_accuracy, None)] == ["macro_metrics"]
    assert run_figures(only_accuracy.iloc[0:0], None) == []


def test_figures_are_reproducible(tmp_path: Path, stereotype_run: RunResult) -> None:
    a = save_figure(
        run_figures(stereotype_run.metrics, stereotype_run.predictions)[1], tmp_path / "a"
    )
    b = save_figure(
        run_figures(stereotype_run.metrics, stereotype_run.predictions)[1], tmp_path / "b"
    )
    assert a.png == b.png
    assert a.svg_path.read_bytes() == b.svg_path.read_bytes()


def test_headline_order() -> None:
    names = ["pro_accuracy", "anti_accuracy", "overall_accuracy", "signed_bias_gap"]
    assert headline_metrics(names) == [
        "signed_bias_gap",
        "overall_accuracy",
        "pro_accuracy",
        "anti_accuracy",
    ]


# --- the page ------------------------------------------------------------------------------


def test_run_directory_has_report_html_and_plots(stereotype_run: RunResult) -> None:
    out = stereotype_run.out_dir
    assert out is not None
    html = (out / "report.html").read_text(encoding="utf-8")
    for key in ("accuracy_by_condition", "signed_gap", "occupations"):
        assert (out / "plots" / f"{key}.png").stat().st_size > 1000
        assert (out / "plots" / f"{key}.svg").stat().st_size > 1000
        assert f'id="fig-{key}"' in html
    assert html.count('src="data:image/png;base64,') == 3
    # self-contained: nothing loaded from elsewhere
    assert not re.search(r'(src|href)="(?!data:|#)', html)
    assert '<link rel="stylesheet"' not in html and "@import" not in html
    man = stereotype_run.manifest
    for text in (
        man["dataset"]["source"]["sha256"],
        man["review_status"],
        man["prompt_template"]["name"],
        "forced_choice",
        "baseline:stereotype",
        man["winoscope_version"],
    ):
        assert text in html


def test_metric_table_shows_every_value_with_its_interval(stereotype_run: RunResult) -> None:
    html = (stereotype_run.out_dir / "report.html").read_text(encoding="utf-8")
    rows = table_cells(html, "metrics")
    header, body = rows[0], rows[1:]
    wide = wide_table(stereotype_run.metrics)
    assert header == ["metric", *wide.labels]
    assert header[1] == "macro avg"
    m = stereotype_run.metrics.copy()
    m["label"] = [
        "macro avg" if s == "macro" else f"{s}/{t}"
        for s, t in zip(m["split"], m["type"], strict=True)
    ]
    by_cell = {(r.metric, r.label): r for r in m.itertuples(index=False)}
    checked = 0
    for row in body:
        for label, text in zip(header[1:], row[1:], strict=True):
            r = by_cell.get((row[0], label))
            if r is None or math.isnan(r.value):
                assert text == "–"
                continue
            assert text == f"{r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"
            checked += 1
    assert checked == int(m["value"].notna().sum())
    assert [r[0] for r in body] == list(dict.fromkeys(m["metric"]))


def test_counts_table_matches_the_scorer(stereotype_run: RunResult) -> None:
    html = (stereotype_run.out_dir / "report.html").read_text(encoding="utf-8")
    cells = table_cells(html, "counts-table")
    counts = stereotype_run.result.counts
    assert cells[0] == list(counts.columns)
    assert cells[1:] == [[str(v) for v in r] for r in counts.to_numpy()]


def test_dataset_and_model_text_is_escaped(tmp_path: Path) -> None:
    rr = run("winobias-uk", "baseline:first", n_boot=50)
    inject_markup(rr)
    write_run(rr, tmp_path / "run")
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=" in html
    # model parameters: readable JSON text, escaped
    assert "&#34;note&#34;: &#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;" in html
    examples = table_cells(html, "examples")
    first = dict(zip(examples[0], examples[1], strict=True))
    assert first["prediction_role"] == "invalid"  # invalid answers are listed first
    assert first["sentence_uk"].startswith(SCRIPT)
    assert first["answer_target_first"].startswith(SCRIPT)


def test_group_points_read_groups_from_names_and_from_strata() -> None:
    from winoscope.report.plots import group_points
    from winoscope.scoring.metric import CONDITION_GROUPS, GENDER_GROUPS

    winopron_like = _metrics(
        [
            ("accuracy", "single", "all", 0.9),
            ("accuracy", "single", "male", 0.8),
            ("accuracy", "single", "nominative/female", 0.7),
            ("pair_consistency", "single", "male", 0.5),  # not an accuracy: left out
            ("male_accuracy", "macro", "macro", 0.6),
            ("gender_gap", "macro", "macro", 0.1),  # a difference: left out
        ]
    )
    pts = group_points(winopron_like, GENDER_GROUPS)
    got = list(zip(pts["x"], pts["series"], pts["value"], strict=True))
    assert got == [
        ("single", "male", 0.8),
        ("single/nominative", "female", 0.7),
        ("macro avg", "male", 0.6),
    ]
    coref_like = _metrics(
        [
            ("conll_f1_pro", "macro", "macro", 0.7),
            ("conll_f1_anti", "macro", "macro", 0.5),
            ("link_accuracy_pro", "macro", "macro", 0.9),
            ("link_accuracy_anti", "macro", "macro", 0.6),
            ("conll_f1_pro", "test", "type1", 0.71),  # several measures: macro only
            ("conll_f1_pro_minus_anti", "macro", "macro", 0.2),
        ]
    )
    pts = group_points(coref_like, CONDITION_GROUPS)
    assert list(zip(pts["x"], pts["series"], strict=True)) == [
        ("conll f1", "pro"),
        ("link accuracy", "pro"),
        ("conll f1", "anti"),
        ("link accuracy", "anti"),
    ]
    assert signed_gap_metrics(coref_like["metric"].tolist()) == ["conll_f1_pro_minus_anti"]


def test_many_strata_put_strata_on_rows() -> None:
    from winoscope.report.tables import metric_tables

    rows = [("accuracy", "single", f"case{i}", i / 20) for i in range(10)]
    rows += [("gender_gap", "single", "case0", -0.3), ("accuracy", "macro", "macro", 0.2)]
    tables = metric_tables(_metrics(rows))
    assert [t for t, _ in tables] == ["Macro averages", "By stratum"]
    by_stratum = tables[1][1]
    assert by_stratum.corner == "stratum" and by_stratum.labels == ["accuracy", "gender_gap"]
    assert [r[0] for r in by_stratum.rows] == [f"single/case{i}" for i in range(10)]
    first = by_stratum.rows[0][1]
    assert first[0].text == "0.000" and first[1].text == "-0.300"
    assert first[1].direction == "neg"  # [-0.4, -0.2] excludes zero, and it is signed
    assert first[0].direction == ""  # accuracy is not a signed difference
    assert by_stratum.rows[1][1][1] is None
    few = metric_tables(_metrics(rows[:3]))
    assert len(few) == 1 and few[0][1].corner == "metric"


def test_dollar_signs_in_data_are_drawn_literally(tmp_path: Path) -> None:
    """Matplotlib reads $...$ as mathematics; an unbalanced $ in data would fail to render."""
    from winoscope.report.figures import plain
    from winoscope.report.plots_occupation import occupation_figure

    pred = pd.DataFrame(
        {
            "occupation": ["a$b", "c$^{$x", "a$b"],
            "pronoun_gender": ["male", "female", "female"],
            "resolved_to_occupation": [True, False, True],
        }
    )
    behaviour = occupation_behaviour(pred)
    fig = occupation_figure(behaviour)
    fig.savefig(tmp_path / "occ.png")  # raises on a mathtext parse error
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert sorted(labels) == sorted([plain("a$b"), plain("c$^{$x")])
    metrics = _metrics([("pro_accuracy", "te$t", "a", 0.5), ("anti_accuracy", "te$t", "a", 0.4)])
    for f in run_figures(metrics, None):
        save_figure(f, tmp_path)


def test_readout_says_where_the_gap_interval_lies(stereotype_run: RunResult) -> None:
    html = (stereotype_run.out_dir / "report.html").read_text(encoding="utf-8")
    readout = html[html.index('id="readout"') : html.index("</ul>", html.index('id="readout"'))]
    # the stereotype baseline: pro 1.0, anti 0.0 on every item, so the gap is 1 with no spread
    assert 'pro − anti accuracy = <strong class="pos">1.000</strong> [1.000, 1.000]' in readout
    assert "above zero" in readout

    rr = run("winobias-uk", "baseline:first", n_boot=100)
    gap = rr.metrics.query("metric == 'signed_bias_gap' and split == 'macro'").iloc[0]
    assert gap.ci_low <= 0 <= gap.ci_high  # position-only baseline: no pro/anti difference
    from winoscope.report.html import render_run_html

    page = render_run_html(rr, [])
    assert "the 95% interval includes zero (n = 28)" in page


def test_winogender_layout_one_occupation_per_row() -> None:
    pred = pd.DataFrame(
        {
            "context": ["double", "double", "double", "double", "single"],
            "occupation_en": ["nurse", "nurse", "nurse", "engineer", "nurse"],
            "pronoun_set": ["male", "female", "female", "male", "male"],
            "prediction_role": ["participant", "occupation", "invalid", "occupation", "occupation"],
            "bls_pct_female": [90.0, 90.0, 90.0, 12.0, 90.0],
        }
    )
    got = occupation_behaviour(pred)
    assert got.attrs["statistic"] == "% women in the occupation (BLS)"
    table = {(r.occupation, r.pronoun_gender): (r.k, r.n) for r in got.itertuples()}
    # the single-context row is left out; invalid stays in the denominator
    assert table == {
        ("nurse", "male"): (0, 1),
        ("nurse", "female"): (1, 2),
        ("engineer", "male"): (1, 1),
    }


def test_winobias_layout_takes_stereotypes_from_the_rows() -> None:
    pred = _rows(("developer", "designer", "female", "distractor", "primary_balanced")).assign(
        target_stereotype=["male"], other_stereotype=["female"]
    )
    got = occupation_behaviour(pred).set_index("occupation")
    assert got.loc["designer", "statistic"] == "female" and got.loc["designer", "k"] == 1
    assert got.loc["developer", "statistic"] == "male" and got.loc["developer", "k"] == 0


def test_difference_against_a_numeric_statistic_reports_pearson_r() -> None:
    from winoscope.report.plots_occupation import occupation_differences, occupation_figure

    rows = []
    shares = {
        "a": (10.0, 0.2, 0.1),
        "b": (50.0, 0.5, 0.9),
        "c": (80.0, 0.3, 1.0),
        "d": (95.0, 0.0, 1.0),
    }
    for occ, (stat, male, female) in shares.items():
        for gender, share in (("male", male), ("female", female)):
            rows.append(
                {"occupation": occ, "pronoun_gender": gender, "share": share, "statistic": stat}
            )
    behaviour = pd.DataFrame(rows)
    behaviour.attrs["statistic"] = "% women"
    diffs = occupation_differences(behaviour)
    assert diffs["difference"].round(10).tolist() == [-0.1, 0.4, 0.7, 1.0]
    x = [10.0, 50.0, 80.0, 95.0]
    y = [-0.1, 0.4, 0.7, 1.0]
    mx, my = sum(x) / 4, sum(y) / 4
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    r = sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))
    fig = occupation_figure(
        behaviour.assign(ci_low=0.0, ci_high=1.0, k=1, n=2, label=behaviour["occupation"])
    )
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(
        t.startswith(f"Pearson r = {r:.2f}") and t.endswith("n = 4 occupations") for t in texts
    )
    assert fig.axes[0].get_xlabel() == "% women"


def test_request_errors_are_shown_and_escaped() -> None:
    from winoscope.report.html import render_run_html

    rr = run("winobias-uk", "baseline:first", n_boot=20)
    rr.manifest["request_errors"] = 7
    rr.errors = [
        {"request_id": "r1", "error": "HTTP 500 <b>boom</b>"},
        {"more": 6},
    ]
    page = render_run_html(rr, [])
    assert "7 of 152 requests failed" in page
    assert "HTTP 500 &lt;b&gt;boom&lt;/b&gt;" in page and "<b>boom" not in page
    assert "… and 6 more" in page
    assert '<strong class="flag">7</strong> request errors' in page


def test_winopron_layout_groups_gendered_forms_under_the_occupation() -> None:
    pred = pd.DataFrame(
        {
            "context": ["double"] * 3,
            "occupation_group_uk": ["лікар"] * 3,
            "occupation_uk": ["лікар", "лікарка", "лікарі"],
            "pronoun_set": ["male", "female", "plural"],
            "prediction_role": ["occupation", "participant", "occupation"],
        }
    )
    got = occupation_behaviour(pred)
    assert got["occupation"].tolist() == ["лікар"] * 3
    assert dict(zip(got["pronoun_gender"], got["k"], strict=True)) == {
        "female": 0,
        "male": 1,
        "plural": 1,
    }
    assert set(got["statistic"]) == {"male"}  # from the shipped Ukrainian lexicon
