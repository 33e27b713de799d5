"""``winoscope env`` and the manifest's environment block: versions from the installed
metadata, extras usable or not with the reason, torch's devices, nothing heavy imported where
the answer does not need it."""

from __future__ import annotations

import importlib.metadata as metadata
import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import winoscope
from winoscope.cli import app
from winoscope.environment import environment_text, extra_requirements, extras_status

REQUIRES = [
    "numpy>=1.26",
    'torch>=2.4; extra == "hf"',
    'transformers<6,>=4.56; extra == "hf"',
    'winoscope[hf]; extra == "peft"',
    'peft>=0.13; extra == "peft"',
    'winoscope[peft,hub]; extra == "everything"',
    'datasets>=2.18; extra == "hub"',
    'winoscope[loop]; extra == "loop"',
    "winoscope[loop] ; extra == 'loop'",
    'pytest (>=8) ; python_version >= "3.11" and extra == "test"',
]


def test_extras_are_read_from_the_metadata_following_winoscope_extras() -> None:
    assert extra_requirements(REQUIRES) == {
        "everything": [
            ("torch", ">=2.4"),
            ("transformers", "<6,>=4.56"),
            ("peft", ">=0.13"),
            ("datasets", ">=2.18"),
        ],
        "hf": [("torch", ">=2.4"), ("transformers", "<6,>=4.56")],
        "hub": [("datasets", ">=2.18")],
        "loop": [],  # an extra naming itself ends
        "peft": [("torch", ">=2.4"), ("transformers", "<6,>=4.56"), ("peft", ">=0.13")],
        "test": [("pytest", ">=8")],
    }


def test_an_extra_is_usable_or_says_what_is_missing_or_out_of_range() -> None:
    pytest_version = metadata.version("pytest")
    status = extras_status(
        [
            'pytest>=1; extra == "ok"',
            'pytest>=999; extra == "old"',
            'Winoscope_No.Such-Dist>=1; extra == "absent"',
            'winoscope[old,absent]; extra == "both"',
        ]
    )
    assert status == {
        "absent": {"usable": False, "missing": ["winoscope-no-such-dist not installed"]},
        "both": {
            "usable": False,
            "missing": [
                f"pytest {pytest_version} installed, >=999 needed",
                "winoscope-no-such-dist not installed",
            ],
        },
        "ok": {"usable": True},
        "old": {"usable": False, "missing": [f"pytest {pytest_version} installed, >=999 needed"]},
    }


def test_env_prints_the_installed_versions_as_json_and_text() -> None:
    result = CliRunner().invoke(app, ["env", "--json"])
    assert result.exit_code == 0, result.output
    block = json.loads(result.output)
    assert block["winoscope"] == winoscope.__version__
    assert block["python"]["version"] == platform.python_version()
    assert block["platform"]["machine"] == platform.machine()
    for name in ("numpy", "pandas", "scipy"):
        assert block["packages"][name] == metadata.version(name)
    assert set(block["extras"]) >= {"hf", "peft", "hub", "corpus"}
    torch = block["torch"]
    if torch is not None:  # the command imports torch for its build and devices
        import torch as torch_module

        assert torch["version"] == torch_module.__version__ == block["packages"]["torch"]
        assert torch["cuda_available"] == torch_module.cuda.is_available()
        assert len(torch["devices"]) == (
            torch_module.cuda.device_count() if torch["cuda_available"] else 0
        ) + int(torch_module.backends.mps.is_available())
    text = CliRunner().invoke(app, ["env"]).output
    assert text.splitlines()[0] == f"winoscope {winoscope.__version__}"
    assert f"numpy {metadata.version('numpy')}" in text.splitlines()
    assert "extras:" in text


def test_the_text_names_devices_and_why_an_extra_is_not_usable() -> None:
    block = {
        "winoscope": "9.9",
        "python": {"version": "3.11.7", "implementation": "CPython"},
        "platform": {"platform": "Linux-x", "machine": "aarch64", "cpus": 72},
        "packages": {"torch": "2.9.1+cu128", "vllm": None},
        "torch": {
            "version": "2.9.1+cu128",
            "cuda_build": "12.8",
            "cudnn": 91002,
            "cuda_available": True,
            "devices": [
                {
                    "device": "cuda:0",
                    "name": "NVIDIA GH200 480GB",
                    "memory_gib": 94.5,
                    "capability": "9.0",
                },
            ],
        },
        "extras": {
            "hf": {"usable": True},
            "gemma": {
                "usable": False,
                "missing": ["gguf not installed", "transformers 4.57.6 installed, <6,>=5.0 needed"],
            },
        },
    }
    assert environment_text(block).splitlines() == [
        "winoscope 9.9",
        "Python 3.11.7 (CPython)",
        "platform Linux-x (aarch64, 72 CPUs)",
        "torch 2.9.1+cu128",
        "  CUDA build 12.8, cuDNN 91002",
        "  CUDA available: yes",
        "  cuda:0: NVIDIA GH200 480GB (94.5 GiB, compute capability 9.0)",
        "vllm not installed",
        "extras:",
        "  hf: usable",
        "  gemma: not usable (gguf not installed; transformers 4.57.6 installed, <6,>=5.0 needed)",
    ]


def test_a_run_manifest_holds_the_block_without_loading_torch(tmp_path: Path) -> None:
    """A baseline run needs no torch: its manifest names torch's version from the metadata
    and says the devices were not read, and the process never imports torch or transformers."""
    code = (
        "import json, sys, winoscope\n"
        f"rr = winoscope.run('winobias-uk', 'baseline:agreement', out={str(tmp_path / 'r')!r},"
        " n_boot=20)\n"
        "print(json.dumps({'env': rr.manifest['environment'],"
        " 'loaded': sorted(m for m in ('torch', 'transformers') if m in sys.modules)}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["loaded"] == []
    env = got["env"]
    on_disk = json.loads((tmp_path / "r" / "manifest.json").read_text())["environment"]
    assert on_disk == env
    assert env["winoscope"] == winoscope.__version__
    assert env["packages"]["pandas"] == metadata.version("pandas")
    assert set(env) == {"winoscope", "python", "platform", "packages", "torch", "extras"}
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        assert env["torch"] is None
    else:
        assert env["torch"] == {
            "version": torch_version,
            "devices": "not read (torch was not loaded)",
        }


def test_where_torch_is_loaded_the_block_reads_its_build_and_devices() -> None:
    torch = pytest.importorskip("torch")
    from winoscope.environment import environment

    info = environment()["torch"]
    assert info["version"] == torch.__version__
    assert info["cuda_build"] == torch.version.cuda
    assert info["cuda_available"] == torch.cuda.is_available()
    assert isinstance(info["devices"], list)
