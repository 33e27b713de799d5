"""``gemma:270m``: option handling and the missing-extra path (fast); the real model (slow).

The slow tests convert the packaged GGUF once into the user cache (or ``WINOSCOPE_CACHE_DIR``)
exactly as ``winoscope demo`` does, then reuse that copy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from winoscope.backends import create_backend
from winoscope.backends.hf import gemma
from winoscope.backends.hf.options import CLOZE_SCORING
from winoscope.errors import BackendError
from winoscope.records import Option, Request
from winoscope.studies.demo import GEMMA_SPEC, demo_models, gemma_note, run_demo


@pytest.fixture
def without_gemma_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without the extra: one of its modules cannot be found."""
    monkeypatch.setattr(
        gemma, "REQUIRED_MODULES", (*gemma.REQUIRED_MODULES, "winoscope_no_such_module")
    )


def test_spec_and_options_are_checked() -> None:
    with pytest.raises(BackendError, match=r"unknown Gemma model '7b' \(known: 270m\)"):
        create_backend("gemma:7b")
    with pytest.raises(BackendError, match="unknown option"):
        create_backend("gemma:270m", base_url="http://127.0.0.1:1")


@pytest.mark.gemma
def test_the_mode_is_checked() -> None:
    with pytest.raises(BackendError, match="mode="):
        create_backend("gemma:270m", mode="chat")


@pytest.mark.gemma
def test_params_name_the_weights_without_loading_them(tmp_path: Path) -> None:
    b = create_backend("gemma:270m", cache_dir=tmp_path)
    assert (b.kind, b.model) == ("gemma", "270m")
    assert b.params == {
        "mode": "cloze",
        "dtype": "float32",
        "weights": "gemma-3-270m Q4_K_M dequantised",
        "gguf_sha256": gemma.GGUF_SHA256,
        "cloze": CLOZE_SCORING,
    }
    assert create_backend("gemma:270m", mode="texts", cache_dir=tmp_path).params["prefix"] == " "
    assert not any(tmp_path.iterdir())  # nothing converted until the first request


def test_cache_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WINOSCOPE_CACHE_DIR", str(tmp_path / "c"))
    assert gemma.cache_root() == tmp_path / "c"
    # the GGUF's hash and the conversion's format (2: the tokenizer adds <bos> as the GGUF says)
    expected = tmp_path / "c" / "models" / "gemma-3-270m-f32-a5fd3b62230a-v2"
    assert gemma.float_model_dir() == expected
    monkeypatch.delenv("WINOSCOPE_CACHE_DIR")
    assert gemma.cache_root().name == "winoscope"


def test_a_finished_conversion_is_reused_and_a_partial_one_is_not(tmp_path: Path) -> None:
    target = gemma.float_model_dir(tmp_path)
    target.mkdir(parents=True)
    (target / "config.json").write_text("{}")
    assert not gemma.is_converted(tmp_path)  # no marker: an interrupted copy is not trusted
    (target / gemma.MARKER).write_text(json.dumps({"gguf_sha256": gemma.GGUF_SHA256}))
    said: list[str] = []
    assert gemma.ensure_float_model(tmp_path, notify=said.append) == target
    assert said == []


def test_missing_extra_is_one_clear_error(without_gemma_extra: None) -> None:
    with pytest.raises(BackendError) as info:
        create_backend("gemma:270m")
    assert "winoscope_no_such_module" in str(info.value)
    assert "pip install 'winoscope[gemma]'" in str(info.value)
    assert GEMMA_SPEC not in demo_models()
    assert "not installed" in gemma_note()


def test_demo_without_the_extra_runs_the_baselines_and_says_why(
    without_gemma_extra: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = run_demo(tmp_path / "demo", quiet=True, tasks=("winobias-uk",))
    assert "baseline:agreement" in table and GEMMA_SPEC not in table
    err = capsys.readouterr().err
    assert "Gemma 3 270M was skipped: its extra is not installed" in err
    assert "baselines only" in err
    readme = (tmp_path / "demo" / "README.md").read_text(encoding="utf-8")
    assert "pip install 'winoscope[gemma]'" in readme


@pytest.mark.gemma
def test_baselines_only_leaves_gemma_out() -> None:
    assert GEMMA_SPEC in demo_models()
    assert demo_models(lm=False) == [m for m in demo_models() if m != GEMMA_SPEC]
    assert gemma_note(lm=False) == "Gemma 3 270M was not asked (baselines only). "


@pytest.mark.gemma
def test_a_gguf_file_is_parsed_once_while_converting(monkeypatch: pytest.MonkeyPatch) -> None:
    """transformers asks three times for the same file; inside ``gguf_read_once`` the reader
    and the metadata are made once (the metadata handed out as copies), and the real
    functions are back afterwards."""
    import gguf as gguf_package
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    made: list[str] = []
    loads: list[tuple[str, bool]] = []

    def fake_reader(path: str, mode: str = "r") -> object:
        made.append(path)
        return object()

    def fake_load(path: str, return_tensors: bool = False, **kw: object) -> dict[str, object]:
        loads.append((path, return_tensors))
        return {"config": {"model_type": "gemma3", "tokens": ["a", "b"]}}

    monkeypatch.setattr(gguf_package, "GGUFReader", fake_reader)
    monkeypatch.setattr(gguf_utils, "load_gguf_checkpoint", fake_load)
    with gemma.gguf_read_once():
        first, again = gguf_package.GGUFReader("m.gguf"), gguf_package.GGUFReader("m.gguf")
        one = gguf_utils.load_gguf_checkpoint("m.gguf", return_tensors=False)
        one["config"]["tokens"].append("changed by a caller")
        two = gguf_utils.load_gguf_checkpoint("m.gguf", return_tensors=False)
        gguf_utils.load_gguf_checkpoint("m.gguf", return_tensors=True)
    assert first is again and made == ["m.gguf"]
    assert two["config"]["tokens"] == ["a", "b"]
    assert loads == [("m.gguf", False), ("m.gguf", True)]  # the weights are always read
    assert gguf_package.GGUFReader is fake_reader
    assert gguf_utils.load_gguf_checkpoint is fake_load


# -- the real model ------------------------------------------------------------------------


def _request(rid: str, prompt: str, a: str, b: str) -> Request:
    return Request(
        request_id=rid,
        kind="choice",
        prompt=prompt,
        options=(Option("A", a, "target"), Option("B", b, "distractor")),
        row_id=rid,
        item_id=rid,
    )


@pytest.fixture(scope="module")
def gemma_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh conversion into a temporary cache, as on a new machine; runs see only that cache.
    Its tests are marked ``gemma``: skipped without the extra, required in CI's main run."""
    import torch

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("winoscope-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WINOSCOPE_CACHE_DIR", str(root))
        said: list[str] = []
        path = gemma.ensure_float_model(notify=said.append)
        assert path == gemma.float_model_dir(root)
        assert (
            said[0].startswith("Converting Gemma 3 270M") and said[-1] == "Gemma 3 270M converted."
        )
        assert not any(p.name.startswith(".converting-") for p in path.parent.iterdir())
        yield path


@pytest.mark.gemma
def test_the_converted_tokenizer_adds_bos_as_the_gguf_says(
    gemma_dir: Path, tmp_path: Path
) -> None:
    """The copy adds <bos> whichever transformers converted it: transformers before 5.20 read
    the GGUF's tokenizer without its BOS template, and a copy saved as it came tokenised every
    text one token shorter (another score under the same cache folder, depending on which
    environment converted first). ``save_tokenizer`` sets the template; the folder's name
    carries the conversion's format, so an older copy is not reused."""
    from tokenizers.processors import TemplateProcessing
    from transformers import AutoTokenizer

    assert gemma_dir.name.endswith(f"-v{gemma.CONVERSION_FORMAT}")
    assert json.loads((gemma_dir / gemma.MARKER).read_text())["format"] == 2
    tok = AutoTokenizer.from_pretrained(gemma_dir)
    assert tok("a").input_ids[0] == tok.bos_token_id == 2
    # a tokenizer read as transformers < 5.20 reads the GGUF: no BOS in its template
    tok.backend_tokenizer.post_processor = TemplateProcessing(single="$A", pair="$A $B:1")
    assert tok("a").input_ids[0] != 2
    gemma.save_tokenizer(tok, tmp_path / "fixed", add_bos=True)
    assert AutoTokenizer.from_pretrained(tmp_path / "fixed")("a").input_ids[0] == 2
    # saved as it came (what format 1 did) it would not add it: the check names the mismatch
    tok.backend_tokenizer.post_processor = TemplateProcessing(single="$A", pair="$A $B:1")
    tok.save_pretrained(tmp_path / "plain")
    assert AutoTokenizer.from_pretrained(tmp_path / "plain")("a").input_ids[0] != 2


@pytest.mark.slow
@pytest.mark.gemma
def test_converted_gemma_scores_like_a_plain_reference(gemma_dir: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    said: list[str] = []
    assert gemma.ensure_float_model(notify=said.append) == gemma_dir and said == []
    marker = json.loads((gemma_dir / gemma.MARKER).read_text())
    assert marker["gguf_sha256"] == gemma.GGUF_SHA256

    reqs = [
        _request("capital", "The capital of France is the city of", "Paris", "London"),
        _request(
            "uk",
            "Столиця України — місто",
            "Київ",
            "Лондон",
        ),
        _request(
            "letters",
            "Question: which is a fruit?\nA. apple\nB. table\nAnswer (A or B):",
            "apple",
            "table",
        ),
    ]
    texts = {
        r.request_id: r.option_logprobs
        for r in create_backend("gemma:270m", mode="texts").respond(reqs)
    }
    letter_responses = {
        r.request_id: r
        for r in create_backend("gemma:270m", mode="letters", batch_size=2).respond(reqs)
    }
    letters = {k: r.option_logprobs for k, r in letter_responses.items()}
    cloze = {
        r.request_id: r
        for r in create_backend("gemma:270m", batch_size="auto").respond(
            [
                Request(
                    r.request_id,
                    "cloze",
                    r.prompt,
                    tuple(Option(o.label, " " + o.text, o.role) for o in r.options),
                    r.row_id,
                    r.item_id,
                )
                for r in reqs
            ]
        )
    }

    tok = AutoTokenizer.from_pretrained(gemma_dir)
    model = AutoModelForCausalLM.from_pretrained(gemma_dir, dtype=torch.float32).eval()

    def reference(prompt: str, continuation: str) -> float:
        p = tok(prompt)["input_ids"]
        c = tok(continuation, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=torch.tensor([p + c])).logits[0], dim=-1)
        return sum(float(logp[len(p) + k - 1, c[k]]) for k in range(len(c)))

    def letter_reference(prompt: str, label: str) -> float:
        """log of the summed probability of the label's one-token spellings."""
        twins = {"A": "А", "B": "В"}
        forms = [label, " " + label]
        if any("\u0400" <= ch <= "\u04ff" for ch in prompt):
            forms += [twins[label], " " + twins[label]]
        ids = {
            t[0]
            for t in (tok(f, add_special_tokens=False)["input_ids"] for f in forms)
            if len(t) == 1
        }
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([tok(prompt)["input_ids"]])).logits[0, -1]
        p = torch.softmax(logits.double(), dim=-1)
        return math.log(sum(float(p[i]) for i in ids))

    for req in reqs:
        # Gemma's tokenizer adds BOS: lm-eval's cloze context starts with it, as here
        assert tok(req.prompt)["input_ids"][0] == tok.bos_token_id
        want_texts = [reference(req.prompt, " " + o.text) for o in req.options]
        want_letters = [letter_reference(req.prompt, o.label) for o in req.options]
        # cloze continuations " Paris": lm-eval's split of "… of Paris" gives the same ids
        assert texts[req.request_id] == pytest.approx(want_texts, abs=2e-3)
        assert letters[req.request_id] == pytest.approx(want_letters, abs=2e-3)
        assert 0 < (letter_responses[req.request_id].letter_mass or 0) <= 1
        assert cloze[req.request_id].option_logprobs == pytest.approx(want_texts, abs=2e-3)
        assert cloze[req.request_id].option_token_counts == tuple(
            len(tok(" " + o.text, add_special_tokens=False)["input_ids"]) for o in req.options
        )
    # real weights, not noise: the model knows the capitals
    assert texts["capital"][0] > texts["capital"][1] + 1.0
    assert texts["uk"][0] > texts["uk"][1] + 1.0
    assert all(math.isfinite(v) and v < 0 for v in letters["letters"])


@pytest.mark.slow
@pytest.mark.gemma
def test_demo_puts_gemma_beside_the_baselines(gemma_dir: Path, tmp_path: Path) -> None:
    table = run_demo(tmp_path / "demo", quiet=True, tasks=("winobias-uk",))
    rows = {line.split(" | ")[0].lstrip("| "): line for line in table.splitlines() if " | " in line}
    assert GEMMA_SPEC in rows and "baseline:agreement" in rows
    readme = (tmp_path / "demo" / "README.md").read_text(encoding="utf-8")
    assert "scored by cloze" in readme
    manifest = json.loads(
        (tmp_path / "demo" / "winobias-uk__gemma_270m" / "manifest.json").read_text()
    )
    assert manifest["model"]["spec"] == GEMMA_SPEC
    assert manifest["model"]["params"]["gguf_sha256"] == gemma.GGUF_SHA256
    assert manifest["request_errors"] == 0
    assert manifest["protocol"] == "cloze" and manifest["model"]["params"]["mode"] == "cloze"
    assert manifest["requests"] == 76  # the bundled sample's rows, one cloze request each
    assert rows[GEMMA_SPEC].split(" | ")[1] == "cloze"


@pytest.mark.slow
@pytest.mark.gemma
def test_leaderboard_methods_on_gemma_match_their_definition(
    gemma_dir: Path, tmp_path: Path
) -> None:
    """WinoBias-UK and WinoPron-UK (raw) by the leaderboard's methods, per option against the
    definition written out in ``board_reference``, within 1e-5 (the first items of each
    stratum: --limit 1; WinoPron's first 16 prompts). The converted GGUF has no chat template,
    so ``auto`` renders WinoBias raw too. Unbatched (batch_size=1), as the reference runs: in
    float32 a batch's other shapes move a mean by up to ~1.5e-5 on this model."""
    import pandas as pd
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import winoscope
    from board_reference import letter_means, winobias_reference

    tok = AutoTokenizer.from_pretrained(gemma_dir)
    model = AutoModelForCausalLM.from_pretrained(gemma_dir, dtype=torch.float32).eval()
    method = "counterbalanced_ab_mean_token_logprob_v1"
    one = {"batch_size": 1}
    winoscope.run("winobias-uk", "gemma:270m", protocol=method, n_boot=0, limit=1,
                  out=tmp_path / "wb", backend_options=one)  # fmt: skip
    pred = pd.read_parquet(tmp_path / "wb" / "predictions.parquet").dropna(
        subset=["mean_logprob_A"]
    )
    ref = winobias_reference(tok, model, pred)
    both = pred.merge(ref, on="row_id", validate="one_to_one")
    assert len(both) >= 6
    assert (both["mean_logprob_A"] - both["ref_A"]).abs().max() < 1e-5
    assert (both["mean_logprob_B"] - both["ref_B"]).abs().max() < 1e-5
    assert both["prediction_role"].astype(str).tolist() == both["ref_role"].tolist()

    raw = "counterbalanced_ab_mean_token_logprob_raw_v2"
    winoscope.run("winopron-uk", "gemma:270m", protocol=raw, n_boot=0, limit=1,
                  out=tmp_path / "wp", backend_options=one)  # fmt: skip
    rows = pd.read_parquet(tmp_path / "wp" / "predictions.parquet")
    prompts = pd.read_csv(_winopron_prompts(), dtype=str)
    worst, seen = 0.0, 0
    for p in prompts.to_dict("records"):
        key = f"{p['context']}/{p['row_id']}"
        got = rows[rows["row_key"] == key]
        if seen >= 16:
            break
        if got.empty or pd.isna(got.iloc[0].get(f"mean_logprob_{p['option_order']}_A")):
            continue
        means = letter_means(tok, model, p["prompt_uk"].strip(), "raw")
        for letter in "AB":
            worst = max(
                worst,
                abs(got.iloc[0][f"mean_logprob_{p['option_order']}_{letter}"] - means[letter]),
            )
        seen += 1
    assert seen >= 4 and worst < 1e-5


def _winopron_prompts() -> Path:
    from winoscope.families.winopron.dataset import UK

    return Path(UK.columns.sample_paths()["forced_choice"])
