"""A trainer's saved checkpoints as the points of a sweep or a study: ``checkpoint-N`` folders
(``checkpoint_N`` too) holding a whole model (``config.json``) or a PEFT adapter
(``adapter_config.json``). The sweep's ``--checkpoints`` and ``--adapters``, and a study's
``checkpoints``, all read a folder through here."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import TaskError
from ..tags import tag_value

#: a trainer's checkpoint folder; the number is the point's value
CHECKPOINT_DIR = re.compile(r"checkpoint[-_](\d+)$")


def _add(found: dict[str, Path], value: str, child: Path, where: str, folder: Path) -> None:
    """``found[value] = child``, refusing a folder whose value another already gives
    (``checkpoint-1`` and ``checkpoint_1``, ``5`` and ``checkpoint-5``: 1 and 01 are one value
    too) rather than keeping one of them silently."""
    same = [p for v, p in found.items() if tag_value(v) == tag_value(value)]
    if same:
        raise TaskError(
            f"{where} {folder}: {same[0]} and {child} both give the value "
            f"{tag_value(value)!r}; keep one of them (rename or move the other)"
        )
    found[value] = child


def checkpoint_models(folder: Path, where: str, adapters_hint: str) -> dict[str, Path]:
    """The whole-model checkpoints under ``folder``: N -> folder. ``where`` names the option or
    the study key in errors; a checkpoint that holds an adapter is refused with
    ``adapters_hint`` (how to give adapters instead)."""
    if not folder.is_dir():
        raise TaskError(f"{where} {folder}: no such directory")
    found: dict[str, Path] = {}
    for child in sorted(folder.iterdir()):
        m = CHECKPOINT_DIR.search(child.name)
        if not (m and child.is_dir()):
            continue
        if (child / "config.json").is_file():
            _add(found, m.group(1), child, where, folder)
        elif (child / "adapter_config.json").is_file():
            raise TaskError(f"{where} {folder}: {child.name} holds a PEFT adapter; {adapters_hint}")
    if not found:
        raise TaskError(f"{where} {folder}: no checkpoint-N folder with a config.json in it")
    return found


def checkpoint_points(folder: Path, where: str, adapters_hint: str) -> dict[str, str]:
    """:func:`checkpoint_models` as points: N -> ``hf:PATH``."""
    return {n: f"hf:{p}" for n, p in checkpoint_models(folder, where, adapters_hint).items()}


def adapter_dirs(folder: Path, where: str = "--adapters") -> dict[str, Path]:
    """The adapter folders under ``folder``: their values (N of ``checkpoint-N``, else the
    folder's name) -> paths. The value 0 is the base model's."""
    if not folder.is_dir():
        raise TaskError(f"{where} {folder}: no such directory")
    found: dict[str, Path] = {}
    for child in sorted(folder.iterdir()):
        if child.is_dir() and (child / "adapter_config.json").is_file():
            m = CHECKPOINT_DIR.search(child.name)
            _add(found, m.group(1) if m else child.name, child, where, folder)
    if not found:
        raise TaskError(f"{where} {folder}: no folder with an adapter_config.json in it")
    if "0" in found:
        raise TaskError(f"{where} {folder}: the value 0 is the base model's; rename the folder")
    return found
