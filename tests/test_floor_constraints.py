"""constraints/floor.txt (CI's floor environment) and pyproject.toml cannot drift apart: every
direct dependency of winoscope and of the extras the file names is pinned there at the lowest
version pyproject admits, or the file says why the pin is higher; no pin leaves its range."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
FLOOR = ROOT / "constraints" / "floor.txt"


def direct_requirements(project: dict, extras: list[str]) -> dict[str, Requirement]:
    """winoscope's own requirements and those of ``extras``, following ``winoscope[...]``."""
    optional = project.get("optional-dependencies", {})
    lines = [*project["dependencies"], *(f"winoscope[{e}]" for e in extras)]
    found: dict[str, Requirement] = {}
    seen: set[str] = set()
    for line in lines:  # grows while it is read: winoscope[...] adds its extras' lines
        req = Requirement(line)
        name = canonicalize_name(req.name)
        if name == "winoscope":
            for extra in sorted(req.extras - seen):
                seen.add(extra)
                lines.extend(optional[extra])
            continue
        if name in found:  # named twice (two extras): both ranges hold
            req.specifier &= found[name].specifier
        found[name] = req
    return found


def floor_of(req: Requirement) -> Version | None:
    lows = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=")]
    return max(lows) if lows else None


def read_floor(text: str) -> tuple[list[str] | None, dict[str, str], dict[str, Version]]:
    """The file's extras, its documented raises (name -> reason) and its pins."""
    extras: list[str] | None = None
    raised: dict[str, str] = {}
    pins: dict[str, Version] = {}
    for line in text.splitlines():
        if line.startswith("# extras:"):
            extras = line.split(":", 1)[1].split()
        elif m := re.match(r"# raised: ([A-Za-z0-9._-]+)==(\S+): (.+)", line):
            raised[canonicalize_name(m[1])] = m[3]
        elif line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = Version(version.strip())
    return extras, raised, pins


def drift(pyproject: dict, floor_text: str) -> list[str]:
    """Every way the two disagree, one line each (empty: they agree)."""
    extras, raised, pins = read_floor(floor_text)
    if extras is None:
        return ["no '# extras:' line"]
    problems = []
    for name, req in sorted(direct_requirements(pyproject["project"], extras).items()):
        pin = pins.get(name)
        low = floor_of(req)
        if pin is None:
            problems.append(f"{name}: not pinned")
        elif not req.specifier.contains(pin, prereleases=True):
            problems.append(f"{name}=={pin}: outside pyproject's {req.specifier}")
        elif low is not None and Version(pin.public) != low and name not in raised:
            problems.append(f"{name}=={pin}: pyproject's floor is {low}, and no '# raised:' reason")
    for name in sorted(raised):
        if name not in pins:
            problems.append(f"{name}: a '# raised:' line but no pin")
    return problems


def test_the_floor_file_pins_every_direct_dependency_at_pyprojects_floor() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert drift(pyproject, FLOOR.read_text(encoding="utf-8")) == []
    _, _, pins = read_floor(FLOOR.read_text(encoding="utf-8"))
    assert Version("4.56") <= pins["transformers"] < Version("4.58")  # the 4.x line users have


@pytest.mark.parametrize(
    ("pyproject_line", "pin", "expected"),
    [
        ("numpy>=1.26", "numpy==1.26.0", []),  # 1.26 and 1.26.0 are one version
        ("numpy>=1.27", "numpy==1.26.0", ["numpy==1.26.0: outside pyproject's >=1.27"]),
        (
            "numpy>=1.25",
            "numpy==1.26.0",
            ["numpy==1.26.0: pyproject's floor is 1.25, and no '# raised:' reason"],
        ),
        ("numpy>=1.26,<2", "numpy==2.0.0", ["numpy==2.0.0: outside pyproject's <2,>=1.26"]),
        ("numpy>=1.26", "# numpy==1.26.0", ["numpy: not pinned"]),
    ],
)
def test_a_drift_is_named(pyproject_line: str, pin: str, expected: list[str]) -> None:
    pyproject = {"project": {"dependencies": [pyproject_line], "optional-dependencies": {}}}
    assert drift(pyproject, f"# extras:\n{pin}\n") == expected
    assert drift(pyproject, f"{pin}\n") == ["no '# extras:' line"]


def test_extras_are_followed_and_a_raise_needs_its_reason() -> None:
    project = {
        "project": {
            "dependencies": ["typer>=0.13"],
            "optional-dependencies": {
                "hf": ["torch>=2.4"],
                "peft": ["winoscope[hf]", "peft>=0.13"],
                "gemma": ["gguf>=0.10"],
            },
        }
    }
    pins = "typer==0.13.0\npeft==0.13.0\ntorch==2.13.0+cpu\n"
    assert drift(project, "# extras: peft\n" + pins) == [
        "torch==2.13.0+cpu: pyproject's floor is 2.4, and no '# raised:' reason"
    ]
    reason = "# raised: torch==2.13.0+cpu: the CPU build here\n"
    assert drift(project, "# extras: peft\n" + reason + pins) == []
    assert drift(project, "# extras: peft\n# raised: gguf==1.0: why\n" + pins)[-1] == (
        "gguf: a '# raised:' line but no pin"
    )
