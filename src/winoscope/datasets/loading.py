"""One way into every dataset family: where the rows come from, and how a card's columns map
onto the family's fields.

:func:`load_tables` is the single source dispatch every family uses. ``source`` is

- ``None``: the adaptation's bundled sample (the project's own text, never the dataset);
- an ``http(s)://`` URL of one table file (CSV, TSV, JSON lines, Parquet);
- a local table file (``.csv``, ``.tsv``, ``.jsonl``/``.json``, ``.parquet``/``.pq``);
- a local folder holding one table file per configuration (families with several
  configurations, e.g. WinoPron's ``double.csv``, ``single.jsonl``, ``forced_choice.parquet``);
- a local folder of table files of one format, for a family with one table: every such file
  directly in it, read in name order as one table (:func:`folder_table`);
- otherwise a hub id (pinned with ``revision``) or a local folder laid out like the hub
  repository (a README with ``configs``).

A :class:`ColumnMap` declares one adaptation: its name, the language its text fields are
written in, the card's column names where they differ from the family's, and the bundled
sample. Family fields that hold text in the dataset's language are *localised*: their table
column carries the language code (family field ``sentence`` is the column ``sentence_uk`` of
a Ukrainian set, ``sentence_da`` of a Danish one), so the language is data, not code.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pandas as pd

from ..errors import DatasetError
from .base import SOURCE_FILES, SharedRows
from .sources import (
    TABLE_SUFFIXES,
    SourceInfo,
    file_sha256,
    load_hub_table,
    read_table,
    read_table_url,
)

TABLE = "table"  # the configuration name of a family with one table


@dataclass(frozen=True)
class ColumnMap:
    """How one adaptation's tables map onto its family's fields.

    ``columns`` maps a card column to a family field (``{"text": "sentence"}``); a card column
    already named like the table column (``sentence_uk`` for language ``uk``) needs no entry.
    ``sample`` is the bundled sample's path, in the family's ``samples/`` folder
    (:func:`samples_folder`; families with several configurations: ``{configuration: path}``). ``hub_id``/``hub_config``/
    ``hub_split`` say where the published dataset is; ``enums`` narrows a field's allowed
    values for this adaptation (English WinoBias has only the ``mm``/``ff`` variants).
    """

    name: str
    language: str
    columns: Mapping[str, str] = field(default_factory=dict)
    sample: str | Path | Mapping[str, str | Path] | None = None
    hub_id: str | None = None
    hub_config: str | None = None
    hub_split: str | None = None
    review_status: str = ""
    sample_note: str = ""
    enums: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def column(self, family_field: str, localised: Collection[str]) -> str:
        """The table column of a family field: ``sentence`` -> ``sentence_uk`` (localised)."""
        return f"{family_field}_{self.language}" if family_field in localised else family_field

    def rename(self, raw: pd.DataFrame, localised: Collection[str], *, where: str) -> pd.DataFrame:
        """``raw`` with the card's columns renamed to the family's table columns."""
        if not self.columns:
            return raw
        mapping = {}
        for card, fam in self.columns.items():
            if card not in raw.columns:
                continue
            target = fam if fam.endswith(f"_{self.language}") else self.column(fam, localised)
            if target in raw.columns and target != card:
                raise DatasetError(
                    f"column {card!r} maps to {target!r}, which the table already has",
                    file=where,
                    field=card,
                )
            mapping[card] = target
        return raw.rename(columns=mapping)

    def sample_paths(self) -> dict[str, Path]:
        """Configuration -> bundled sample file (``{"table": path}`` for one table)."""
        if self.sample is None:
            raise DatasetError(f"{self.name} has no bundled sample; pass a source")
        items = self.sample.items() if isinstance(self.sample, Mapping) else [(TABLE, self.sample)]
        return {config: Path(f) for config, f in items}


class Adaptation:
    """What every family's adaptation object shares: its column map's identity, and what a
    task reads from it (``load``, ``validate``, ``from_frame``, :attr:`source_text`,
    :attr:`review_status`)."""

    columns: ColumnMap
    default_source: str | None

    @property
    def name(self) -> str:
        return self.columns.name

    @property
    def language(self) -> str:
        return self.columns.language

    @property
    def hub_id(self) -> str | None:
        return self.columns.hub_id

    @property
    def review_status(self) -> str:
        return self.columns.review_status

    @property
    def source_text(self) -> str:
        """Where the data comes from, as ``winoscope tasks`` shows it: the hub id, else what
        ``load()`` reads without a source (the default source, else the sample)."""
        if self.columns.hub_id:
            return self.columns.hub_id
        if self.default_source:
            return self.default_source
        sample = self.columns.sample
        if isinstance(sample, Mapping):
            return f"winoscope:{self.name.replace('-', '_')}_sample"
        return "" if sample is None else str(sample)

    def sample_path(self, config: str = TABLE) -> Path:
        """The bundled sample file (of ``config`` for families with several)."""
        return self.columns.sample_paths()[config]


def samples_folder(module: str) -> Path:
    """The ``samples/`` folder of the package that holds ``module`` (a family's dataset module
    passes its ``__name__``), where the family keeps its bundled samples."""
    return Path(str(resources.files(module.rpartition(".")[0]).joinpath("samples")))


@dataclass
class Loaded:
    """Raw tables of one load, before the family types them."""

    tables: dict[str, tuple[pd.DataFrame, str]]  # configuration -> (raw table, its location)
    source: SourceInfo
    name: str
    is_sample: bool = False
    metadata: dict[str, object] = field(default_factory=dict)


def config_of(path: Path, configs: Sequence[str]) -> str | None:
    """The configuration a file name ends (or starts) with: ``winopron_double.csv`` -> double."""
    stem = path.name.split(".")[0].lower().replace("-", "_")
    for config in sorted(configs, key=len, reverse=True):
        if stem == config or stem.endswith("_" + config) or stem.startswith(config + "_"):
            return config
    return None


def _folder_files(directory: Path, configs: Sequence[str]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for p in sorted(directory.iterdir()):
        if p.is_file() and "".join(p.suffixes[-1:]).lower() in TABLE_SUFFIXES:
            config = config_of(p, configs)
            if config is not None:
                if config in found:
                    raise DatasetError(
                        f"two files for configuration '{config}': {found[config].name}, {p.name}",
                        file=str(directory),
                    )
                found[config] = p
    return found


#: the table formats a folder's files may not mix (JSON lines and JSON arrays are one)
FORMATS = {".csv": "CSV", ".tsv": "TSV", ".jsonl": "JSON", ".json": "JSON", ".parquet": "Parquet",
           ".pq": "Parquet"}  # fmt: skip


#: file names the hub's folder reader takes for splits (``test.csv``: rows of split ``test``)
SPLIT_NAMES = ("train", "validation", "valid", "dev", "test", "eval")


def folder_table(directory: Path, *, split_files: bool = False) -> Loaded | None:
    """The one table of a folder whose table files lie directly in it (None: it has none, or
    its files are named as splits, ``validation.csv``/``test.csv``, or ``split_files`` asks for
    one split: the hub's folder reader keeps those, with their ``split``): every file of the
    data formats, in name order, all of one format (a ``meta.json`` beside ``data.csv`` is
    refused by name, not read as rows) and with the same columns. Each row keeps its file and
    its row there (:data:`~.base.SOURCE_FILES`), which findings name."""
    files = [p for p in sorted(directory.iterdir()) if p.is_file() and p.suffix.lower() in FORMATS]
    if not files:
        return None
    kinds: dict[str, list[str]] = {}
    for p in files:
        kinds.setdefault(FORMATS[p.suffix.lower()], []).append(p.name)
    if len(kinds) > 1:
        mixed = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in kinds.items())
        raise DatasetError(
            f"the folder's table files are read as one table and must be of one format; it "
            f"mixes {mixed}: move the other files out, or pass the data file itself",
            file=str(directory),
        )
    if split_files or all(p.stem.split("-")[0].lower() in SPLIT_NAMES for p in files):
        return None
    frames: list[pd.DataFrame] = []
    places: list[tuple[str, int]] = []
    for p in files:
        frame = read_table(p)
        if frames and set(frame.columns) != set(frames[0].columns):
            first = set(frames[0].columns)
            missing = ", ".join(sorted(map(str, first - set(frame.columns)))) or "none"
            extra = ", ".join(sorted(map(str, set(frame.columns) - first))) or "none"
            raise DatasetError(
                f"its columns differ from {files[0].name}'s (missing: {missing}; extra: "
                f"{extra}); the folder's files are read as one table",
                file=str(p),
            )
        frames.append(frame)
        places += [(str(p), n) for n in range(1, len(frame) + 1)]
    raw = pd.concat(frames, ignore_index=True)
    raw.attrs[SOURCE_FILES] = SharedRows(places)
    # one file: its own sha256, as when it is passed itself; several: each file's, by name
    sha = ";".join(f"{p.name}={file_sha256(p)}" for p in files)
    sha = sha if len(files) > 1 else file_sha256(files[0])
    info = SourceInfo(kind="file", location=str(directory), sha256=sha)
    return Loaded({TABLE: (raw, str(directory))}, info, directory.name)


def read_files(files: Mapping[str, Path], configs: Sequence[str], *, location: str) -> Loaded:
    """Read one file per configuration; the source's sha256 names each (``double=...;...``)."""
    tables: dict[str, tuple[pd.DataFrame, str]] = {}
    hashes = []
    for config in configs:
        p = files.get(config)
        if p is None:
            continue
        tables[config] = (read_table(p), str(p))
        hashes.append(f"{config}={file_sha256(p)}")
    info = SourceInfo(kind="file", location=location, sha256=";".join(hashes))
    return Loaded(tables, info, Path(location).name)


def _sample(columns: ColumnMap, configs: Sequence[str]) -> Loaded:
    paths = columns.sample_paths()
    if list(paths) == [TABLE]:
        path = paths[TABLE]
        location = f"winoscope:{path.name}"
        info = SourceInfo(kind="sample", location=location, sha256=file_sha256(path))
        loaded = Loaded({TABLE: (read_table(path), location)}, info, f"{columns.name} sample")
        meta = path.with_suffix(".meta.json")
        if meta.is_file():
            loaded.metadata.update(json.loads(meta.read_text(encoding="utf-8")))
    else:
        location = f"winoscope:{columns.name.replace('-', '_')}_sample"
        loaded = read_files(paths, configs, location=location)
        loaded.source = SourceInfo(kind="sample", location=location, sha256=loaded.source.sha256)
        loaded.name = f"{columns.name} sample"
    loaded.is_sample = True
    if columns.sample_note:
        loaded.metadata["note"] = columns.sample_note
    return loaded


def _hub(
    source: str,
    columns: ColumnMap,
    configs: Sequence[str],
    *,
    revision: str | None,
    split: str | None,
    cache_dir: str | None,
) -> Loaded:
    if configs == (TABLE,):
        want = split or columns.hub_split
        raw, info = load_hub_table(
            source, config=columns.hub_config, split=want, revision=revision, cache_dir=cache_dir
        )
        if columns.hub_split is not None:  # the split is named by the load, not by a column
            raw = raw.drop(columns=["split"], errors="ignore")
        return Loaded({TABLE: (raw, info.location)}, info, source)
    tables = {}
    infos = []
    for config in configs:
        raw, info = load_hub_table(
            source,
            config=config,
            split=split or columns.hub_split,
            revision=revision,
            cache_dir=cache_dir,
        )
        tables[config] = (raw.drop(columns=["split"], errors="ignore"), f"{source}:{config}")
        infos.append(info)
    info = SourceInfo(
        kind="hub",
        location=source,
        revision=revision,
        split=split or columns.hub_split,
        commit=infos[0].commit,
        commit_from=infos[0].commit_from,
    )
    return Loaded(tables, info, source)


def load_tables(
    source: str | Path | None,
    columns: ColumnMap,
    *,
    configs: Sequence[str] = (TABLE,),
    revision: str | None = None,
    split: str | None = None,
    cache_dir: str | None = None,
) -> Loaded:
    """Read an adaptation's raw tables from ``source`` (see the module docstring).

    A single file of a family with several configurations comes back under the configuration
    its name ends with, or under ``"table"`` when the name says none (the family decides).
    """
    configs = tuple(configs)
    text = "" if source is None else str(source)
    local = source is not None and (
        isinstance(source, Path) or text.startswith(("/", "./", "../", "~")) or Path(text).exists()
    )
    pinned_elsewhere = source is None or text.startswith(("http:", "https:"))
    if revision is not None and (pinned_elsewhere or (local and Path(text).is_file())):
        what = "the bundled sample" if source is None else text
        raise DatasetError(
            "--revision (revision=) pins a dataset on the hub; this source is not one: leave "
            "it out (a file is identified by its sha256, which the manifest records)",
            file=what,
        )
    if source is None:
        return _sample(columns, configs)
    if local and not Path(text).expanduser().exists():
        raise DatasetError("no such file or folder", file=text)
    if local and not (Path(text).expanduser().is_file() or Path(text).expanduser().is_dir()):
        raise DatasetError("not a file or a folder (a device or a pipe?)", file=text)
    if text.startswith(("http://", "https://")):
        raw, info = read_table_url(text)
        return Loaded({TABLE: (raw, text)}, info, text.rsplit("/", 1)[-1] or text)
    p = Path(source)
    if p.is_file():
        info = SourceInfo(kind="file", location=str(p), sha256=file_sha256(p))
        config = TABLE if configs == (TABLE,) else (config_of(p, configs) or TABLE)
        return Loaded({config: (read_table(p), str(p))}, info, p.name)
    if p.suffix.lower() in TABLE_SUFFIXES:
        raise DatasetError("no such file", file=str(p))
    if configs != (TABLE,) and p.is_dir() and not (p / "README.md").is_file():
        files = _folder_files(p, configs)
        if not files:
            raise DatasetError(
                f"no {'/'.join(configs)} table files and no hub README.md here", file=str(p)
            )
        return read_files(files, configs, location=str(p))
    if configs == (TABLE,) and p.is_dir() and not (p / "README.md").is_file():
        folder = folder_table(p, split_files=split is not None)
        if folder is not None:
            return folder
    return _hub(text, columns, configs, revision=revision, split=split, cache_dir=cache_dir)
