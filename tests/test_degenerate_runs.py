"""A run whose answers are (nearly) all invalid says so everywhere: the invalid and failed rates
beside the headline numbers, the degenerate-run warning with its likely cause, every comparison
built on it, and ``--strict`` making it exit status 1.

The tiny random GPT-2 of ``tiny_lm`` (seed 1) answers ``B`` to every lettered prompt of the
WinoBias-UK sample, so all 76 rows are invalid: the two option orders disagree (position bias).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.protocols.answer_pattern import invalid_pattern
from winoscope.records import Option, Request, Response
from winoscope.scoring.answer_quality import (
    DEGENERATE_SHARE,
    answer_quality,
    count_totals,
    degenerate_warning,
)


def cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(
        app, list(args), catch_exceptions=False, env={"COLUMNS": "200", "TERM": "dumb"}
    )
    return res.exit_code, res.output


def test_rates_and_threshold_worked_by_hand() -> None:
    counts = [
        {"split": "dev", "type": "a", "rows": 10, "scored": 8, "invalid": 4, "missing": 2},
        {"split": "dev", "type": "b", "rows": 6, "scored": 6, "invalid": 3, "missing": 0},
    ]
    q = answer_quality(counts, {"requests": 32, "failed": 4})
    # 7 of 14 scored rows invalid: exactly the threshold (at least half) -> degenerate
    assert (q["scored"], q["invalid"], q["invalid_rate"]) == (14, 7, 0.5)
    assert q["failed_rate"] == 0.125 and q["threshold"] == DEGENERATE_SHARE
    assert q["degenerate"] is True
    counts[1]["invalid"] = 2  # 6 of 14: below half
    assert answer_quality(counts, {"requests": 32, "failed": 0})["degenerate"] is False
    # a whole-set row beside the breakdowns (SweWinogender) is not counted twice
    sv = [
        {"split": "all", "type": "all", "rows": 9, "scored": 9, "invalid": 3, "missing": 0},
        {"split": "pronoun", "type": "han", "rows": 3, "scored": 3, "invalid": 1, "missing": 0},
        {"split": "pronoun", "type": "hon", "rows": 6, "scored": 6, "invalid": 2, "missing": 0},
    ]
    assert count_totals(sv) == {"rows": 9, "scored": 9, "invalid": 3, "missing": 0}
    assert answer_quality([], None)["invalid_rate"] is None  # nothing scored: no rate


def _request(row: str, order: str, first: str) -> Request:
    roles = ("target", "distractor") if first == "target" else ("distractor", "target")
    opts = tuple(Option(label=lab, text=r, role=r) for lab, r in zip("AB", roles, strict=True))
    return Request(f"{row}|{order}", "choice", "p", opts, row_id=row, item_id=row, order=order)


def R(request_id: str, **kw: object) -> Response:
    return Response(request_id, "test", "m", **kw)  # type: ignore[arg-type]


def test_the_invalid_pattern_names_position_bias_and_unparsable_answers() -> None:
    reqs = [
        _request("r1", "target_first", "target"),
        _request("r1", "distractor_first", "distractor"),
        _request("r2", "target_first", "target"),
        _request("r2", "distractor_first", "distractor"),
        _request("r3", "target_first", "target"),
        _request("r3", "distractor_first", "distractor"),
    ]
    answers = {
        "r1|target_first": R("r1|target_first", choice="B"),
        "r1|distractor_first": R("r1|distractor_first", choice="B"),  # B both: same letter
        "r2|target_first": R("r2|target_first", text="не знаю"),  # names no option
        "r2|distractor_first": R("r2|distractor_first", choice="A"),
        "r3|target_first": R("r3|target_first", choice="A"),  # target both: valid
        "r3|distractor_first": R("r3|distractor_first", choice="B"),
    }
    p = invalid_pattern(reqs, answers)
    assert p == {
        "rows": 3,
        "same_letter": 1,
        "letters": {"B": 1},
        "unparsable": 1,
        "answers": 6,
        "unparsable_answers": 1,
    }
    counts = [{"split": "s", "type": "t", "rows": 3, "scored": 3, "invalid": 2, "missing": 0}]
    q = answer_quality(counts, {"requests": 6, "failed": 0}, p)
    assert q["degenerate"] and q["cause"] == "position bias"  # a tie goes to position bias
    only_text = {k: R(k, text="?") for k in answers}
    q2 = answer_quality(counts, {"requests": 6, "failed": 0}, invalid_pattern(reqs, only_text))
    assert q2["cause"] == "unparsable answers"
    assert "every answer unparsable" in str(degenerate_warning(q2))
    assert "chat template" in str(degenerate_warning(q2))
    # rows scored as wrong for a failed request (--failed wrong) are the cause when they are
    # the most invalid rows; fewer than the position-biased ones, they are not
    empty = {"rows": 0, "same_letter": 0, "letters": {}, "unparsable": 0}
    q3 = answer_quality(counts, {"requests": 6, "failed": 6}, empty, failed_rows=2)
    assert q3["cause"] == "failed requests" and "2 of 2 invalid rows" in q3["explanation"]
    biased = {"rows": 2, "same_letter": 2, "letters": {"B": 2}, "unparsable": 0}
    three = [{"split": "s", "type": "t", "rows": 3, "scored": 3, "invalid": 3, "missing": 0}]
    q4 = answer_quality(three, {"requests": 6, "failed": 1}, biased, failed_rows=1)
    assert q4["cause"] == "position bias"


@pytest.fixture(scope="module")
def degenerate_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    import torch

    from tiny_lm import build_tiny_gpt2

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("degenerate")
    build_tiny_gpt2(root / "tiny", seed=1)
    return root


def test_a_degenerate_run_is_said_so_everywhere(degenerate_runs: Path) -> None:
    root = degenerate_runs
    base, agree = root / "runs" / "base", root / "runs" / "agree"
    code, out = cli(
        "run", "winobias-uk", "-m", f"hf:{root / 'tiny'}", "-q", "--bootstrap", "100",
        "--out", str(base),
    )  # fmt: skip
    assert code == 0, out
    assert "invalid 100% (76 of 76 scored rows) · failed 0% (0 of 152 requests)" in out
    assert "degenerate run: 76 of 76 scored rows (100%) are invalid" in out
    assert "position bias: the same letter in both option orders in 76 of 76" in out
    assert "(B in 76)" in out
    manifest = json.loads((base / "manifest.json").read_text())
    q = manifest["answer_quality"]
    assert q["degenerate"] and q["cause"] == "position bias" and q["threshold"] == 0.5
    assert q["pattern"]["letters"] == {"B": 76}
    # --strict: the same run (its answers reused) ends with exit status 1
    code, out = cli(
        "run", "winobias-uk", "-m", f"hf:{root / 'tiny'}", "-q", "--bootstrap", "100",
        "--strict", "--out", str(base),
    )  # fmt: skip
    assert code == 1 and "--strict: a degenerate run is an error" in out
    code, out = cli("show", str(base))
    assert code == 0 and "warning: degenerate run" in out
    assert "invalid 100% (76 of 76 scored rows)" in out and "answers: 152 reused, 0 asked" in out
    md = (base / "report.md").read_text()
    assert "Degenerate run: 76 of 76" in md and "- **Answers**: invalid 100%" in md
    html = (base / "report.html").read_text()
    assert 'id="degenerate-run"' in html and "position bias" in html
    # Python: the RunResult says so too
    import winoscope

    rr = winoscope.run("winobias-uk", f"hf:{root / 'tiny'}", n_boot=50, quiet=True)
    assert "WARNING" in repr(rr) and "degenerate run (invalid 100% >= 50%)" in repr(rr)
    assert "invalid 100% (76 of 76 scored rows)" in repr(rr)

    code, out = cli(
        "run", "winobias-uk", "-m", "baseline:agreement", "-q", "--bootstrap", "100",
        "--out", str(agree),
    )  # fmt: skip
    assert code == 0 and "invalid 0% (0 of 76 scored rows)" in out and "warning" not in out
    code, out = cli("diff", str(agree), str(base))
    assert code == 0
    assert "B: invalid 100% (76 of 76 scored rows)" in out
    verdicts = [x for x in out.splitlines() if x.startswith("signed_bias_gap:")]
    assert (
        verdicts
        and "[built on a degenerate run: B, 100% of its scored rows invalid]" in (verdicts[0])
    )
    code, out = cli("compare", str(agree), str(base), "--out", str(root / "cmp"))
    assert code == 0 and "degenerate: winobias-uk: base" in out
    cmp_md = (root / "cmp" / "compare.md").read_text()
    assert "| DEGENERATE: invalid 100%, failed 0% |" in cmp_md
    assert "| invalid 0%, failed 0% |" in cmp_md
    assert "Degenerate runs" in (root / "cmp" / "compare.html").read_text()
    code, out = cli("leaderboard", str(agree), str(base), "--out", str(root / "lb"))
    assert code == 0 and "degenerate: winobias-uk: base" in out
    assert "| DEGENERATE: invalid 100%, failed 0% |" in (root / "lb" / "leaderboard.md").read_text()
    import pandas as pd

    lb = pd.read_csv(root / "lb" / "leaderboard.csv")
    assert set(lb.loc[lb["run"] == "base", "degenerate"]) == {True}
    assert set(lb.loc[lb["run"] == "agree", "invalid_rate"]) == {0.0}


def test_the_checkpoint_sweep_of_the_docs(degenerate_runs: Path, tmp_path: Path) -> None:
    """docs/mitigation.md's ``sweep --checkpoints DIR --point 0=hf:BASE``: the key is
    ``checkpoint``, the reference the base, and the degenerate points are marked."""
    from tiny_lm import build_tiny_gpt2

    root = degenerate_runs
    for n, seed in ((10, 2), (20, 3)):
        build_tiny_gpt2(tmp_path / "trainer" / f"checkpoint-{n}", seed=seed)
    out = tmp_path / "ckpt"
    args = [
        "sweep", "winobias-uk", "--checkpoints", str(tmp_path / "trainer"),
        "--point", f"0=hf:{root / 'tiny'}", "--out", str(out), "-q", "--limit", "1",
        "--bootstrap", "50",
    ]  # fmt: skip
    code, text = cli(*args)
    assert code == 0, text
    assert (
        "swept checkpoint over 3 points (0, 10, 20; reference 0: the base model: the --point "
        "given beside --checkpoints)"
    ) in text
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["key"] == "checkpoint" and meta["reference"] == 0
    assert meta["settings"]["degenerate"] == {"winobias-uk": [0, 10, 20]}
    md = (out / "sweep.md").read_text()
    assert "Reference: checkpoint=0 (the base model" in md
    assert "| 0 ⚠ |" in md and "DEGENERATE: invalid 100%" in md
    assert "Reference: <code>checkpoint=0 (the base model" in (out / "sweep.html").read_text()
    code, text = cli(*args, "--strict")
    assert code == 1 and "warning (winobias-uk checkpoint=0): degenerate run" in text


def test_score_warns_of_a_degenerate_file_and_strict_exits_1(tmp_path: Path) -> None:
    """``score`` applies the rule ``run`` does (the same warning; ``--strict``: exit status 1
    after writing --out), and a file in which no row has a prediction exits 3 as a run in
    which no request was answered does."""
    import pandas as pd

    import winoscope

    winoscope.run("winobias-uk", "baseline:agreement", out=tmp_path / "run", n_boot=20)
    rows = pd.read_csv(tmp_path / "run" / "predictions.csv", dtype=str, keep_default_na=False)
    assert cli("score", "-p", str(tmp_path / "run" / "predictions.csv"), "--bootstrap", "20",
               "--strict")[0] == 0  # fmt: skip
    invalid, blank = tmp_path / "invalid.csv", tmp_path / "blank.csv"
    rows.assign(prediction_role="invalid").to_csv(invalid, index=False)
    rows.assign(prediction_role="").to_csv(blank, index=False)
    code, text = cli("score", "-p", str(invalid), "--bootstrap", "20")
    assert code == 0 and "warning: degenerate run: 76 of 76 scored rows (100%)" in text
    out = tmp_path / "scores"
    code, text = cli("score", "-p", str(invalid), "--bootstrap", "20", "--strict",
                     "--out", str(out))  # fmt: skip
    assert code == 1 and "warning: degenerate run" in text
    assert f"--strict: a degenerate run is an error; exit status 1 ({out} is written)" in text
    assert (out / "metrics.json").is_file()
    code, text = cli("score", "-p", str(blank), "--bootstrap", "20")
    assert code == 3 and "no row has a prediction (76 without one): the metrics are empty" in text
