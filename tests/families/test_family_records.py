"""Each family registers one record that names its tasks and its page; its tests live here.

The core reads a family's choices (the metrics a summary shows first) from this record, so a
task that no record names, or a record whose page is missing, would drop out of them unseen.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from pathlib import Path

import yaml

from winoscope.tasks import TASKS
from winoscope.tasks.family import FAMILIES, Family, family_of

ROOT = Path(__file__).resolve().parents[2]


def family_faults(
    families: Mapping[str, Family], tasks: Iterable[str], root: Path, nav: str
) -> list[str]:
    """What is missing: a task in no record or in two, a page that is not there or not in the
    navigation, a family whose tests folder or package docstring does not name its page."""
    out = []
    for task in tasks:
        owners = [f.name for f in families.values() if task in f.tasks]
        if len(owners) != 1:
            out.append(f"task {task}: in {owners or 'no family'}")
    for name, f in families.items():
        if not (root / f.docs).is_file() or Path(f.docs).name not in nav:
            out.append(f"family {name}: page {f.docs} missing or not in the navigation")
        if not (root / "tests" / "families" / name).is_dir():
            out.append(f"family {name}: no tests/families/{name}/")
        doc = importlib.import_module(f"winoscope.families.{name}").__doc__ or ""
        if f.docs not in doc:
            out.append(f"family {name}: its package docstring does not name {f.docs}")
    return out


def nav_text() -> str:
    return str(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])


def test_every_task_and_family_is_accounted_for() -> None:
    families = {n: FAMILIES.get(n) for n in FAMILIES.names()}
    assert sorted(families) == [
        "bbq",
        "stereoset",
        "swewinogender",
        "winobias",
        "winobias_controlled",
        "winopron",
    ]
    assert family_faults(families, TASKS.names(), ROOT, nav_text()) == []
    assert family_of("winogender-en") is families["winopron"]


def test_the_check_sees_a_stray_task_and_a_missing_page() -> None:
    families = {n: FAMILIES.get(n) for n in FAMILIES.names()}
    lost = Family("winobias", docs="docs/nowhere.md", tasks=("winobias-uk",))
    faults = family_faults({**families, "winobias": lost}, ["winobias-en"], ROOT, nav_text())
    assert faults == [
        "task winobias-en: in no family",
        "family winobias: page docs/nowhere.md missing or not in the navigation",
        "family winobias: its package docstring does not name docs/nowhere.md",
    ]
