"""Every command's ``--help``, written once and compared later (a layout change must leave the
command line as it was, except where options change on purpose).

    python scripts/help_snapshot.py write DIR
    python scripts/help_snapshot.py check DIR

``check`` prints a unified diff per command whose help differs and exits 1 when any does. The
help is rendered 100 columns wide in a fresh process per command (``python -m winoscope``).
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
from pathlib import Path


def commands() -> list[str]:
    from winoscope.cli.app import app

    names = [""] + [str(c.name) for c in app.registered_commands if c.name]
    for group in app.registered_groups:  # a command group (``study``) and its commands
        sub = group.typer_instance
        names += [str(group.name)] + [
            f"{group.name} {c.name}" for c in sub.registered_commands if c.name
        ]
    return names


def render(command: str) -> str:
    env = dict(os.environ, COLUMNS="100", TERM="dumb", NO_COLOR="1")
    args = [sys.executable, "-m", "winoscope", *command.split(), "--help"]
    return subprocess.run(args, capture_output=True, text=True, env=env, check=True).stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["write", "check"])
    ap.add_argument("folder", type=Path)
    args = ap.parse_args()
    changed = 0
    names = commands()
    if args.action == "write":
        args.folder.mkdir(parents=True, exist_ok=True)
    for c in names:
        path = args.folder / f"{c.replace(' ', '-') or 'winoscope'}.txt"
        text = render(c)
        if args.action == "write":
            path.write_text(text, encoding="utf-8")
            continue
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        if before != text:
            changed += 1
            sys.stdout.writelines(
                difflib.unified_diff(
                    before.splitlines(True), text.splitlines(True), str(path), f"{c} now"
                )
            )
    if args.action == "check":
        print(f"{len(names) - changed} of {len(names)} commands' help unchanged")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
