"""Backend options: ``-M key=value`` parsing, merging with the run command's flags, and every
backend rejecting an option it does not know, by name, with the options it knows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from winoscope.backends import create_backend
from winoscope.backends.options import backend_options, parse_model_arg, parse_model_args
from winoscope.cli import app
from winoscope.errors import BackendError
from winoscope.runs.runner import run


@pytest.mark.parametrize(
    ("item", "key", "value"),
    [
        ("batch_size=16", "batch_size", 16),
        ("temperature=0.7", "temperature", 0.7),
        ("chat=false", "chat", False),
        ("trust_remote_code=true", "trust_remote_code", True),
        ("threads=null", "threads", None),
        ('device_map={"": 0}', "device_map", {"": 0}),
        ('stop=["\\n", "."]', "stop", ["\n", "."]),
        ("dtype=bfloat16", "dtype", "bfloat16"),  # not JSON: the string
        ("system=Answer with one letter.", "system", "Answer with one letter."),
        ('revision="2024"', "revision", "2024"),  # a JSON string stays a string
        ("revision=2024", "revision", 2024),
        ("prefix=", "prefix", ""),
        ("url=http://h/v1?a=b", "url", "http://h/v1?a=b"),  # only the first = splits
        ("max-new-tokens=8", "max_new_tokens", 8),  # dashes read as underscores
    ],
)
def test_values_are_json_when_they_parse(item: str, key: str, value: object) -> None:
    assert parse_model_arg(item) == (key, value)


@pytest.mark.parametrize("item", ["dtype", "=3", "1x=2", "a b=1", ""])
def test_bad_syntax_is_an_error(item: str) -> None:
    with pytest.raises(BackendError, match=r"expected key=value"):
        parse_model_arg(item)


def test_a_key_twice_and_the_seed_are_errors() -> None:
    with pytest.raises(BackendError, match="batch_size is given twice"):
        parse_model_args(["batch_size=1", "batch_size=2"])
    with pytest.raises(BackendError, match="set it with --seed"):
        parse_model_args(["seed=3"])
    assert parse_model_args(None) == {}


def test_flags_and_model_args_are_one_set_of_options() -> None:
    # a flag not given is no option at all (the backend's own default applies)
    assert backend_options(None, concurrency=None, timeout=None) == {}
    assert backend_options(["concurrency=8"], timeout=30.0, mode=None) == {
        "timeout": 30.0,
        "concurrency": 8,
    }
    with pytest.raises(BackendError, match="--concurrency and -M concurrency"):
        backend_options(["concurrency=8"], concurrency=8)
    with pytest.raises(BackendError, match="--max-tokens and -M max_tokens"):
        backend_options(["max-tokens=4"], max_tokens=16)  # the flag's default is no excuse


def test_a_flag_the_backend_does_not_take_is_refused_not_ignored() -> None:
    """--concurrency, --base-url ... reach every backend as options, and a backend that does
    not take one says so (the flags were once dropped silently for every backend but openai)."""
    cli = CliRunner()
    res = cli.invoke(
        app, ["run", "winobias-uk", "-m", "baseline:agreement", "--concurrency", "4", "-q"]
    )
    assert res.exit_code == 2, res.output
    assert "baseline backend: unknown option(s) concurrency (known: seed)" in res.output
    res = cli.invoke(
        app,
        ["run", "winobias-uk", "-m", "baseline:agreement", "--base-url", "http://x/v1", "-q"],
    )
    assert res.exit_code == 2, res.output
    assert "unknown option(s) base_url" in res.output


KNOWN = {
    "baseline:agreement": ("baseline", "seed"),
    "nli-baseline:overlap": ("nli-baseline", "seed, threshold"),
    "gemma:270m": ("gemma", "mode"),
    "openai:m": ("openai", "temperature"),
}


@pytest.mark.parametrize("spec", sorted(KNOWN))
def test_every_backend_rejects_an_unknown_option(spec: str) -> None:
    kind, known = KNOWN[spec]
    with pytest.raises(BackendError) as info:
        create_backend(spec, seed=0, temprature=0.7)
    message = str(info.value)
    assert message.startswith(f"{kind} backend: unknown option(s) temprature (known: ")
    assert known in message


def test_hf_and_file_reject_before_touching_the_model(tmp_path: Path) -> None:
    # rejected before the model directory or the output file is even looked at
    with pytest.raises(BackendError, match=r"^hf backend: unknown option\(s\) temprature .*dtype"):
        create_backend(f"hf:{tmp_path / 'absent'}", temprature=0.7)
    with pytest.raises(
        BackendError, match=r"^file backend: unknown option\(s\) mode \(known: seed\)"
    ):
        create_backend(f"file:{tmp_path / 'absent.jsonl'}", mode="texts")


def test_python_api_backend_options_reach_the_factory(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="baseline backend: unknown option"):
        run("winobias-uk", "baseline:agreement", backend_options={"threshold": 0.3})
    rr = run(
        "swewinogender/nli",
        "nli-baseline:overlap",
        backend_options={"threshold": 0.25},
        n_boot=10,
    )
    assert rr.manifest["model"]["params"]["threshold"] == 0.25


def test_cli_model_arg_reaches_the_backend(tmp_path: Path) -> None:
    cli = CliRunner()
    out = tmp_path / "run"
    res = cli.invoke(
        app,
        ["run", "swewinogender/nli", "-m", "nli-baseline:overlap", "-M", "threshold=0.25",
         "--out", str(out), "--bootstrap", "10", "-q"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"]["params"]["threshold"] == 0.25

    res = cli.invoke(app, ["run", "winobias-uk", "-m", "baseline:agreement", "-M", "foo=1", "-q"])
    assert res.exit_code == 2
    assert "baseline backend: unknown option(s) foo (known: seed)" in res.output
    res = cli.invoke(app, ["run", "winobias-uk", "-m", "baseline:agreement", "-M", "foo", "-q"])
    assert res.exit_code == 2
    assert "expected key=value" in res.output


def test_cli_flag_and_model_arg_for_the_same_option_is_an_error() -> None:
    res = CliRunner().invoke(
        app,
        ["run", "winobias-uk", "-m", "openai:m", "--concurrency", "4", "-M", "concurrency=8"],
    )
    assert res.exit_code == 2
    assert "--concurrency and -M concurrency" in res.output
