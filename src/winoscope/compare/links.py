"""Cross-lingual links: how a family joins an adaptation's run to the English original's.

A family's cross-lingual module registers one :class:`Link` per pair of tasks it can join
(WinoBias-UK with English WinoBias, WinoPron-UK with English WinoPron), and one
:class:`Unlinkable` per pair it must refuse, with the reason (SweWinogender with English
Winogender). :func:`winoscope.compare.across_languages.crosslingual` looks the pair up here;
it never imports a family. The registry imports winoscope's own families and every plugin
(``winoscope.plugins``, and the deprecated ``winoscope.links`` group) on its first look-up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..errors import TaskError
from ..registry import Registry, load_families

Table = Callable[..., pd.DataFrame]


@dataclass(frozen=True)
class Link:
    """``linked_rows(uk, en)`` -> (joined rows, counts); ``occupation_check(joined)`` ->
    (mismatched links, links checked); ``tables``: the metric, agreement and occupation tables
    of the answered-in-both rows."""

    uk_task: str
    en_task: str
    linked_rows: Callable[[pd.DataFrame, pd.DataFrame], tuple[pd.DataFrame, dict[str, Any]]]
    occupation_check: Callable[[pd.DataFrame], tuple[pd.DataFrame, int]]
    key: Sequence[str]
    unit: str  # what the bootstrap resamples, as the pages say it
    tables: tuple[Table, Table, Table]
    link_unit: str  # "item" or "template": what one occupation link joins
    occupation_source: str  # where the occupation translations come from
    uk_rows: str  # the counts entry holding the Ukrainian rows that could be linked


@dataclass(frozen=True)
class Unlinkable:
    first: str
    second: str
    reason: str


LINKS: Registry[Link | Unlinkable] = Registry("cross-lingual link", error=TaskError)
LINKS.discover_with(load_families, plugins=True, deprecated="winoscope.links")


def register_link(link: Link | Unlinkable) -> None:
    """Register a link (or a refusal) under ``"FIRST+SECOND"``; a refusal holds either way."""
    if isinstance(link, Link):
        LINKS.add(f"{link.uk_task}+{link.en_task}", link)
    else:
        LINKS.add(f"{link.first}+{link.second}", link)
        LINKS.add(f"{link.second}+{link.first}", link)


def find_link(first: str, second: str) -> Link | Unlinkable | None:
    name = f"{first}+{second}"
    return LINKS.get(name) if name in LINKS else None


def linked_pairs() -> list[tuple[str, str]]:
    out = []
    for name in LINKS.names():
        link = LINKS.get(name)
        if isinstance(link, Link):
            out.append((link.uk_task, link.en_task))
    return sorted(out)
