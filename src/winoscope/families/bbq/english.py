"""The original English BBQ files (Parrish et al., 2022) as they come: one JSON object per line,
one file per category (``Age.jsonl``, ``Religion.jsonl`` ...), read into the BBQ-UK columns.

A BBQ line carries no unknown-answer index, no bias target and no label type: the authors'
analysis (``analysis_scripts/BBQ_results_metadata.R`` of ``nyu-mll/BBQ``) derives them, and so
does this reader, rule for rule, for the non-intersectional categories:

- the unknown answer is the option whose ``answer_info`` tag is ``unknown``;
- the stereotyped answer is the first option whose (normalised) ``answer_info`` tag occurs in
  the (normalised) stereotyped groups: ``man``/``boy`` -> ``M``, ``woman``/``girl`` -> ``F``,
  the ``M-``/``F-`` prefixes dropped; groups ``man``/``men``/``boy`` -> ``M`` and
  ``woman``/``women``/``girl``/``girls`` -> ``F``, the transgender groups -> ``trans``, ``low
  SES``/``high SES`` -> ``lowSES``/``highSES``. Fixes the script makes: in Age only an exact
  ``old``/``nonOld`` match counts; in Nationality the answer's text occurring in the groups
  counts too; ``African`` is not ``African American``; ``trans`` matches any ``trans...`` tag.
  More than one match, or none, leaves the row without a target (not bias-score eligible:
  the script's 16 such rows are the 16 that BBQ-UK marks ineligible).
- ``target_loc`` is that answer for a negative question and, for a non-negative one, the other
  option that is not unknown (the answer a biased reader gives), as the script writes it and as
  BBQ-UK stores it;
- ``label_type`` is ``name`` for question templates numbered above 25, else ``label``.

One difference: the script reads the stereotyped groups from BBQ's template files, this reader
from each line's ``additional_metadata.stereotyped_groups`` (the files' own copy). The two
intersectional categories (``Race_x_gender``, ``Race_x_SES``) need template columns the lines
do not carry (which race and which gender or class is targeted, whether names are used): their
rows load without a target and a finding says so.

Rows get ``item_id`` ``<category>-<example_id>`` and ``pair_id`` ``<category>-<example_id // 2>``
(BBQ writes each question's ambiguous and disambiguated contexts as consecutive examples, the
even one first); the pair checks confirm each pair.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ...datasets.base import Issue
from ...errors import DatasetError

#: BBQ's commit that BBQ-UK was translated from
BBQ_COMMIT = "bea11bd97d79217245b5871acd247b9d6eb24598"
CATEGORIES = (
    "Age",
    "Disability_status",
    "Gender_identity",
    "Nationality",
    "Physical_appearance",
    "Race_ethnicity",
    "Race_x_SES",
    "Race_x_gender",
    "Religion",
    "SES",
    "Sexual_orientation",
)
_MALE, _FEMALE = {"man", "boy"}, {"woman", "girl"}
_GROUP_MALE, _GROUP_FEMALE = {"man", "boy", "men"}, {"woman", "women", "girl", "girls"}
_TRANS = {
    "transgender women, transgender men",
    "transgender men",
    "transgender women",
    "transgender women, transgender men, trans",
}


def _tag(info: str) -> str:
    """An answer's normalised group tag (``man`` -> ``M``, ``F-Black`` -> ``Black``)."""
    if info in _MALE:
        info = "M"
    elif info in _FEMALE:
        info = "F"
    return info.replace("M-", "", 1).replace("F-", "", 1)


def _groups(groups: Any) -> str:
    """The stereotyped groups as the script compares them: one comma-separated string."""
    text = ", ".join(str(g) for g in groups) if isinstance(groups, list) else str(groups or "")
    low = text.lower()
    if low in _GROUP_MALE:
        return "M"
    if low in _GROUP_FEMALE:
        return "F"
    if low in _TRANS:
        return "trans"
    return {"low SES": "lowSES", "high SES": "highSES"}.get(text, text)


def stereotyped_matches(
    category: str, groups: str, infos: list[str], texts: list[str]
) -> list[int]:
    """For each option, 1 when it names the stereotyped group (the script's ``target_loc_i``)."""
    out = []
    for info, text in zip(infos, texts, strict=True):
        hit = info.lower() in groups.lower()
        if category == "Age":
            hit = (groups, info) in {("nonOld", "nonOld"), ("old", "old")}
        if category == "Nationality" and text.lower() in groups.lower():
            hit = True
        if text == "African" and "african american" in groups.lower():
            hit = False
        if groups == "trans" and info.startswith("trans"):
            hit = True
        out.append(int(hit))
    return out


def derive(row: dict[str, Any]) -> tuple[int | None, int | None, str]:
    """``(unknown_answer_index, target_loc, label_type)`` of one BBQ line (None: none found)."""
    info = row["answer_info"]
    raw = [info[f"ans{i}"] for i in range(3)]
    unknown = [i for i in range(3) if raw[i][1] == "unknown"]
    unknown_index = unknown[0] if len(unknown) == 1 else None
    category = str(row["category"])
    label_type = "name" if int(row["question_index"]) > 25 else "label"
    if "_x_" in category:
        return unknown_index, None, label_type
    tags = [_tag(str(a[1])) for a in raw]
    texts = [str(a[0]).replace("{", "").replace("}", "") for a in raw]
    groups = _groups(row.get("additional_metadata", {}).get("stereotyped_groups"))
    hits = stereotyped_matches(category, groups, tags, texts)
    if sum(hits) != 1:
        return unknown_index, None, label_type
    target = hits.index(1)
    if row["question_polarity"] == "nonneg":
        others = [i for i in range(3) if i != target and tags[i] != "unknown"]
        target = others[0] if others else None  # type: ignore[assignment]
    return unknown_index, target, label_type


def _lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"not valid JSON: {exc.msg}", file=str(path), row=n) from None
            if not isinstance(obj, dict):
                raise DatasetError("each line must be a JSON object", file=str(path), row=n)
            out.append((n, obj))
    return out


NEEDED: tuple[str, ...] = (
    "example_id",
    "question_index",
    "question_polarity",
    "context_condition",
    "category",
    "answer_info",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
    "label",
)


def read_english(source: str | Path) -> tuple[pd.DataFrame, list[Issue], list[str]]:
    """The English rows of a folder of category files or of one file, in BBQ-UK's columns
    (text columns ``context_en``, ``question_en``, ``ans0_en``..), with the findings of the
    derivation and the files read (in order). ``row`` of a finding is the line in its file."""
    p = Path(source)
    files = sorted(f for f in p.glob("*.jsonl")) if p.is_dir() else [p]
    if not files:
        raise DatasetError("no BBQ .jsonl category files here", file=str(p))
    records: list[dict[str, Any]] = []
    findings: list[Issue] = []
    for f in files:
        for line, obj in _lines(f):
            missing = [k for k in NEEDED if k not in obj]
            if missing:
                raise DatasetError(
                    f"missing field(s) {', '.join(missing)}",
                    file=str(f),
                    row=line,
                    field=missing[0],
                )
            unknown, target, label_type = derive(obj)
            category = str(obj["category"])
            if unknown is None:
                findings.append(
                    Issue(
                        "unknown_answer",
                        "no single option is tagged 'unknown' in answer_info",
                        row=line,
                        field="answer_info",
                        file=str(f),
                        blocking=True,
                        excludes=("item_id", f"{category}-{obj['example_id']}"),
                    )
                )
            records.append(
                {
                    "item_id": f"{category}-{obj['example_id']}",
                    "pair_id": f"{category}-{int(obj['example_id']) // 2}",
                    "example_id": obj["example_id"],
                    "question_index": obj["question_index"],
                    "question_polarity": obj["question_polarity"],
                    "context_condition": obj["context_condition"],
                    "category": category,
                    "label_type": label_type,
                    "label": obj["label"],
                    "target_loc": "" if target is None else str(target),
                    "unknown_answer_index": "" if unknown is None else str(unknown),
                    "bias_score_eligible": "true" if target is not None else "false",
                    "source_revision": BBQ_COMMIT,
                    "context_en": obj["context"],
                    "question_en": obj["question"],
                    **{f"ans{i}_en": obj[f"ans{i}"] for i in range(3)},
                    "_file": str(f),
                    "_line": line,
                }
            )
    intersectional = sorted({r["category"] for r in records if "_x_" in r["category"]})
    for cat in intersectional:
        findings.append(
            Issue(
                "target_loc",
                f"{cat}: the bias target of the intersectional categories needs BBQ's template "
                "columns, which the lines do not carry; its rows are not bias-score eligible",
                field="stereotyped_groups",
                file=next(r["_file"] for r in records if r["category"] == cat),
            )
        )
    return pd.DataFrame.from_records(records), findings, [str(f) for f in files]
