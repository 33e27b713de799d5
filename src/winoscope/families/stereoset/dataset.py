"""The StereoSet family: StereoSet-UK Eval and any intrasentence set in its table layout.

A row is one intrasentence item: a template with exactly one ``[BLANK]`` and the three words or
phrases that fill it (stereotypical, anti-stereotypical, unrelated), with the target group the
template is about and its bias type. The published release is the one the Ukrainian fairness
leaderboard scores (``FairForget/StereoSet-UK-Eval``, the ``validation`` split, 949 items); its
table columns are ``item_id``, ``template_uk``, ``stereotype_fill_uk``,
``anti_stereotype_fill_uk``, ``unrelated_fill_uk``, ``target_uk`` and ``bias_type_uk``.

``load()`` reads the bundled sample (the project's own sentences), a local CSV/JSONL/Parquet
file, or the hub id, at the revision the evaluator pins unless another is given. Text cells are
stripped of surrounding whitespace as the evaluator strips them before it fills the blank.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...datasets.adaptation import TableAdaptation
from ...datasets.base import Dataset, Issue, duplicate_issues
from ...datasets.loading import ColumnMap, samples_folder
from ...datasets.releases import Release, ReleaseFile
from ...datasets.schema import Field, Schema
from .checks import sentence_checks

__all__ = ["FIELDS", "LABELS", "RELEASE", "UK", "StereoSet"]

#: the three candidates of an item, in the evaluator's order
LABELS = ("stereotype", "anti_stereotype", "unrelated")

FIELDS = (
    Field("item_id", doc="the item's id in the release"),
    Field("template", localised=True, doc="the sentence with exactly one [BLANK]"),
    Field("stereotype_fill", localised=True),
    Field("anti_stereotype_fill", localised=True),
    Field("unrelated_fill", localised=True),
    Field("target", localised=True, doc="the target group; the unit StereoSet averages over"),
    Field("bias_type", localised=True),
)

#: the release the leaderboard's evaluator pins (revision, file, SHA-256 and items)
RELEASE = Release(
    key="stereoset-uk-eval",
    benchmark="StereoSet-UK Eval",
    hub_id="FairForget/StereoSet-UK-Eval",
    revision="b408fe0283a5159d5815e790197d4b5571fb6ca0",
    files=(
        ReleaseFile(
            "data/validation.csv",
            "0fd16c79b88dd4d1384466b27b46e0b305aadf1a6086798da22c0e7c2f17d202",
            949,
        ),
    ),
    task="stereoset-uk",
)


@dataclass(frozen=True)
class StereoSet(TableAdaptation, fields=FIELDS):
    """One StereoSet adaptation: its column map (and the release its hub id pins)."""

    def derive(self, table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
        """Every cell stripped, as the evaluator strips what it reads; the item id is the row
        id."""
        for column in schema.names:
            table[column] = table[column].astype(str).str.strip().astype(object)
        table["row_id"] = table["item_id"]
        return table

    def revision_for(self, source: str | Path | None, revision: str | None) -> str | None:
        """The revision a load reads: the one given, else the pinned release's for its hub id.

        >>> UK.revision_for("FairForget/StereoSet-UK-Eval", None)[:8], UK.revision_for("x", None)
        ('b408fe02', None)
        """
        return self.hub_pins(source, revision, None)[0]

    def validate(self, ds: Dataset) -> list[Issue]:
        """What loading left out, then repeated item ids (blocking), then the evaluator's
        checks of each row (:mod:`.checks`)."""
        issues = list(ds.findings)
        issues += duplicate_issues(ds.table, "item_id", file=ds.source.location)
        return issues + sentence_checks(ds.table, self.col, file=ds.source.location)


UK = StereoSet(
    ColumnMap(
        name="stereoset-uk",
        language="uk",
        sample=samples_folder(__name__) / "stereoset_uk_sample.csv",
        hub_id=RELEASE.hub_id,
        hub_split="validation",
        review_status="provisional release; not human-validated",
        sample_note=(
            "Bundled sample written for winoscope in the release's schema; not StereoSet-UK "
            "Eval. Numbers on it are for checking the pipeline only."
        ),
    ),
    release=RELEASE,
)
