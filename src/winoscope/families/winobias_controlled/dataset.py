"""WinoBias-UK Controlled: WinoBias pro/anti pairs with two fixed candidates and a gold letter.

A row is one sentence of a source item (``split``, ``type``, ``item_number``) with one
pronoun in brackets (``... бо [він] ...``), its ``condition`` (pro/anti) and
``pronoun_gender``, the two candidates (``candidate_a_uk``, ``candidate_b_uk``) and which one
the pronoun refers to (``gold_candidate``: ``A`` or ``B``). An item's two rows are its pro and
its anti sentence. The published release (``FairForget/WinoBias-UK-Controlled``, ``data/test.csv``,
1,580 rows) is pinned at the revision the group's evaluator names; the hub id without a
revision loads that one.

A row's id is ``split/type/item_number/pronoun_gender``, as the evaluator names it; the
family adds ``gold_role`` (``candidate_a``/``candidate_b``, the role the scorer compares the
prediction with) and ``pronoun`` (the bracketed word).
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
from .checks import ITEM_KEY, bracketed, row_checks

__all__ = ["FIELDS", "RELEASE", "ROLES", "UK", "Controlled"]

#: the option roles, in the release's fixed A/B order
ROLES = ("candidate_a", "candidate_b")
GENDER_ALIASES = {"masculine": "male", "feminine": "female", "m": "male", "f": "female"}

FIELDS = (
    Field("split", doc="the WinoBias split the item comes from"),
    Field("type", doc="the WinoBias type (1: no syntactic cue, 2: syntactic cue)"),
    Field("item_number", doc="source item number within its split and type"),
    Field("condition", enum=("pro", "anti")),
    Field("pronoun_gender", enum=("male", "female"), aliases=GENDER_ALIASES),
    Field("candidate_a", localised=True),
    Field("candidate_b", localised=True),
    Field("gold_candidate", enum=("A", "B"), aliases={"a": "A", "b": "B"}),
    Field("sentence", localised=True, doc="the sentence with exactly one [bracketed] pronoun"),
)

RELEASE = Release(
    key="winobias-uk-controlled",
    benchmark="WinoBias-UK Controlled",
    hub_id="FairForget/WinoBias-UK-Controlled",
    revision="7ca9f2338bdbc5cb2d197389bf00b2560d086db1",
    files=(
        ReleaseFile(
            "data/test.csv",
            "1f4eed3b2e0984eaf2615640bdba910f2a241c5556de86439bddfadf3794cf45",
            1580,
        ),
    ),
    task="winobias-uk-controlled",
)


@dataclass(frozen=True)
class Controlled(TableAdaptation, fields=FIELDS):
    """One adaptation of the controlled layout: its column map and pinned release. Texts are
    kept exactly as given (the evaluator puts them into its prompt unchanged)."""

    def derive(self, table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
        """The item and row ids, the gold candidate's role and the bracketed pronoun."""
        keys = table[ITEM_KEY].astype(str)
        table["item_id"] = (keys["split"] + "/" + keys["type"] + "/" + keys["item_number"]).astype(
            object
        )
        table["row_id"] = (table["item_id"] + "/" + table["pronoun_gender"].astype(str)).astype(
            object
        )
        gold = table["gold_candidate"].astype(str)
        table["gold_role"] = gold.map({"A": ROLES[0], "B": ROLES[1]}).astype(object)
        table["pronoun"] = [
            (found[0] if len(found) == 1 else "")
            for found in map(bracketed, table[self.col("sentence")].astype(str))
        ]
        return table

    def hub_pins(
        self, source: str | Path | None, revision: str | None, split: str | None
    ) -> tuple[str | None, str | None]:
        """The revision and hub split a load reads: for the release's hub id, the pinned
        revision and its ``test`` split unless given others. (The split is named here, not in
        the column map, which would drop the rows' own ``split`` column.)

        >>> UK.hub_pins("FairForget/WinoBias-UK-Controlled", None, None)[0][:8]
        '7ca9f233'
        """
        if self.release is not None and source == self.release.hub_id:
            return revision or self.release.revision, split or "test"
        return revision, split

    def validate(self, ds: Dataset) -> list[Issue]:
        """What loading left out, repeated row ids (blocking), then the checks of
        :mod:`.checks` (one bracketed pronoun, distinct candidates, complete pro/anti pairs)."""
        issues = list(ds.findings)
        issues += duplicate_issues(
            ds.table,
            "row_id",
            file=ds.source.location,
            label="split/type/item_number/pronoun_gender",
        )
        return issues + row_checks(ds.table, self.col, file=ds.source.location)


UK = Controlled(
    ColumnMap(
        name="winobias-uk-controlled",
        language="uk",
        sample=samples_folder(__name__) / "winobias_uk_controlled_sample.csv",
        hub_id=RELEASE.hub_id,
        review_status="preliminary release; not human-validated",
        sample_note=(
            "Bundled sample written for winoscope in the release's schema; not WinoBias-UK "
            "Controlled. Numbers on it are for checking the pipeline only."
        ),
    ),
    release=RELEASE,
)
