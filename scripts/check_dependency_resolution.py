"""Check that installing winoscope[hf] keeps an environment's own torch and transformers.

A cluster's Python environment has its PyTorch (e.g. 2.9.1 built for CUDA 12.8) and its
transformers fixed by the site. This script builds such an environment cheaply and honestly:

1. it asks pip (``install --dry-run --ignore-installed --report``) what the site stack
   ``torch==2.9.1`` + ``transformers==4.57.1`` consists of, with every dependency, and takes
   each package's real core metadata from that report (only metadata is fetched, no wheel);
2. it writes each of those packages into a fresh virtual environment as an installed
   distribution: a ``NAME-VERSION.dist-info`` folder with METADATA, INSTALLER and RECORD, which
   is all pip reads to decide what is installed (torch's version carries the ``+cu128`` label
   a CUDA build has);
3. it asks that environment's pip what ``pip install --dry-run --report '.[hf]'`` would do and
   fails if the plan installs torch or transformers, or replaces any package already there.

    python scripts/check_dependency_resolution.py            # exit 0 when the stack is kept
    python scripts/check_dependency_resolution.py --extra gemma --keep /tmp/site-env

It needs the package index (metadata only) and takes one to three minutes.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SITE_STACK = ("torch==2.9.1", "transformers==4.57.1")
# the local version label of a CUDA build, as `pip list` shows it on such a cluster
LOCAL_LABELS = {"torch": "+cu128"}
MUST_KEEP = ("torch", "transformers")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip(python: Path, *args: str) -> None:
    cmd = [str(python), "-m", "pip", "--disable-pip-version-check", *args]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"pip failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-3000:]}")


def report(python: Path, out: Path, *args: str) -> dict[str, Any]:
    pip(python, "install", "--dry-run", "--quiet", "--report", str(out), *args)
    return json.loads(out.read_text(encoding="utf-8"))


def metadata_text(meta: dict[str, Any], version: str) -> str:
    """Core metadata (the email-header format of METADATA) from the report's JSON form."""
    lines = [f"Metadata-Version: {meta.get('metadata_version', '2.1')}"]
    lines.append(f"Name: {meta['name']}")
    lines.append(f"Version: {version}")
    if meta.get("requires_python"):
        lines.append(f"Requires-Python: {meta['requires_python']}")
    lines += [f"Requires-Dist: {r}" for r in meta.get("requires_dist", [])]
    lines += [f"Provides-Extra: {e}" for e in meta.get("provides_extra", [])]
    return "\n".join(lines) + "\n"


def install_as_metadata(site: Path, items: list[dict[str, Any]]) -> dict[str, str]:
    """Write one dist-info folder per package; returns name -> installed version."""
    installed: dict[str, str] = {}
    for item in items:
        meta = item["metadata"]
        name = canonical(meta["name"])
        version = meta["version"] + LOCAL_LABELS.get(name, "")
        info = site / f"{meta['name'].replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(metadata_text(meta, version), encoding="utf-8")
        (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
        record = [f"{info.name}/{f},," for f in ("METADATA", "INSTALLER", "RECORD")]
        (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")
        installed[name] = version
    return installed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extra", default="hf", help="winoscope extra to install (default: hf)")
    ap.add_argument("--keep", type=Path, help="build the environment here and keep it")
    ap.add_argument("--json", type=Path, help="also write the result as JSON here")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="winoscope-deps-") as tmp:
        env = args.keep or Path(tmp) / "site-env"
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        python = env / "bin" / "python"
        site = Path(
            subprocess.run(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        stack = report(python, Path(tmp) / "stack.json", "--ignore-installed", *SITE_STACK)
        installed = install_as_metadata(site, stack["install"])
        print(
            f"site stack written as installed metadata: {len(installed)} packages, "
            + ", ".join(f"{n} {installed[n]}" for n in MUST_KEEP)
        )
        plan = report(python, Path(tmp) / "plan.json", f"{ROOT}[{args.extra}]")

    planned = {canonical(i["metadata"]["name"]): i["metadata"]["version"] for i in plan["install"]}
    replaced = {n: (installed[n], v) for n, v in planned.items() if n in installed}
    result = {
        "site_stack": {n: installed[n] for n in MUST_KEEP},
        "extra": args.extra,
        "would_install": planned,
        "would_replace": {n: {"installed": a, "planned": b} for n, (a, b) in replaced.items()},
        "kept": all(n not in planned for n in MUST_KEEP) and not replaced,
    }
    print(
        f"pip install '.[{args.extra}]' would install {len(planned)} packages: "
        + ", ".join(f"{n}=={v}" for n, v in sorted(planned.items()))
    )
    if replaced:
        print("would REPLACE: " + ", ".join(f"{n} {a} -> {b}" for n, (a, b) in replaced.items()))
    print("result: " + ("torch and transformers kept" if result["kept"] else "NOT kept"))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["kept"] else 1


if __name__ == "__main__":
    sys.exit(main())
