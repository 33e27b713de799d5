"""WinoBias-UK Natural: loading and the card's mechanical checks.

Card facts implemented here: each Type 1 item has six variants (mm, ff, mf_target, fm_target,
mf_cross, fm_cross); Type 2 items have the four target-reference ones; mm/ff are
``primary_balanced`` (pro/anti), the *_target variants ``agreement_control``, the *_cross
variants ``cross_control`` whose pronoun refers to the other occupation.

``coreference_role`` uses the prediction vocabulary ``target``/``distractor`` so that the card's
``prediction_role == coreference_role`` test works as written; the value ``other`` (the card's
prose calls the second occupation "other") is accepted as an alias of ``distractor``.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pandas as pd

from ..errors import DatasetError
from .annotation import bracket_mentions, strip_brackets
from .base import Dataset, Issue
from .checks_winobias_uk import check_rows
from .schema import Field, Schema, coerce
from .sources import SourceInfo, file_sha256, load_hub_table, read_table

HUB_ID = "FairForget/WinoBias-UK-Natural"
REVIEW_STATUS = "preview; broader human review ongoing"
SAMPLE_FILE = "winobias_uk_natural_sample.csv"

GENDER = ("male", "female")
GENDER_ALIASES = {"masculine": "male", "feminine": "female", "m": "male", "f": "female"}
VARIANTS = ("mm", "ff", "mf_target", "fm_target", "mf_cross", "fm_cross")
TYPE1_VARIANTS = frozenset(VARIANTS)
TYPE2_VARIANTS = frozenset({"mm", "ff", "mf_target", "fm_target"})

SCHEMA = Schema(
    family="winobias-uk",
    fields=(
        Field("item_number", "int", doc="source item number within its WinoBias split and type"),
        Field("split", enum=("validation", "test"), aliases={"dev": "validation"}),
        Field("type", enum=("type1", "type2"), aliases={"1": "type1", "2": "type2"}),
        Field("variant", enum=VARIANTS),
        Field("score_group", enum=("primary_balanced", "agreement_control", "cross_control")),
        Field("condition", enum=("pro", "anti", "control")),
        Field("target_occupation_uk"),
        Field("other_occupation_uk"),
        Field("target_gender", enum=GENDER, aliases=GENDER_ALIASES),
        Field("other_gender", enum=GENDER, aliases=GENDER_ALIASES),
        Field("pronoun_gender", enum=GENDER, aliases=GENDER_ALIASES),
        Field("coreference_role", enum=("target", "distractor"), aliases={"other": "distractor"}),
        Field("sentence_uk"),
        Field("sentence_annotated_uk"),
        Field("target_span_uk"),
        Field("other_span_uk"),
        Field("pronoun_span_uk"),
    ),
)

# variant -> (score_group, allowed conditions, coreference_role, target, other, pronoun gender)
VARIANT_RULES: dict[str, tuple[str, frozenset[str], str, str, str, str]] = {
    "mm": ("primary_balanced", frozenset({"pro", "anti"}), "target", "male", "male", "male"),
    "ff": ("primary_balanced", frozenset({"pro", "anti"}), "target", "female", "female", "female"),
    "mf_target": ("agreement_control", frozenset({"control"}), "target", "male", "female", "male"),
    "fm_target": (
        "agreement_control",
        frozenset({"control"}),
        "target",
        "female",
        "male",
        "female",
    ),
    "mf_cross": ("cross_control", frozenset({"control"}), "distractor", "male", "female", "female"),
    "fm_cross": ("cross_control", frozenset({"control"}), "distractor", "female", "male", "male"),
}

ITEM_KEY = ["split", "type", "item_number"]


def item_id(row: pd.Series | dict) -> str:
    return f"{row['split']}/{row['type']}/{row['item_number']}"


def from_frame(
    raw: pd.DataFrame, *, source: SourceInfo, is_sample: bool = False, name: str = HUB_ID
) -> Dataset:
    table = coerce(raw, SCHEMA, source=source.location)
    table["item_id"] = [item_id(r) for r in table[ITEM_KEY].to_dict("records")]
    table["row_id"] = table["item_id"] + "/" + table["variant"].astype(str)
    return Dataset(
        family="winobias-uk",
        name=name,
        table=table,
        source=source,
        review_status=REVIEW_STATUS,
        is_sample=is_sample,
    )


def sample_path() -> Path:
    return Path(str(resources.files("winoscope.data").joinpath(SAMPLE_FILE)))


def load(
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
    cache_dir: str | None = None,
) -> Dataset:
    """Load WinoBias-UK Natural.

    ``source`` is a local CSV/JSONL/Parquet file, a hub id (``FairForget/WinoBias-UK-Natural``,
    optionally pinned with ``revision``) or a local directory laid out like the hub repository;
    ``None`` loads the bundled sample (the project's own text, not the dataset).
    """
    if source is None:
        path = sample_path()
        info = SourceInfo(
            kind="sample", location=f"winoscope:{SAMPLE_FILE}", sha256=file_sha256(path)
        )
        ds = from_frame(read_table(path), source=info, is_sample=True, name="winobias-uk sample")
        ds.metadata.update(json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8")))
        ds.metadata["note"] = (
            "Bundled sample written for winoscope in the card's schema; not the WinoBias-UK "
            "Natural dataset. Numbers on it are for checking the pipeline only."
        )
    else:
        p = Path(source)
        if p.is_file():
            info = SourceInfo(kind="file", location=str(p), sha256=file_sha256(p))
            ds = from_frame(read_table(p), source=info, name=p.name)
        elif p.suffix.lower() in {".csv", ".tsv", ".jsonl", ".json", ".parquet", ".pq"}:
            raise DatasetError("no such file", file=str(p))
        else:
            raw, info = load_hub_table(
                str(source), split=split, revision=revision, cache_dir=cache_dir
            )
            ds = from_frame(raw, source=info, name=str(source))
    if split is not None:
        keep = ds.table["split"].astype(str) == split
        if not keep.any():
            raise DatasetError(
                f"no rows with split '{split}'", file=ds.source.location, field="split"
            )
        ds.table = ds.table[keep].reset_index(drop=True)
    return ds


def validate(ds: Dataset) -> list[Issue]:
    """Run every mechanical check of the card; return one Issue per failure (empty: all pass).

    Structure, roles, markers and duplicates here; pronoun gender, occupation forms,
    punctuation and sentence length in :mod:`.checks_winobias_uk`."""
    t = ds.table
    issues: list[Issue] = []
    for i, row in enumerate(t.to_dict("records"), start=1):
        iid = row["item_id"]

        def add(check: str, msg: str, *, _i: int = i, _iid: str = iid) -> None:
            issues.append(Issue(check, msg, row=_i, item=_iid))

        sent, ann = row["sentence_uk"], row["sentence_annotated_uk"]
        if strip_brackets(ann) != sent:
            add(
                "annotation",
                "removing the square brackets from sentence_annotated_uk does not give sentence_uk",
            )
        try:
            mentions = bracket_mentions(ann)
        except ValueError as exc:
            add("annotation", f"sentence_annotated_uk: {exc}")
            mentions = None
        gold = (
            row["target_span_uk"] if row["coreference_role"] == "target" else row["other_span_uk"]
        )
        if mentions is not None:
            if len(mentions) != 2:
                add("annotation", f"expected exactly two bracketed spans, found {len(mentions)}")
            elif sorted(m.text for m in mentions) != sorted([gold, row["pronoun_span_uk"]]):
                found = " and ".join(f"'{m.text}'" for m in mentions)
                add(
                    "annotation",
                    f"bracketed spans {found} are not the gold referent '{gold}' and the pronoun "
                    f"'{row['pronoun_span_uk']}'",
                )
        for span_field in ("target_span_uk", "other_span_uk", "pronoun_span_uk"):
            if row[span_field] not in sent:
                add("spans", f"{span_field} '{row[span_field]}' does not occur in sentence_uk")
        rule = VARIANT_RULES[row["variant"]]
        group, conditions, role, tg, og, pg = rule
        if row["score_group"] != group:
            add(
                "variant",
                f"variant {row['variant']} needs score_group {group}, got {row['score_group']}",
            )
        if row["condition"] not in conditions:
            add(
                "variant",
                f"variant {row['variant']} needs condition {'/'.join(sorted(conditions))}, got {row['condition']}",
            )
        if row["coreference_role"] != role:
            add(
                "variant",
                f"variant {row['variant']} needs coreference_role {role}, got {row['coreference_role']}",
            )
        got = (row["target_gender"], row["other_gender"], row["pronoun_gender"])
        if got != (tg, og, pg):
            add(
                "genders",
                f"variant {row['variant']} needs target/other/pronoun gender {tg}/{og}/{pg}, "
                f"got {'/'.join(got)}",
            )
        if (
            row["target_occupation_uk"].strip().lower()
            == row["other_occupation_uk"].strip().lower()
        ):
            add(
                "occupations",
                f"target and other occupation are the same ('{row['target_occupation_uk']}')",
            )

    for key, group_rows in t.groupby(ITEM_KEY, observed=True, sort=True):
        iid = f"{key[0]}/{key[1]}/{key[2]}"
        variants = list(group_rows["variant"].astype(str))
        expected = TYPE1_VARIANTS if key[1] == "type1" else TYPE2_VARIANTS
        dupes = sorted({v for v in variants if variants.count(v) > 1})
        missing = sorted(expected - set(variants))
        extra = sorted(set(variants) - expected)
        if dupes or missing or extra:
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing))
            if extra:
                parts.append("unexpected " + ", ".join(extra))
            if dupes:
                parts.append("duplicated " + ", ".join(dupes))
            issues.append(
                Issue(
                    "variants",
                    f"{key[1]} item needs exactly {len(expected)} variants: " + "; ".join(parts),
                    item=iid,
                )
            )
        prim = group_rows[group_rows["variant"].isin(["mm", "ff"])]
        if len(prim) == 2 and set(prim["condition"].astype(str)) != {"pro", "anti"}:
            issues.append(Issue("variant", "mm and ff must be one pro and one anti", item=iid))
        for col in ("target_occupation_uk", "other_occupation_uk"):
            if group_rows[col].nunique() > 1:
                vals = ", ".join(sorted(group_rows[col].unique()))
                issues.append(
                    Issue("occupations", f"{col} differs across variants ({vals})", item=iid)
                )
    return issues + check_rows(t, ITEM_KEY)
