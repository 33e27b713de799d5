"""A command whose optional dependency is missing says which extra installs it."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from winoscope.datasets.sources import load_hub_table
from winoscope.errors import WinoscopeError
from winoscope.extras import MissingExtra, require
from winoscope.occupations.scan.streams import open_stream


@pytest.fixture
def hidden(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Make modules look uninstalled (a None entry in sys.modules stops their import)."""

    def hide(*modules: str) -> None:
        for m in modules:
            monkeypatch.setitem(sys.modules, m, None)

    return hide


def test_hub_reader_names_the_hub_extra(hidden, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hidden("datasets")
    with pytest.raises(MissingExtra, match=r"hub needs the package datasets.*winoscope\[hub\]"):
        load_hub_table(str(tmp_path))


def test_zst_reader_names_the_corpus_extra(hidden, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hidden("zstandard")
    path = tmp_path / "c.txt.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd")
    with pytest.raises(MissingExtra, match=r"\.zst corpus file needs .*winoscope\[corpus\]"):
        open_stream(str(path))
    plain = tmp_path / "c.txt"
    plain.write_bytes(b"a line\n")
    with open_stream(str(plain)) as fh:  # plain text needs no extra
        assert fh.read() == b"a line\n"


def test_missing_extra_is_a_winoscope_error_that_survives_pickling(hidden) -> None:  # type: ignore[no-untyped-def]
    hidden("ahocorasick_rs")
    with pytest.raises(MissingExtra) as info:
        require("ahocorasick_rs", "scanning a corpus")
    err = info.value
    assert isinstance(err, WinoscopeError)
    assert str(err) == (
        "scanning a corpus needs the package ahocorasick-rs, which is not installed: "
        "pip install 'winoscope[corpus]'"
    )
    again = pickle.loads(pickle.dumps(err))  # raised in a scan worker, shown by the parent
    assert (type(again), str(again)) == (MissingExtra, str(err))


def test_a_broken_dependency_of_an_installed_module_is_not_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the module is installed but what it imports is not: that error is passed on as it is
    (tmp_path / "winoscope_test_pkg.py").write_text("import winoscope_test_absent\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="winoscope_test_absent"):
        require("winoscope_test_pkg", "x")


def test_run_from_the_hub_without_the_extra_says_which_to_install(hidden) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from winoscope.cli import app

    hidden("datasets")
    res = CliRunner().invoke(
        app,
        [
            "run",
            "winobias-uk",
            "-m",
            "baseline:agreement",
            "--data",
            "FairForget/WinoBias-UK-Natural",
        ],
    )
    assert res.exit_code == 2
    assert "pip install 'winoscope[hub]'" in res.output


def test_hf_backend_without_torch_names_the_extra(tmp_path: Path) -> None:
    """Without torch, ``hf:`` says which extra installs it instead of a bare import error."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from winoscope.backends import create_backend\n"
        "from winoscope.extras import MissingExtra\n"
        "try:\n"
        f"    create_backend('hf:{tmp_path}')\n"
        "except MissingExtra as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'winoscope[hf]'" in out.stdout, out.stdout + out.stderr
