"""Reading WinoBias's bracket files into WinoBias family records (any language).

The English release (``WinoBias/wino/data`` of uclanlp/corefBias) has
``{pro,anti}_stereotyped_{type1,type2}.txt.{dev,test}``, one numbered bracket-annotated
sentence a line::

    1 [The developer] argued with the designer because [he] did not like the design.

plus ``male_occupations.txt`` / ``female_occupations.txt`` (the occupations whose majority
workers are men / women in the US labour statistics: the stereotype lists).

Other releases differ; :class:`~.bracket_format.BracketFormat` says how (file names, numbering,
stereotype lists, the language's pronouns and articles).

Nothing stops at the first bad line: a line that cannot be parsed is a blocking finding (file,
line, field, reason), its twin in the paired file is left out with it (another finding), and
the rest is read. A missing or empty file, a missing partner file and an empty list are load
errors naming that file.

Mapping onto the family: line *n* of the pro file and line *n* of the anti file are one item
(the same sentence with the pronoun's gender swapped), ``item_number`` = *n*; ``split`` dev ->
``validation``; every row is ``score_group = primary_balanced`` with ``coreference_role =
target`` (the bracketed occupation). ``variant`` only records the pronoun: ``mm`` for a male
pronoun, ``ff`` for a female one, which makes the pair consistency "pro and anti sentence of an
item both correct". The other occupation is the first other listed occupation in the sentence.
Where a line brackets the pronoun twice (``[she] ... [her]``), the first is the one asked about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ...datasets.annotation import Mention, bracket_mentions, strip_brackets
from ...datasets.base import Issue
from ...datasets.raw_files import RawFiles
from ...errors import DatasetError
from .bracket_format import BracketFormat

_LINE = re.compile(r"^\s*(\d+)\s+(.*\S)\s*$")
Key = tuple[str, str, str, int]  # split, type, condition, item number
OPPOSITE = {"male": "female", "female": "male"}


def parse_list(text: str) -> list[str]:
    return [w.strip() for w in text.splitlines() if w.strip()]


class LineError(ValueError):
    """A bracket line that cannot be parsed; ``field`` names what is wrong."""

    def __init__(self, message: str, field: str = "sentence") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Line:
    """One bracket line after the first pass (no occupation lists needed)."""

    file: str  # the file's name in the release
    where: str  # its location (folder/name, URL, archive!name)
    line: int  # 1-based line of the file
    key: int  # the item number: the line's number, or its position (unnumbered)
    split: str
    type: str
    condition: str
    annotated: str
    gold: Mention
    pronouns: tuple[Mention, ...]
    gender: str  # the bracketed pronoun's gender

    @property
    def target(self) -> str:
        return self.gold.text.strip()


def _numbered(lines: list[str], numbering: str) -> bool:
    if numbering != "auto":
        return numbering == "numbered"
    return sum(bool(_LINE.match(x)) for x in lines) * 2 > len(lines)


def first_pass(
    text: str,
    fmt: BracketFormat,
    *,
    file: str,
    where: str,
    split: str,
    typ: str,
    condition: str,
    bad: list[tuple[Key | None, Issue]],
) -> list[Line]:
    """The lines of one file that parse (bracket structure, one occupation and its pronoun);
    every other one is a finding in ``bad``. An empty file is a load error."""
    numbered_lines = [(n, x) for n, x in enumerate(text.splitlines(), start=1) if x.strip()]
    if not numbered_lines:
        raise DatasetError("the file is empty (no sentence lines)", file=where)
    numbered = _numbered([x for _, x in numbered_lines], fmt.numbering)
    out: list[Line] = []
    seen: dict[int, int] = {}
    for position, (n, raw) in enumerate(numbered_lines, start=1):
        key, annotated = position, raw.strip()
        try:
            if numbered:
                m = _LINE.match(raw)
                if not m:
                    raise LineError("expected 'NUMBER sentence'", "item_number")
                key, annotated = int(m.group(1)), m.group(2)
            if key in seen:
                raise LineError(
                    f"item number {key} repeats line {seen[key]} of this file", "item_number"
                )
            seen[key] = n
            out.append(_structure(annotated, fmt, file, where, n, key, split, typ, condition))
        except LineError as exc:
            repeated = "repeats line" in str(exc)  # its first line still pairs: no twin
            issue = Issue(
                "duplicate" if repeated else "parse",
                str(exc),
                item=f"{split}/{typ}/{key}",
                field=exc.field,
                file=where,
                line=n,
                blocking=True,
            )
            bad.append((None if repeated else (split, typ, condition, key), issue))
    return out


def _structure(
    annotated: str,
    fmt: BracketFormat,
    file: str,
    where: str,
    n: int,
    key: int,
    split: str,
    typ: str,
    condition: str,
) -> Line:
    try:
        mentions = bracket_mentions(annotated)
    except ValueError as exc:
        raise LineError(str(exc)) from None
    pronouns = tuple(x for x in mentions if x.text.strip().lower() in fmt.pronouns)
    entities = [x for x in mentions if x.text.strip().lower() not in fmt.pronouns]
    if not pronouns or len(entities) != 1:
        raise LineError(
            "expected one bracketed occupation and a bracketed pronoun, found "
            f"{', '.join(repr(x.text) for x in mentions) or 'none'}"
        )
    genders = {fmt.pronouns[p.text.strip().lower()] for p in pronouns}
    if len(genders) != 1:
        raise LineError("bracketed pronouns of both genders")
    return Line(
        file, where, n, key, split, typ, condition, annotated, entities[0], pronouns, genders.pop()
    )


def derive_stereotypes(lines: list[Line], fmt: BracketFormat) -> tuple[dict[str, str], list[Issue]]:
    """Each bracketed occupation form's stereotype from the pro/anti files: the majority over
    its labelled lines (a pro line's pronoun has the stereotype's gender, an anti line's the
    other). A form with lines of both answers is a ``stereotype`` finding listing the counts;
    a tie leaves the form without a stereotype (its lines then fail to parse)."""
    votes: dict[str, dict[str, int]] = {}
    for ln in lines:
        form = fmt.strip_determiner(ln.target).lower()
        says = ln.gender if ln.condition == "pro" else OPPOSITE[ln.gender]
        votes.setdefault(form, {"male": 0, "female": 0})[says] += 1
    out: dict[str, str] = {}
    conflicts: list[Issue] = []
    for form, v in sorted(votes.items()):
        if v["male"] != v["female"]:
            out[form] = "male" if v["male"] > v["female"] else "female"
        if v["male"] and v["female"]:
            verdict = f"majority {out[form]}" if form in out else "a tie: no stereotype"
            conflicts.append(
                Issue(
                    "stereotype",
                    f"derived stereotype of '{form}': {v['male']} labelled line(s) make it male, "
                    f"{v['female']} female ({verdict})",
                    item=form,
                    field="target_stereotype",
                    blocking=form not in out,
                )
            )
    return out, conflicts


def second_pass(
    ln: Line,
    stereotypes: Mapping[str, str],
    pattern: re.Pattern[str],
    fmt: BracketFormat,
    *,
    derived: bool = False,
) -> dict[str, object]:
    """A first-pass line -> the record's fields (family names); LineError says what is wrong."""
    gold = ln.gold
    target = fmt.strip_determiner(gold.text.strip()).lower()
    if target not in stereotypes:
        raise LineError(
            f"bracketed referent {gold.text!r} "
            + ("has no derived stereotype (a tie)" if derived else "is not in the occupation lists")
        )
    sentence = strip_brackets(ln.annotated)
    others = [
        o
        for o in pattern.finditer(sentence)
        if o.group(1).lower() != target and not (gold.start <= o.start() < gold.end)
    ]
    if not others:
        raise LineError("no second occupation from the lists in the sentence")
    other = others[0]
    return {
        "item_number": ln.key,
        "target_occupation": target,
        "other_occupation": other.group(1).lower(),
        "target_stereotype": stereotypes[target],
        "other_stereotype": stereotypes[other.group(1).lower()],
        "pronoun_gender": ln.gender,
        "variant": "mm" if ln.gender == "male" else "ff",
        "coreference_role": "target",
        "score_group": "primary_balanced",
        "sentence": sentence,
        "sentence_annotated": ln.annotated,
        "target_span": gold.text.strip(),
        "other_span": other.group(0),
        "pronoun_span": ln.pronouns[0].text.strip(),
        "split": ln.split,
        "type": ln.type,
        "condition": ln.condition,
        "source_file": ln.file,
        "source_line": ln.line,
    }


@dataclass
class BracketRead:
    """What :func:`read_brackets` read: the records, the findings (lines left out, their
    twins, stereotype conflicts) and where the stereotypes came from."""

    records: pd.DataFrame
    findings: list[Issue]
    stereotype_lists: str


def _stereotypes_from_lists(files: RawFiles, fmt: BracketFormat) -> dict[str, str] | None:
    """The stereotype lists, or None where the release has none (and ``lists`` allows it)."""
    texts = {
        g: (name, None if fmt.lists == "derive" else files.read_optional(name))
        for g, name in fmt.list_files.items()
    }
    present = [g for g, (_, t) in texts.items() if t is not None]
    if not present:
        if fmt.lists == "lists" and texts:
            name = next(iter(texts.values()))[0]
            raise DatasetError("no such file (the stereotype list)", file=files.location(name))
        return None
    for g, (name, text) in texts.items():
        if text is None:
            partner = fmt.list_files[present[0]]
            raise DatasetError(
                f"no such file: the {g} stereotype list, the partner of {partner}",
                file=files.location(name),
            )
    stereotypes: dict[str, str] = {}
    for g, (name, text) in texts.items():
        occupations = parse_list(text or "")
        if not occupations:
            raise DatasetError("the stereotype list is empty", file=files.location(name))
        for occ in occupations:
            stereotypes[occ.lower()] = g
    return stereotypes


def read_brackets(files: RawFiles, fmt: BracketFormat, *, split: str | None = None) -> BracketRead:
    """Every line of every split/type/condition file that parses as one record (family field
    names), and a finding for each one that does not, with its twin (see the module docstring).

    ``split`` keeps one split (its file token, ``dev``, or its family name, ``validation``).
    """
    files.check_base()
    want = None
    if split is not None:
        want = fmt.splits.get(split, split)
        if want not in fmt.splits.values():
            known = "/".join(f"{v} ({k})" if k != v else v for k, v in fmt.splits.items())
            raise DatasetError(f"unknown split '{split}' (use {known})", field="split")
    bad: list[tuple[Key | None, Issue]] = []
    lines: list[Line] = []
    for raw_split, split_name in fmt.splits.items():
        if want is not None and split_name != want:
            continue
        for typ in fmt.types:
            texts = {}
            for condition in fmt.conditions:
                name = fmt.file_name(condition, typ, raw_split)
                texts[condition] = (name, files.read_optional(name))
            for condition, (name, text) in texts.items():
                if text is None:
                    partner = [n for c, (n, t) in texts.items() if c != condition and t is not None]
                    why = (
                        f"no such file: the partner of {partner[0]}" if partner else "no such file"
                    )
                    raise DatasetError(why, file=files.location(name))
            for condition, (name, text) in texts.items():
                lines += first_pass(
                    text or "",
                    fmt,
                    file=name,
                    where=files.location(name),
                    split=split_name,
                    typ=typ,
                    condition=condition,
                    bad=bad,
                )
    listed = _stereotypes_from_lists(files, fmt)
    conflicts: list[Issue] = []
    if listed is None:
        stereotypes, conflicts = derive_stereotypes(lines, fmt)
        source = (
            f"derived from the {'/'.join(fmt.conditions)} files: the majority over each "
            f"occupation's labelled lines ({len(stereotypes)} occupation form(s), "
            f"{len(conflicts)} conflict(s)); the release has no "
            f"{' or '.join(fmt.list_files.values()) or 'lists'}"
        )
    else:
        stereotypes = listed
        source = ", ".join(fmt.list_files.values())
    pattern = fmt.occupation_pattern(list(stereotypes))
    records: dict[Key, dict[str, object]] = {}
    where: dict[Key, Line] = {}
    for ln in lines:
        k = (ln.split, ln.type, ln.condition, ln.key)
        try:
            records[k] = second_pass(ln, stereotypes, pattern, fmt, derived=listed is None)
            where[k] = ln
        except LineError as exc:
            issue = Issue(
                "parse",
                str(exc),
                item=f"{ln.split}/{ln.type}/{ln.key}",
                field=exc.field,
                file=ln.where,
                line=ln.line,
                blocking=True,
            )
            bad.append((k, issue))
    twins = _twins(bad, records, where, fmt)
    table = pd.DataFrame.from_records(list(records.values()))
    return BracketRead(table, [i for _, i in bad] + twins + conflicts, source)


def _twins(
    bad: list[tuple[Key | None, Issue]],
    records: dict[Key, dict[str, object]],
    where: dict[Key, Line],
    fmt: BracketFormat,
) -> list[Issue]:
    """Leave out (and report) the paired line of every line that could not be read."""
    out: list[Issue] = []
    for key, issue in bad:
        if key is None:
            continue
        split, typ, here, number = key
        for condition in fmt.conditions:
            twin = (split, typ, condition, number)
            if condition == here or twin not in records:
                continue
            ln = where[twin]
            del records[twin]
            out.append(
                Issue(
                    "twin",
                    f"left out with its twin, line {issue.line} of {issue.file}, which cannot "
                    "be parsed",
                    item=issue.item,
                    field="sentence",
                    file=ln.where,
                    line=ln.line,
                    blocking=True,
                )
            )
    return out
