"""English WinoPron (Gautam et al. 2024) instantiated into the WinoPron-UK record family.

Source: ``new_templates.tsv`` of uds-lsv/winopron (inside the repository's ``data.zip``), one
template a line: occupation, other participant, ``answer`` (0 = the occupation is the referent,
1 = the participant), ``pronoun_type`` (``$NOM_PRONOUN``/``$ACC_PRONOUN``/``$POSS_PRONOUN``),
the double-entity ``template`` and the single-entity ``single_version``::

    technician  customer  1  $NOM_PRONOUN
    The $OCCUPATION told the $PARTICIPANT that $NOM_PRONOUN could pay with cash.
    The $PARTICIPANT was told that $NOM_PRONOUN could pay with cash.

Each template becomes three sentences per context, one per pronoun set (he/him/his,
she/her/her, singular they/them/their), as the WinoPron-UK card structures them: ``pair_id``
joins the occupation- and participant-reference templates of one occupation and pronoun type,
``row_id`` is ``{context}-{template_number:03d}-{set}``. The pronoun sets are ``male``,
``female`` and ``neutral`` (English *they* here is singular), the pronoun types
``nominative``, ``accusative`` and ``possessive``. The gold span is the occupation or
participant noun phrase with its article, as bracketed in WinoBias.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd

from ..errors import DatasetError
from . import winopron_uk
from .base import Dataset, Issue
from .raw_files import RawFiles
from .winopron_uk import PronounDataset, from_frames, sentence_schema

DEFAULT_SOURCE = "https://github.com/uds-lsv/winopron/raw/main/data.zip"
TEMPLATES_FILE = "new_templates.tsv"
REVIEW_STATUS = "published dataset (Gautam et al., CRAC 2024)"
SETS = ("male", "female", "neutral")
TYPES = ("nominative", "accusative", "possessive")
PRONOUNS = {
    "nominative": {"male": "he", "female": "she", "neutral": "they"},
    "accusative": {"male": "him", "female": "her", "neutral": "them"},
    "possessive": {"male": "his", "female": "her", "neutral": "their"},
}
FORMS = {t: {s: frozenset({p}) for s, p in by_set.items()} for t, by_set in PRONOUNS.items()}
TYPE_OF = {
    "$NOM_PRONOUN": "nominative",
    "$ACC_PRONOUN": "accusative",
    "$POSS_PRONOUN": "possessive",
}
_AFTER_THEY = re.compile(r"(\$NOM_PRONOUN\s+)(was|is|has)\b")
_PLURAL_VERB = {"was": "were", "is": "are", "has": "have"}
SCHEMA = sentence_schema("en", sets=SETS, types=TYPES)
_SLOT = re.compile(
    r"(?:(?<![A-Za-z])(the|The|a|A|an|An)\s+)?\$(OCCUPATION|PARTICIPANT)\b|\$(NOM|ACC|POSS)_PRONOUN\b"
)


def read_templates(text: str, where: str) -> pd.DataFrame:
    """The template table by position (the header names vary between releases)."""
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows:
        raise DatasetError("the file is empty", file=where)
    out = []
    for i, r in enumerate(rows[1:], start=1):
        if not any(c.strip() for c in r):
            continue
        if len(r) < 6:
            raise DatasetError(
                f"expected at least 6 tab-separated columns, got {len(r)}", file=where, row=i
            )
        occupation, participant, answer, ptype, template, single = (c.strip() for c in r[:6])
        if answer not in {"0", "1"}:
            raise DatasetError(
                f"answer must be 0 or 1, got {answer!r}", file=where, row=i, field="answer"
            )
        if ptype not in TYPE_OF:
            raise DatasetError(
                f"pronoun_type must be one of {', '.join(TYPE_OF)}, got {ptype!r}",
                file=where,
                row=i,
                field="pronoun_type",
            )
        for name, value in (("template", template), ("single_version", single)):
            if ptype not in value:
                raise DatasetError(f"{name} lacks {ptype}", file=where, row=i, field=name)
        out.append(
            {
                "template_number": i,
                "occupation": occupation,
                "participant": participant,
                "gold_role": "occupation" if answer == "0" else "participant",
                "pronoun_type": TYPE_OF[ptype],
                "double": template,
                "single": single,
            }
        )
    return pd.DataFrame(out)


def realise(
    template: str, occupation: str, participant: str, pronoun: str, gold_role: str
) -> tuple[str, str, str, str]:
    """Fill one template; return the sentence, its annotation, the gold span and the pronoun.

    Singular *they* takes plural verb agreement, as in Winogender's published sentences
    ("they were repairing"): ``was``/``is``/``has`` right after the nominative slot become
    ``were``/``are``/``have``.
    """
    if pronoun.lower() == "they":
        template = _AFTER_THEY.sub(lambda m: m.group(1) + _PLURAL_VERB[m.group(2)], template)
    parts: list[str] = []
    marks: list[tuple[int, int]] = []
    gold_span = said = ""
    pos = 0
    for m in _SLOT.finditer(template):
        parts.append(template[pos : m.start()])
        start = sum(len(p) for p in parts)
        if m.group(2):
            noun = occupation if m.group(2) == "OCCUPATION" else participant
            text = f"{m.group(1)} {noun}" if m.group(1) else noun
            if start == 0:
                text = text[0].upper() + text[1:]
            if m.group(2).lower() == gold_role:
                marks.append((start, start + len(text)))
                gold_span = text
        else:
            text = said = pronoun.capitalize() if start == 0 else pronoun
            marks.append((start, start + len(text)))
        parts.append(text)
        pos = m.end()
    parts.append(template[pos:])
    sentence = "".join(parts)
    annotated = sentence
    for start, end in sorted(marks, reverse=True):
        annotated = annotated[:start] + "[" + annotated[start:end] + "]" + annotated[end:]
    return sentence, annotated, gold_span, said


def instantiate(templates: pd.DataFrame, context: str) -> pd.DataFrame:
    rows = []
    for t in templates.to_dict("records"):
        for pset in SETS:
            pronoun = PRONOUNS[t["pronoun_type"]][pset]
            sentence, annotated, gold, said = realise(
                t[context], t["occupation"], t["participant"], pronoun, t["gold_role"]
            )
            rows.append(
                {
                    "row_id": f"{context}-{t['template_number']:03d}-{pset}",
                    "pair_id": f"{t['occupation']}/{t['pronoun_type']}",
                    "template_number": t["template_number"],
                    "occupation_group_en": t["occupation"],
                    "occupation_en": t["occupation"],
                    "participant_en": t["participant"],
                    "gold_role": t["gold_role"],
                    "pronoun_type": t["pronoun_type"],
                    "pronoun_set": pset,
                    "pronoun_en": said,
                    "sentence_en": sentence,
                    "sentence_annotated_en": annotated,
                    "gold_span_en": gold,
                }
            )
    return pd.DataFrame(rows)


def load(
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
    cache_dir: str | None = None,
) -> PronounDataset:
    """Load English WinoPron from a folder holding ``new_templates.tsv``, that file itself, a
    URL prefix, or the repository's ``data.zip`` (local or by URL; the default)."""
    del revision, split, cache_dir
    base = str(source) if source is not None else DEFAULT_SOURCE
    name = TEMPLATES_FILE
    if not base.lower().endswith(".zip") and base.lower().endswith(".tsv"):
        p = Path(base)
        base, name = (str(p.parent), p.name) if not base.startswith("http") else base.rsplit("/", 1)
    files = RawFiles(base)
    templates = read_templates(files.read_text(name), files.location(name))
    frames = {c: (instantiate(templates, c), files.location(name)) for c in ("double", "single")}
    ds = from_frames(
        frames,
        None,
        source=files.source_info(),
        name="winopron-en",
        lang="en",
        schema=SCHEMA,
        family="winopron-en",
        review_status=REVIEW_STATUS,
    )
    ds.pronoun_forms = FORMS
    return ds


def validate(ds: Dataset) -> list[Issue]:
    """The WinoPron-UK card's checks (pairs, pronoun forms, annotation) on the English rows."""
    return winopron_uk.validate(ds)
