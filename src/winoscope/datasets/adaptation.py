"""An adaptation read as one table typed by its family's fields.

Most families keep their rows in one table whose columns are the family's fields (localised
ones carry the language code: ``sentence_uk``). What such an adaptation does is the same in
every family: map the card's column names (:class:`~.loading.ColumnMap`), type the table by
the family's schema, add the family's own columns (ids at least) and load from any source
(:func:`~.loading.load_tables`). :class:`TableAdaptation` holds that; a family subclass names
its fields once, in the class statement, and writes only what differs::

    @dataclass(frozen=True)
    class StereoSet(TableAdaptation, fields=FIELDS):
        def derive(self, table, schema): ...   # the family's own columns
        def validate(self, ds): ...

A family whose rows need reshaping before they are typed (SweWinogender's nested ``meta``)
overrides :meth:`~TableAdaptation.prepare`; one whose datasets carry more than
:class:`~.base.Dataset` returns its own from :meth:`~TableAdaptation.dataset`.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from .base import Dataset, Issue
from .loading import TABLE, Adaptation, ColumnMap, load_tables
from .releases import Release
from .schema import Field, Schema, coerce, family_schema
from .sources import SourceInfo


@dataclass(frozen=True)
class TableAdaptation(Adaptation):
    """One adaptation of a family read as one table: its column map, plus where ``load()``
    reads without a source when there is no sample (``default_source``), the release its hub
    id pins (``release``), the dataset version (``version``) and what every dataset it loads
    carries in ``metadata``.

    ``FIELDS`` (the family's fields, set by ``class X(TableAdaptation, fields=FIELDS)``) and
    ``LOCALISED`` (the names of those whose column carries the language) are the family's;
    ``FAMILY`` (``family=`` in the class statement) names the family its datasets report when
    the adaptations share one (BBQ-UK and English BBQ are both ``bbq``), else each reports its
    own name.
    """

    columns: ColumnMap
    _: KW_ONLY
    default_source: str | None = None
    release: Release | None = None
    version: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[Field, ...]] = ()
    LOCALISED: ClassVar[frozenset[str]] = frozenset()
    FAMILY: ClassVar[str | None] = None

    def __init_subclass__(
        cls,
        *,
        fields: tuple[Field, ...] | None = None,
        family: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if fields is not None:
            cls.FIELDS = fields
            cls.LOCALISED = frozenset(f.name for f in fields if f.localised)
        if family is not None:
            cls.FAMILY = family

    def col(self, family_field: str) -> str:
        """The table column of a family field: ``col("sentence")`` -> ``sentence_uk``."""
        return self.columns.column(family_field, self.LOCALISED)

    def schema(self) -> Schema:
        return family_schema(self.name, self.FIELDS, self.language, enums=self.columns.enums)

    def from_frame(
        self,
        raw: pd.DataFrame,
        *,
        source: SourceInfo,
        is_sample: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Type a raw table (card column names mapped by the column map, then
        :meth:`prepare`) into the family: cells the schema refuses leave their row out, kept as
        findings; then :meth:`derive` adds the family's own columns."""
        schema = self.schema()
        raw = self.columns.rename(raw, self.LOCALISED, where=source.location)
        raw = self.prepare(raw, source.location)
        findings: list[Issue] = []
        table = coerce(raw, schema, source=source.location, findings=findings)
        return self.dataset(
            family=self.FAMILY or self.name,
            name=name or self.hub_id or self.name,
            table=self.derive(table, schema),
            source=source,
            review_status=self.review_status,
            is_sample=is_sample,
            version=self.version,
            metadata=dict(self.metadata),
            findings=findings,
        )

    def prepare(self, raw: pd.DataFrame, where: str) -> pd.DataFrame:
        """The raw table as the schema types it (``where`` names it in errors); by default
        unchanged."""
        return raw

    def dataset(self, **parts: Any) -> Dataset:
        """The dataset a load returns, made of ``parts`` (the fields of :class:`Dataset`)."""
        return Dataset(**parts)

    def derive(self, table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
        """The typed table with the family's own columns added (``row_id`` at least)."""
        raise NotImplementedError(f"{type(self).__name__} does not derive its columns")

    def load(
        self,
        source: str | Path | None = None,
        *,
        revision: str | None = None,
        split: str | None = None,
        cache_dir: str | None = None,
    ) -> Dataset:
        """Load the adaptation (see :func:`~winoscope.datasets.loading.load_tables`); the hub
        id loads the pinned release unless given another revision (:meth:`hub_pins`)."""
        revision, split = self.hub_pins(source, revision, split)
        loaded = load_tables(
            source, self.columns, revision=revision, split=split, cache_dir=cache_dir
        )
        raw, _ = loaded.tables[TABLE]
        ds = self.from_frame(
            raw, source=loaded.source, is_sample=loaded.is_sample, name=loaded.name
        )
        ds.metadata.update(loaded.metadata)
        return ds

    def hub_pins(
        self, source: str | Path | None, revision: str | None, split: str | None
    ) -> tuple[str | None, str | None]:
        """The revision and hub split a load reads: the ones given, except that the release's
        hub id without a revision reads the pinned one."""
        if revision is None and self.release is not None and source == self.release.hub_id:
            return self.release.revision, split
        return revision, split
