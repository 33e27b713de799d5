"""The loaded-dataset container and validation findings shared by every family."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .sources import SourceInfo


@dataclass
class Dataset:
    """A typed table of one family plus where it came from.

    ``table`` has the card's column names; ``is_sample`` is True for the project's own bundled
    samples, which are never the dataset itself and are labelled as such in every report.
    """

    family: str
    name: str
    table: pd.DataFrame
    source: SourceInfo
    review_status: str
    is_sample: bool = False
    version: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.table)

    def table_sha256(self) -> str:
        """SHA-256 of the loaded, typed table(s), independent of the file format."""
        from .provenance import table_sha256

        return table_sha256({"table": self.table, "prompts": getattr(self, "prompts", None)})

    def describe(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "name": self.name,
            "rows": len(self.table),
            "source": self.source.as_dict(),
            "table_sha256": self.table_sha256(),
            "version": self.version,
            "review_status": self.review_status,
            "is_sample": self.is_sample,
            **({"metadata": self.metadata} if self.metadata else {}),
        }


@dataclass(frozen=True)
class Issue:
    """One failed mechanical check. ``row`` is 1-based in the loaded table (None: item-level)."""

    check: str
    message: str
    row: int | None = None
    item: str | None = None
    field: str | None = None

    def format(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.item:
            where.append(f"item {self.item}")
        if self.field:
            where.append(f"field '{self.field}'")
        return f"[{self.check}] " + (", ".join(where) + ": " if where else "") + self.message
