"""The BBQ family: BBQ-UK and the English BBQ in one record.

A row is one BBQ question in one context: ``item_id``, ``pair_id`` (its ambiguous and
disambiguated contexts), ``example_id`` and ``question_index`` (BBQ's), ``question_polarity``
(``neg``/``nonneg``), ``context_condition`` (``ambig``/``disambig``), ``category`` and
``label_type`` (``name`` rows are reported as "<category> (names)"), the gold ``label``, the
``unknown_answer_index``, ``target_loc`` (the answer a biased reader gives: BBQ-UK stores it
already turned for non-negative questions, and the English reader derives it the same way),
``bias_score_eligible`` and ``source_revision`` (the BBQ commit the row comes from), and the
text fields ``context_<lang>``, ``question_<lang>``, ``ans0_<lang>``..``ans2_<lang>``.

Sources: BBQ-UK's CSV (or the same columns as JSON lines or Parquet), the hub id
``FairForget/BBQ-UK`` (at the pinned revision unless another is given), the bundled sample;
English BBQ's category files (:mod:`.english`). The loaded table adds ``report_category`` and
``cluster`` (``category/question_index``: the source template, what the bootstrap resamples).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pandas as pd

from ...datasets.adaptation import TableAdaptation
from ...datasets.base import Dataset, Issue, duplicate_issues, in_source_rows
from ...datasets.loading import ColumnMap, samples_folder
from ...datasets.releases import Release, ReleaseFile, register_release, release_record
from ...datasets.schema import Field, Schema
from ...datasets.sources import SourceInfo, file_sha256
from ...errors import DatasetError
from . import english
from .checks import check_pairs, check_rows

CONDITIONS = ("ambig", "disambig")
POLARITIES = ("neg", "nonneg")
LABEL_TYPES = ("label", "name")
HUB_ID = "FairForget/BBQ-UK"
REVISION = "4d19497de776cc5be55e9b3ad9481ed0836632b0"
RELEASE = register_release(
    Release(
        key="bbq-uk@4d19497d",
        benchmark="BBQ-UK",
        hub_id=HUB_ID,
        revision=REVISION,
        files=(
            ReleaseFile(
                "data/test.csv",
                "de97272d7b1368d8fc9d347d71a004a0781d9336d8670ede5c6ed0d80e819c0f",
                58492,
            ),
        ),
        task="bbq-uk",
    )
)
#: what the release holds (its evaluator checks these counts)
RELEASE_PAIRS, RELEASE_ELIGIBLE = 29246, 58476
SAMPLE_NOTE = (
    "Bundled sample written for winoscope in the dataset's schema; not the dataset. Numbers on "
    "it are for checking the pipeline only."
)
FIELDS = (
    Field("item_id"),
    Field("pair_id"),
    Field("example_id", "int"),
    Field("question_index", "int"),
    Field("question_polarity", enum=POLARITIES),
    Field("context_condition", enum=CONDITIONS),
    Field("category"),
    Field("label_type", enum=LABEL_TYPES),
    Field("label", "int"),
    Field("target_loc", required=False, doc="empty on rows that are not bias-score eligible"),
    Field("unknown_answer_index", "int"),
    Field("bias_score_eligible", "bool"),
    Field("source_revision"),
    *(Field(text, localised=True) for text in ("context", "question", "ans0", "ans1", "ans2")),
)


def report_category(category: pd.Series, label_type: pd.Series) -> pd.Series:
    """``Age``, or ``Age (names)`` for a ``name`` row (BBQ's and the evaluator's groups)."""
    names = label_type.astype(str).eq("name").to_numpy()
    cat = category.astype(str)
    return cat.where(~names, cat + " (names)")


@dataclass
class BBQDataset(Dataset):
    """BBQ rows of one language (``lang``), the files read and, for English BBQ's category
    files, where each row was read (``places``: file and line, which its findings name)."""

    lang: str = "uk"
    files: list[str] = field(default_factory=list)
    places: list[tuple[str, int]] = field(default_factory=list)


def _target(raw: pd.Series, location: str, findings: list[Issue]) -> pd.Series:
    """``target_loc`` as a nullable integer: empty -> NA, ``1.0`` -> 1 (the evaluator reads
    ``int(float(value))``); anything else is a blocking ``type`` finding."""
    text = raw.astype("string").str.strip().fillna("")
    num = pd.to_numeric(text.mask(text.eq(""), None), errors="coerce")
    bad = text.ne("") & (num.isna() | (num != num.round()))
    for i in bad.to_numpy().nonzero()[0]:
        findings.append(
            Issue(
                "type",
                f"expected an integer or empty, got {raw.iloc[i]!r}",
                row=int(i) + 1,
                field="target_loc",
                file=location,
                blocking=True,
            )
        )
    return num.where(~bad).astype("Int64")


@dataclass(frozen=True)
class BBQ(TableAdaptation, fields=FIELDS, family="bbq"):
    """One BBQ adaptation: its column map, the source revision its rows must name (None: not
    checked) and, for the English originals, the reader of BBQ's own files."""

    source_revision: str | None = english.BBQ_COMMIT
    english_files: bool = False

    def from_frame(
        self,
        raw: pd.DataFrame,
        *,
        source: SourceInfo,
        is_sample: bool = False,
        name: str | None = None,
        findings: Sequence[Issue] = (),
        files: Sequence[str] = (),
    ) -> BBQDataset:
        """Type a table in the family's columns (a release file, or saved predictions); the
        English reader passes what it found (``findings``, first) and the files it read."""
        ds = cast(
            BBQDataset, super().from_frame(raw, source=source, is_sample=is_sample, name=name)
        )
        ds.findings[:0] = findings
        ds.table["target_loc"] = _target(ds.table["target_loc"], source.location, ds.findings)
        ds.files = list(files)
        return ds

    def prepare(self, raw: pd.DataFrame, where: str) -> pd.DataFrame:
        """``target_loc`` may be left out (no row is bias-score eligible): an empty column."""
        return raw if "target_loc" in raw.columns else raw.assign(target_loc="")

    def derive(self, table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
        table["report_category"] = report_category(table["category"], table["label_type"])
        table["cluster"] = table["category"].astype(str) + "/" + table["question_index"].astype(str)
        table["row_id"] = table["item_id"]  # what the requests name (``--limit`` reads it)
        return table

    def dataset(self, **parts: Any) -> BBQDataset:
        return BBQDataset(**parts, lang=self.language)

    def load(
        self,
        source: str | Path | None = None,
        *,
        revision: str | None = None,
        split: str | None = None,
        cache_dir: str | None = None,
    ) -> BBQDataset:
        """Load the adaptation: ``None`` (the bundled sample, or the English default folder),
        a CSV/JSONL/Parquet file, the hub id (``revision`` defaults to the pinned release) or,
        for English BBQ, a folder of category files or one of them."""
        is_sample = source is None and self.english_files
        if is_sample:
            source = samples_folder(__name__) / "bbq_en_sample"
        if self.english_files and source is not None and _is_bbq_json(Path(source)):
            raw, findings, files = english.read_english(source)
            places = list(zip(raw.pop("_file"), raw.pop("_line"), strict=True))
            p = Path(source)
            sha = (
                file_sha256(p)
                if p.is_file()
                else ";".join(f"{Path(f).name}={file_sha256(f)}" for f in files)
            )
            info = SourceInfo(kind="file", location=str(p), sha256=sha)
            if is_sample:
                info = SourceInfo(kind="sample", location="winoscope:bbq_en_sample", sha256=sha)
            ds = self.from_frame(
                raw,
                source=info,
                name=f"{self.name} sample" if is_sample else self.name,
                is_sample=is_sample,
                findings=findings,
                files=files,
            )
            if is_sample:
                ds.metadata["note"] = SAMPLE_NOTE
            ds.places = places
            return ds
        loaded = super().load(source, revision=revision, split=split, cache_dir=cache_dir)
        return cast(BBQDataset, loaded)

    def validate(self, ds: Dataset) -> list[Issue]:
        """Every check the BBQ-UK evaluator makes, as findings (file, row, field)."""
        t = ds.table
        where = ds.source.location
        issues: list[Issue] = list(ds.findings)
        checks = duplicate_issues(t, "item_id", file=where)
        checks += check_rows(t, getattr(ds, "lang", self.language), self.source_revision, where)
        checks += check_pairs(t, getattr(ds, "lang", self.language), where)
        known = release_record(self.name, ds.source.as_dict())
        if known is not None and known["status"] == "published":
            checks += check_release_counts(ds)  # the release's counts, as its evaluator checks
        issues += _placed(in_source_rows(t, checks), ds)
        return issues


def _placed(issues: list[Issue], ds: Dataset) -> list[Issue]:
    """Findings on rows read from English category files name the file and its line."""
    import dataclasses

    places = getattr(ds, "places", None)
    if not places:
        return issues
    out = []
    for i in issues:
        if isinstance(i.row, int) and 0 < i.row <= len(places) and i.file == ds.source.location:
            file, line = places[i.row - 1]
            i = dataclasses.replace(i, file=file, row=line)
        out.append(i)
    return out


def _is_bbq_json(p: Path) -> bool:
    if p.is_dir():
        return any(p.glob("*.jsonl")) and not any(p.glob("*.csv"))
    if p.suffix.lower() != ".jsonl" or not p.is_file():
        return False
    with p.open(encoding="utf-8") as fh:
        first = fh.readline()
    return '"answer_info"' in first


UK = BBQ(
    ColumnMap(
        name="bbq-uk",
        language="uk",
        sample=samples_folder(__name__) / "bbq_uk_sample.csv",
        hub_id=HUB_ID,
        hub_split="test",
        review_status="machine translation of BBQ (Parrish et al., 2022), not human-validated",
        sample_note=SAMPLE_NOTE,
    ),
    release=RELEASE,
)
EN = BBQ(
    ColumnMap(
        name="bbq-en",
        language="en",
        review_status="published dataset (Parrish et al., Findings of ACL 2022)",
    ),
    english_files=True,
)


def check_release_counts(ds: Dataset) -> list[Issue]:
    """The release's own counts (rows, pairs, eligible rows), for a file that says it is the
    release (its hash is the registered one) or is loaded from the hub at the pinned revision."""
    t = ds.table
    got = (len(t), t["pair_id"].nunique(), int(t["bias_score_eligible"].sum()))
    want = (RELEASE.files[0].rows, RELEASE_PAIRS, RELEASE_ELIGIBLE)
    if got == want:
        return []
    return [
        Issue(
            "release",
            f"{RELEASE.hub_id}@{RELEASE.revision[:8]} has {want[0]} rows, {want[1]} pairs and "
            f"{want[2]} bias-score eligible rows; this table has {got[0]}, {got[1]}, {got[2]}",
            file=ds.source.location,
        )
    ]


__all__ = ["BBQ", "EN", "UK", "BBQDataset", "DatasetError", "check_release_counts"]
