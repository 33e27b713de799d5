"""What a family registers about itself beside its tasks: its page, its tasks, its headline.

A family's package (``winoscope/families/<name>/``, or a plugin's) registers one
:class:`Family` when it is imported, so the code that shows results across families (the
demo's summary) reads the family's own choice instead of naming its metrics.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry import Registry, ignore_objects, load_families
from . import ENTRY_POINT_GROUP


@dataclass(frozen=True)
class Family:
    name: str
    #: the family's page in the documentation (``docs/families/<name>.md``)
    docs: str
    #: the tasks the family registers
    tasks: tuple[str, ...]
    #: the metrics a summary of one of its runs shows, in this order (those the run wrote)
    headline: tuple[str, ...] = ()


FAMILIES: Registry[Family] = Registry("family")
FAMILIES.discover_with(
    load_families, plugins=True, deprecated=ENTRY_POINT_GROUP, adopt=ignore_objects
)


def family(record: Family) -> Family:
    """Register ``record`` (a family's package calls it when it is imported)."""
    FAMILIES.add(record.name, record)
    return record


def family_of(task: str) -> Family | None:
    """The family that registers ``task`` (None for a task no family record names)."""
    return next((f for n in FAMILIES.names() if task in (f := FAMILIES.get(n)).tasks), None)
