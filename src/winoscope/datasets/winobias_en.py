"""English WinoBias (Zhao et al. 2018) as a WinoBias-UK-like table.

Source files (``WinoBias/wino/data`` of uclanlp/corefBias): ``{pro,anti}_stereotyped_{type1,
type2}.txt.{dev,test}``, one numbered bracket-annotated sentence a line::

    1 [The developer] argued with the designer because [he] did not like the design.

plus ``male_occupations.txt`` / ``female_occupations.txt`` (the occupations whose majority
workers are men / women in the US labour statistics: the stereotype lists).

Mapping to the WinoBias-UK record family: line *n* of the pro file and line *n* of the anti file
are one item (the same sentence with the pronoun's gender swapped), ``item_number`` = *n*;
``split`` dev -> ``validation``; every row is ``score_group = primary_balanced`` with
``coreference_role = target`` (the bracketed occupation). English nouns carry no grammatical
gender, so ``variant`` only records the pronoun: ``mm`` for he/him/his, ``ff`` for
she/her/hers, which makes the WinoBias-UK pair consistency "pro and anti sentence of an item
both correct". The other occupation is the first other listed occupation in the sentence.
Where a line brackets the pronoun twice (``[she] ... [her]``), the first is the one asked about.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..errors import DatasetError
from .annotation import bracket_mentions, strip_brackets
from .base import Dataset, Issue
from .raw_files import RawFiles
from .schema import Field, Schema, coerce
from .sources import SourceInfo

DEFAULT_SOURCE = "https://raw.githubusercontent.com/uclanlp/corefBias/master/WinoBias/wino/data"
REVIEW_STATUS = "published dataset (Zhao et al., NAACL 2018)"
CONDITIONS = ("pro", "anti")
TYPES = ("type1", "type2")
SPLITS = {"dev": "validation", "test": "test"}
LIST_FILES = {"male": "male_occupations.txt", "female": "female_occupations.txt"}
PRONOUN_GENDER = {
    **dict.fromkeys(["he", "him", "his", "himself"], "male"),
    **dict.fromkeys(["she", "her", "hers", "herself"], "female"),
}
_LINE = re.compile(r"^\s*(\d+)\s+(.*\S)\s*$")
_DET = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)

SCHEMA = Schema(
    family="winobias-en",
    fields=(
        Field("item_number", "int"),
        Field("split", enum=("validation", "test"), aliases={"dev": "validation"}),
        Field("type", enum=TYPES),
        Field("variant", enum=("mm", "ff")),
        Field("score_group", enum=("primary_balanced",)),
        Field("condition", enum=CONDITIONS),
        Field("target_occupation_en"),
        Field("other_occupation_en"),
        Field("target_stereotype", enum=("male", "female")),
        Field("other_stereotype", enum=("male", "female")),
        Field("pronoun_gender", enum=("male", "female")),
        Field("coreference_role", enum=("target", "distractor")),
        Field("sentence_en"),
        Field("sentence_annotated_en"),
        Field("target_span_en"),
        Field("other_span_en"),
        Field("pronoun_span_en"),
        Field("source_file"),
    ),
)
ITEM_KEY = ["split", "type", "item_number"]


def file_name(condition: str, typ: str, split: str) -> str:
    return f"{condition}_stereotyped_{typ}.txt.{split}"


def parse_list(text: str) -> list[str]:
    return [w.strip() for w in text.splitlines() if w.strip()]


def _occupation_pattern(occupations: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(o) for o in sorted(occupations, key=len, reverse=True))
    return re.compile(rf"\b(?:(?:the|a|an)\s+)?({alternatives})\b", re.IGNORECASE)


def parse_line(
    line: str,
    *,
    stereotypes: dict[str, str],
    pattern: re.Pattern[str],
    where: str,
    row: int,
) -> dict[str, object]:
    """One bracket line -> the record's sentence fields; DatasetError names the line."""
    m = _LINE.match(line)
    if not m:
        raise DatasetError("expected 'NUMBER sentence'", file=where, row=row)
    number, annotated = int(m.group(1)), m.group(2)
    try:
        mentions = bracket_mentions(annotated)
    except ValueError as exc:
        raise DatasetError(str(exc), file=where, row=row, field="sentence") from None
    pronouns = [x for x in mentions if x.text.strip().lower() in PRONOUN_GENDER]
    entities = [x for x in mentions if x.text.strip().lower() not in PRONOUN_GENDER]
    if not pronouns or len(entities) != 1:
        raise DatasetError(
            f"expected one bracketed occupation and a bracketed pronoun, found "
            f"{', '.join(repr(x.text) for x in mentions) or 'none'}",
            file=where,
            row=row,
            field="sentence",
        )
    gold, pron = entities[0], pronouns[0]
    target = _DET.sub("", gold.text.strip()).lower()
    if target not in stereotypes:
        raise DatasetError(
            f"bracketed referent {gold.text!r} is not in the occupation lists",
            file=where,
            row=row,
            field="sentence",
        )
    sentence = strip_brackets(annotated)
    others = [
        o
        for o in pattern.finditer(sentence)
        if o.group(1).lower() != target and not (gold.start <= o.start() < gold.end)
    ]
    if not others:
        raise DatasetError(
            "no second occupation from the lists in the sentence",
            file=where,
            row=row,
            field="sentence",
        )
    other = others[0]
    genders = {PRONOUN_GENDER[p.text.strip().lower()] for p in pronouns}
    if len(genders) != 1:
        raise DatasetError(
            "bracketed pronouns of both genders", file=where, row=row, field="sentence"
        )
    pg = genders.pop()
    return {
        "item_number": number,
        "target_occupation_en": target,
        "other_occupation_en": other.group(1).lower(),
        "target_stereotype": stereotypes[target],
        "other_stereotype": stereotypes[other.group(1).lower()],
        "pronoun_gender": pg,
        "variant": "mm" if pg == "male" else "ff",
        "coreference_role": "target",
        "score_group": "primary_balanced",
        "sentence_en": sentence,
        "sentence_annotated_en": annotated,
        "target_span_en": gold.text.strip(),
        "other_span_en": other.group(0),
        "pronoun_span_en": pron.text.strip(),
    }


def load(
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
    cache_dir: str | None = None,
) -> Dataset:
    """Load English WinoBias from a local folder, a URL prefix (default: the public repository's
    raw files) or a zip of that folder. ``split`` keeps ``validation`` (dev) or ``test`` only."""
    del revision, cache_dir  # raw files: the URL itself names the revision
    files = RawFiles(str(source) if source is not None else DEFAULT_SOURCE)
    stereotypes: dict[str, str] = {}
    for gender, name in LIST_FILES.items():
        for occ in parse_list(files.read_text(name)):
            stereotypes[occ.lower()] = gender
    pattern = _occupation_pattern(list(stereotypes))
    want = None
    if split is not None:
        want = SPLITS.get(split, split)
        if want not in SPLITS.values():
            raise DatasetError(
                f"unknown split '{split}' (use validation/dev or test)", field="split"
            )
    records = []
    for raw_split, split_name in SPLITS.items():
        if want is not None and split_name != want:
            continue
        for typ in TYPES:
            for condition in CONDITIONS:
                name = file_name(condition, typ, raw_split)
                where = files.location(name)
                lines = [ln for ln in files.read_text(name).splitlines() if ln.strip()]
                for i, line in enumerate(lines, start=1):
                    rec = parse_line(
                        line, stereotypes=stereotypes, pattern=pattern, where=where, row=i
                    )
                    rec.update(split=split_name, type=typ, condition=condition, source_file=name)
                    records.append(rec)
    info = files.source_info()
    return from_frame(pd.DataFrame.from_records(records), source=info, name="winobias-en")


def from_frame(raw: pd.DataFrame, *, source: SourceInfo, name: str = "winobias-en") -> Dataset:
    table = coerce(raw, SCHEMA, source=source.location)
    table = table[SCHEMA.names + [c for c in table.columns if c not in SCHEMA.names]]
    table["item_id"] = (
        table["split"].astype(str) + "/" + table["type"].astype(str) + "/"
        + table["item_number"].astype(str)
    )  # fmt: skip
    table["row_id"] = table["item_id"] + "/" + table["condition"].astype(str)
    table["pair_matched"] = pair_matched(table)
    return Dataset(
        family="winobias-en",
        name=name,
        table=table,
        source=source,
        review_status=REVIEW_STATUS,
        metadata={"stereotype_lists": "male_occupations.txt, female_occupations.txt"},
    )


def pair_matched(table: pd.DataFrame) -> pd.Series:
    """True for rows of items with one pro and one anti line that differ only in the pronoun(s):
    the items the paired metrics (pair consistency, McNemar) can compare."""
    masked = table["sentence_annotated_en"].map(_mask_pronouns)
    key = table["item_id"]
    frame = pd.DataFrame({"key": key, "masked": masked, "cond": table["condition"].astype(str)})
    per_item = frame.groupby("key", sort=False).agg(
        variants=("masked", "nunique"), conds=("cond", lambda c: tuple(sorted(c)))
    )
    ok = (per_item["variants"] == 1) & per_item["conds"].map(lambda c: c == ("anti", "pro"))
    return key.map(ok).astype(bool)


def validate(ds: Dataset) -> list[Issue]:
    """Checks of the published structure: each item has one pro and one anti sentence that
    differ only in the pronoun(s); pro means the pronoun's gender is the target's stereotype."""
    t = ds.table
    issues: list[Issue] = []
    for i, row in enumerate(t.to_dict("records"), start=1):
        pro = row["pronoun_gender"] == row["target_stereotype"]
        if pro != (row["condition"] == "pro"):
            issues.append(
                Issue(
                    "condition",
                    f"{row['condition']} sentence but the {row['pronoun_gender']} pronoun "
                    f"{'matches' if pro else 'does not match'} the {row['target_stereotype']} "
                    f"stereotype of '{row['target_occupation_en']}'",
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
        masked = {
            _mask_pronouns(s) for s in group["sentence_annotated_en"]
        }  # the same sentence up to the pronouns
        if len(masked) != 1:
            issues.append(Issue("item", "pro and anti lines differ beyond the pronouns", item=iid))
    return issues


_PRONOUN_WORD = re.compile(r"\[(?:he|she|him|her|his|hers|himself|herself)\]", re.IGNORECASE)


def _mask_pronouns(annotated: str) -> str:
    return _PRONOUN_WORD.sub("[PRON]", annotated)
