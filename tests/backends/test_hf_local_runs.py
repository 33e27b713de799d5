"""The ``hf:`` backend in whole runs and from the command line: model identity, option errors,
end-to-end predictions, and the letter mass in predictions, manifest and report."""

from __future__ import annotations

import pytest

# the model stack: without torch (CI's Python 3.13 environment) this module is skipped
pytest.importorskip("torch")

import json
from pathlib import Path

import torch
from hf_requests import make_requests

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.backends.hf.identity import model_fingerprint, weights_sha256
from winoscope.errors import BackendError
from winoscope.runs.runner import run

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2") / "model", seed=1)


def test_weights_hash_follows_the_checkpoint(tmp_path, tiny_dir):
    a = build_tiny_gpt2(tmp_path / "a", seed=1)
    b = build_tiny_gpt2(tmp_path / "b", seed=3)
    assert weights_sha256(a) == weights_sha256(tiny_dir)  # same seed, same bytes
    assert weights_sha256(a) != weights_sha256(b)
    assert model_fingerprint(a) == model_fingerprint(tiny_dir)
    assert model_fingerprint(a) != model_fingerprint(b)  # same headers, other weights
    backend = create_backend(f"hf:{a}", verify="full")
    assert backend.params["fingerprint"] == model_fingerprint(a)
    assert "weights_sha256" not in backend.runtime  # hashed when loaded, not when created
    backend.load()
    assert backend.runtime["weights_sha256"] == weights_sha256(a)
    plain = create_backend(f"hf:{a}")
    plain.load()
    assert "weights_sha256" not in plain.runtime


def test_bad_specs_and_options_are_clear_errors(tmp_path, tiny_dir):
    with pytest.raises(BackendError, match="not a local directory"):
        create_backend(f"hf:{tmp_path / 'missing'}")
    with pytest.raises(BackendError, match="mode='bogus'"):
        create_backend(f"hf:{tiny_dir}", mode="bogus")
    with pytest.raises(BackendError, match="unknown option"):
        create_backend(f"hf:{tiny_dir}", temperature=0.7)
    with pytest.raises(BackendError, match="batch_size"):
        create_backend(f"hf:{tiny_dir}", batch_size=0)
    with pytest.raises(BackendError, match="chat"):
        create_backend(f"hf:{tiny_dir}", chat="maybe")
    with pytest.raises(BackendError, match="revision= applies to hub ids"):
        create_backend(f"hf:{tiny_dir}", revision="main")
    with pytest.raises(BackendError, match="at revision v9"):
        create_backend("hf:no-such-org/no-such-model", revision="v9")
    with pytest.raises(BackendError, match="verify='all'"):
        create_backend(f"hf:{tiny_dir}", verify="all")
    with pytest.raises(BackendError, match="batch_size='big'"):
        create_backend(f"hf:{tiny_dir}", batch_size="big")
    with pytest.raises(BackendError, match="chat=true: the tokenizer has no chat template"):
        create_backend(f"hf:{tiny_dir}", chat=True)
    empty = tmp_path / "empty"
    empty.mkdir()
    backend = create_backend(f"hf:{empty}")
    with pytest.raises(BackendError, match="cannot load a causal language model"):
        list(backend.respond(make_requests(1)))


def test_end_to_end_run_picks_the_larger_logprob_in_each_order(tiny_dir):
    rr = run("winobias-uk", f"hf:{tiny_dir}", n_boot=50)
    preds = rr.predictions
    assert len(preds) == len(rr.dataset.table)
    assert rr.manifest["model"]["spec"] == f"hf:{tiny_dir}"
    assert rr.manifest["model"]["params"]["mode"] == "letters"
    for order in ("target_first", "distractor_first"):
        for answer, role in zip(preds[f"answer_{order}"], preds[f"role_{order}"], strict=True):
            a, b = (float(x) for x in answer.split()[1:])
            first, second = (
                order.split("_")[0],
                ("distractor" if order.startswith("t") else "target"),
            )
            assert role == (first if a > b else second)
    combined = preds.apply(
        lambda r: (
            r["role_target_first"]
            if r["role_target_first"] == r["role_distractor_first"]
            else "invalid"
        ),
        axis=1,
    )
    assert (combined == preds["prediction_role"]).all()


def test_cli_run_passes_the_mode_to_the_hf_backend(tiny_dir, tmp_path):
    from typer.testing import CliRunner

    from winoscope.cli import app

    out = tmp_path / "run"
    args = ["run", "winobias-uk", "--model", f"hf:{tiny_dir}", "--mode", "texts"]
    res = CliRunner().invoke(app, [*args, "--out", str(out), "-q", "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["model"]["spec"] == f"hf:{tiny_dir}"
    assert manifest["model"]["params"]["mode"] == "texts"
    assert manifest["request_errors"] == 0
    bad = CliRunner().invoke(app, ["run", "winobias-uk", "--model", f"hf:{tmp_path / 'nope'}"])
    assert bad.exit_code == 2
    assert "not a local directory" in bad.output


def test_letter_mass_summary_against_hand_counts():
    from winoscope.protocols.forced_choice import letter_mass_lines, letter_mass_summary
    from winoscope.records import Response

    masses = [0.9, 0.4, 0.2, 1.0, None]
    rs = [Response(f"r{i}", "hf", "m", letter_mass=m) for i, m in enumerate(masses)]
    summary = letter_mass_summary(rs)
    assert summary == {
        "requests": 4,
        "mean": 0.625,  # (0.9 + 0.4 + 0.2 + 1.0) / 4
        "below": 0.5,
        "requests_below": 2,
        "share_below": 0.5,
    }
    assert letter_mass_lines(summary) == [
        "- **Letter mass** (probability on the offered option letters): mean 0.625 over 4 "
        "requests; 50.0% (2) below 0.5"
    ]
    assert letter_mass_summary([Response("x", "hf", "m", option_logprobs=(-1.0, -2.0))]) is None
    assert letter_mass_lines(None) == []


def test_letter_mass_reaches_predictions_manifest_and_report(tiny_dir, tmp_path):
    rr = run("winobias-uk", f"hf:{tiny_dir}", n_boot=20, out=tmp_path / "run")
    preds = rr.predictions
    assert preds["letter_mass"].between(0, 1).all()
    summary = rr.manifest["letter_mass"]
    assert summary["requests"] == rr.manifest["requests"]
    # the row's mass is the mean over its two orders, so the means agree
    assert preds["letter_mass"].mean() == pytest.approx(summary["mean"], abs=1e-6)
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "**Letter mass**" in report
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert f"mean {summary['mean']:.3f} over {summary['requests']} requests" in html
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["letter_mass"] == summary
    texts = run("winobias-uk", f"hf:{tiny_dir}", n_boot=20, backend_options={"mode": "texts"})
    assert "letter_mass" not in texts.manifest and "letter_mass" not in texts.predictions
