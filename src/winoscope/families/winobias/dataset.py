"""The WinoBias family: WinoBias-UK Natural, English WinoBias and any further adaptation.

One record family, whatever the language. A row is one sentence of an item (``split``,
``type``, ``item_number``) in one ``variant``; its text fields are localised (the family field
``sentence`` is the column ``sentence_uk`` of the Ukrainian set, ``sentence_en`` of the English
one). An adaptation is a :class:`~winoscope.datasets.loading.ColumnMap` (name, language, the
card's column names, sample, hub id) plus the reader of its format:

- the WinoBias-UK Natural card's table (CSV/JSONL/Parquet/hub; :data:`UK`): each Type 1 item
  has six variants (mm, ff, mf_target, fm_target, mf_cross, fm_cross); Type 2 items the four
  target-reference ones; mm/ff are ``primary_balanced`` (pro/anti), the *_target variants
  ``agreement_control``, the *_cross variants ``cross_control`` whose pronoun refers to the
  other occupation. ``coreference_role`` uses the prediction vocabulary
  ``target``/``distractor``; ``other`` (the card's prose) is accepted as an alias;
- WinoBias's bracket files (:data:`EN`, :mod:`.winobias_brackets`): pro/anti pairs of
  primary sentences with the occupations' stereotype genders instead of noun genders.

A new adaptation in the card's table layout needs only a ``ColumnMap``::

    DA = WinoBias(ColumnMap("winobias-da", "da", columns={"tekst": "sentence", ...},
                            sample="/path/to/sample.csv"))
    ds = DA.load()          # or DA.load("file.csv"), DA.load("owner/hub-id")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from ...datasets.adaptation import TableAdaptation
from ...datasets.base import SOURCE_LINES, Dataset, Issue, SharedRows, duplicate_issues
from ...datasets.loading import ColumnMap, samples_folder
from ...datasets.raw_files import RawFiles
from ...datasets.schema import Field, Schema, family_schema
from ...datasets.validation import ValidationFailed
from ...errors import DatasetError
from .bracket_format import BracketFormat
from .brackets import read_brackets
from .checks import ITEM_KEY, TYPE1_VARIANTS, TYPE2_VARIANTS, VARIANT_RULES, VARIANTS, card_checks

__all__ = [
    "EN",
    "ITEM_KEY",
    "TYPE1_VARIANTS",
    "TYPE2_VARIANTS",
    "UK",
    "VARIANTS",
    "VARIANT_RULES",
    "WinoBias",
    "bracket_adaptation",
]

GENDER = ("male", "female")
GENDER_ALIASES = {"masculine": "male", "feminine": "female", "m": "male", "f": "female"}

FIELDS = (
    Field("item_number", "int", doc="source item number within its WinoBias split and type"),
    Field("split", enum=("validation", "test"), aliases={"dev": "validation"}),
    Field("type", enum=("type1", "type2"), aliases={"1": "type1", "2": "type2"}),
    Field("variant", enum=VARIANTS),
    Field("score_group", enum=("primary_balanced", "agreement_control", "cross_control")),
    Field("condition", enum=("pro", "anti", "control")),
    Field("target_occupation", localised=True),
    Field("other_occupation", localised=True),
    Field(
        "target_gender", enum=GENDER, aliases=GENDER_ALIASES, doc="the noun's grammatical gender"
    ),
    Field("other_gender", enum=GENDER, aliases=GENDER_ALIASES),
    Field("target_stereotype", enum=GENDER, doc="majority gender in the labour statistics"),
    Field("other_stereotype", enum=GENDER),
    Field("pronoun_gender", enum=GENDER, aliases=GENDER_ALIASES),
    Field("coreference_role", enum=("target", "distractor"), aliases={"other": "distractor"}),
    Field("sentence", localised=True),
    Field("sentence_annotated", localised=True),
    Field("target_span", localised=True),
    Field("other_span", localised=True),
    Field("pronoun_span", localised=True),
    Field("source_file", doc="the bracket file a line came from"),
)
# the card's table carries the nouns' grammatical genders; bracket files the stereotypes
CARD_FIELDS = tuple(
    f.name for f in FIELDS if f.name not in {"target_stereotype", "other_stereotype", "source_file"}
)
BRACKET_FIELDS = tuple(f.name for f in FIELDS if f.name not in {"target_gender", "other_gender"})


def item_id(row: pd.Series | dict) -> str:  # type: ignore[type-arg]
    return f"{row['split']}/{row['type']}/{row['item_number']}"


@dataclass(frozen=True)
class WinoBias(TableAdaptation, fields=FIELDS):
    """One WinoBias adaptation: its column map, the fields it carries and its checks.

    ``fields`` names the family fields the adaptation's tables carry; ``row_key`` names the
    column that tells an item's rows apart in ``row_id`` (``variant`` for the card's table,
    ``condition`` for bracket files); ``bracket`` is set for adaptations read from bracket
    files (``load`` then takes a folder, URL prefix or zip of them).
    """

    fields: tuple[str, ...] = CARD_FIELDS
    row_key: str = "variant"
    bracket: BracketFormat | None = None
    checks: tuple[Callable[[WinoBias, Dataset], list[Issue]], ...] = (card_checks,)

    def schema(self) -> Schema:
        wanted = [f for f in FIELDS if f.name in self.fields]
        return family_schema(self.name, wanted, self.language, enums=self.columns.enums)

    def derive(self, table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
        """The item and row ids; for bracket files, the schema's columns first and which items
        the paired metrics can compare (``pair_matched``)."""
        if self.bracket is not None:
            table = table[schema.names + [c for c in table.columns if c not in schema.names]]
        # object columns even when every row was left out (an enum wrong on every row)
        table["item_id"] = pd.Series(
            [item_id(r) for r in table[ITEM_KEY].to_dict("records")],
            index=table.index,
            dtype=object,
        )
        table["row_id"] = table["item_id"] + "/" + table[self.row_key].astype(str).astype(object)
        if self.bracket is not None:
            table["pair_matched"] = pair_matched(table, self)
        return table

    def load(
        self,
        source: str | Path | None = None,
        *,
        revision: str | None = None,
        split: str | None = None,
        cache_dir: str | None = None,
    ) -> Dataset:
        """Load the adaptation: see :func:`~winoscope.datasets.loading.load_tables` for
        ``source`` (bracket-file adaptations: a folder, URL prefix or zip of the files)."""
        if self.bracket is not None:
            del revision, cache_dir  # raw files: the URL itself names the revision
            return self._load_brackets(source, split)
        ds = super().load(source, revision=revision, split=split, cache_dir=cache_dir)
        if split is not None:
            keep = ds.table["split"].astype(str) == split
            if not keep.any():
                raise DatasetError(
                    f"no rows with split '{split}'", file=ds.source.location, field="split"
                )
            ds.table = ds.table[keep].reset_index(drop=True)
        return ds

    def _load_brackets(self, source: str | Path | None, split: str | None) -> Dataset:
        assert self.bracket is not None
        sample = source is None and self.columns.sample is not None
        src = str(self.columns.sample) if sample else source or self.default_source
        if src is None:
            raise DatasetError(f"{self.name}: pass the folder of the bracket files")
        files = RawFiles(str(src))
        read = read_brackets(files, self.bracket, split=split)
        info = files.source_info()
        if sample:
            info = replace(info, kind="sample")
        if read.records.empty:  # every line was left out: the findings are the answer
            raise ValidationFailed(read.findings, info.location, reason="no line could be read")
        records = read.records.rename(columns={f: self.col(f) for f in self.LOCALISED})
        if "source_line" in records.columns:  # findings name a bracket line, not a table row
            places = zip(records["source_file"], records.pop("source_line"), strict=True)
            records.attrs[SOURCE_LINES] = SharedRows(
                (files.location(str(f)), int(n)) for f, n in places
            )
        ds = self.from_frame(records, source=info, name=self.name, is_sample=sample)
        ds.findings[:0] = read.findings
        ds.metadata["stereotype_lists"] = read.stereotype_lists
        if sample and self.columns.sample_note:
            ds.metadata["note"] = self.columns.sample_note
        return ds

    def validate(self, ds: Dataset) -> list[Issue]:
        """Every mechanical check of the adaptation; one Issue per failure (empty: all pass).

        What loading left out comes first (``ds.findings``), then duplicated row ids (file, row
        and id; blocking), then the adaptation's checks."""
        issues = list(ds.findings)
        if self.bracket is None:  # bracket files: the reader reports repeated line numbers
            issues += duplicate_issues(
                ds.table, "row_id", file=ds.source.location, label="split/type/item_number/variant"
            )
        return issues + [issue for check in self.checks for issue in check(self, ds)]


def pair_matched(table: pd.DataFrame, wb: WinoBias) -> pd.Series:
    """True for rows of items with one pro and one anti line that differ only in the pronoun(s):
    the items the paired metrics (pair consistency, McNemar) can compare."""
    assert wb.bracket is not None
    masked = table[wb.col("sentence_annotated")].map(wb.bracket.mask_pronouns)
    key = table["item_id"]
    frame = pd.DataFrame({"key": key, "masked": masked, "cond": table["condition"].astype(str)})
    per_item = frame.groupby("key", sort=False).agg(
        variants=("masked", "nunique"), conds=("cond", lambda c: tuple(sorted(c)))
    )
    ok = (per_item["variants"] == 1) & per_item["conds"].map(lambda c: c == ("anti", "pro"))
    return key.map(ok).astype(bool)


def bracket_checks(wb: WinoBias, ds: Dataset) -> list[Issue]:
    """Checks of the bracket files' structure: each item has one pro and one anti sentence that
    differ only in the pronoun(s); pro means the pronoun's gender is the target's stereotype."""
    assert wb.bracket is not None
    t = ds.table
    issues: list[Issue] = []
    occupation = wb.col("target_occupation")
    for i, row in enumerate(t.to_dict("records"), start=1):
        pro = row["pronoun_gender"] == row["target_stereotype"]
        if pro != (row["condition"] == "pro"):
            issues.append(
                Issue(
                    "condition",
                    f"{row['condition']} sentence but the {row['pronoun_gender']} pronoun "
                    f"{'matches' if pro else 'does not match'} the {row['target_stereotype']} "
                    f"stereotype of '{row[occupation]}'",
                    row=i,
                    item=row["item_id"],
                )
            )
    for key, group in t.groupby(ITEM_KEY, observed=True, sort=True):
        iid = "/".join(str(k) for k in key)
        conds = sorted(group["condition"].astype(str))
        if conds != ["anti", "pro"]:
            issues.append(Issue("item", f"needs one pro and one anti line, has {conds}", item=iid))
            continue
        masked = {wb.bracket.mask_pronouns(s) for s in group[wb.col("sentence_annotated")]}
        if len(masked) != 1:
            issues.append(Issue("item", "pro and anti lines differ beyond the pronouns", item=iid))
    return issues


def _language_checks(wb: WinoBias, ds: Dataset) -> list[Issue]:
    """The Ukrainian card's pronoun, occupation-form, punctuation and length checks."""
    from .checks_uk import check_rows

    return check_rows(ds.table, ITEM_KEY)


UK = WinoBias(
    ColumnMap(
        name="winobias-uk",
        language="uk",
        sample=samples_folder(__name__) / "winobias_uk_natural_sample.csv",
        hub_id="FairForget/WinoBias-UK-Natural",
        review_status="preview; broader human review ongoing",
        sample_note=(
            "Bundled sample written for winoscope in the card's schema; not the WinoBias-UK "
            "Natural dataset. Numbers on it are for checking the pipeline only."
        ),
    ),
    checks=(card_checks, _language_checks),
)


def bracket_adaptation(
    columns: ColumnMap, fmt: BracketFormat | None = None, *, default_source: str | None = None
) -> WinoBias:
    """A WinoBias adaptation read from bracket files like the English release's.

    ``columns.sample`` (a folder of the files) is what ``load()`` reads without a source;
    ``default_source`` (a folder, URL prefix or zip) is read instead when there is no sample.
    """
    fmt = fmt or BracketFormat()
    enums = {
        "variant": ("mm", "ff"),
        "score_group": ("primary_balanced",),
        "condition": tuple(fmt.conditions),
        **columns.enums,
    }
    return WinoBias(
        replace(columns, enums=enums),
        fields=BRACKET_FIELDS,
        row_key="condition",
        bracket=fmt,
        default_source=default_source,
        checks=(bracket_checks,),
    )


EN = bracket_adaptation(
    ColumnMap(
        name="winobias-en",
        language="en",
        review_status="published dataset (Zhao et al., NAACL 2018)",
    ),
    BracketFormat.for_language("en"),
    default_source="https://raw.githubusercontent.com/uclanlp/corefBias/master/WinoBias/wino/data",
)
