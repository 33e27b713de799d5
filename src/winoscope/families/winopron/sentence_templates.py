"""Readers of the English WinoPron and Winogender template files into the WinoPron family.

**English WinoPron** (Gautam et al. 2024): ``new_templates.tsv`` of uds-lsv/winopron (inside
the repository's ``data.zip``), one template a line: occupation, other participant, ``answer``
(0 = the occupation is the referent, 1 = the participant), ``pronoun_type``
(``$NOM_PRONOUN``/``$ACC_PRONOUN``/``$POSS_PRONOUN``), the double-entity ``template`` and the
single-entity ``single_version``::

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

**English Winogender schemas** (Rudinger et al. 2018): ``data/`` of
rudinger/winogender-schemas: ``all_sentences.tsv`` (720 sentences; the id
``technician.customer.1.male.txt`` encodes occupation, participant, answer and pronoun gender
male/female/neutral; the participant is ``someone`` in half of them), ``templates.tsv`` (the
template of each occupation and answer, which gives the pronoun's case) and
``occupations-stats.tsv`` (% women per occupation in the Bergsma corpus statistics and in the
2015 US labour statistics). Every sentence is a double-context row; ``pair_id`` is
``occupation/participant``. Each sentence is rebuilt from its template and must equal the
published text, which gives the exact bracket annotation. ``bls_pct_female`` /
``bergsma_pct_female`` are kept as columns and ``occupation_stereotype`` is the majority gender
in the labour statistics (for the reference stereotype baseline).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Protocol

import pandas as pd

from ...datasets.raw_files import RawFiles
from ...datasets.sources import SourceInfo
from ...errors import DatasetError

Frames = dict[str, tuple[pd.DataFrame, str]]


class WinoPron(Protocol):
    """What the readers need of the family's adaptation (``datasets.winopron.WinoPron``)."""

    @property
    def language(self) -> str: ...

    @property
    def default_source(self) -> str | None: ...

    def col(self, family_field: str) -> str: ...


WINOPRON_SOURCE = "https://github.com/uds-lsv/winopron/raw/main/data.zip"
WINOGENDER_SOURCE = "https://raw.githubusercontent.com/rudinger/winogender-schemas/master/data"
TEMPLATES_FILE = "new_templates.tsv"
SENTENCES_FILE = "all_sentences.tsv"
WINOGENDER_TEMPLATES_FILE = "templates.tsv"
STATS_FILE = "occupations-stats.tsv"
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
GENDER_SET = {"male": "male", "female": "female", "neutral": "neutral"}
_AFTER_THEY = re.compile(r"(\$NOM_PRONOUN\s+)(was|is|has)\b")
_PLURAL_VERB = {"was": "were", "is": "are", "has": "have"}
_SLOT = re.compile(
    r"(?:(?<![A-Za-z])(the|The|a|A|an|An)\s+)?\$(OCCUPATION|PARTICIPANT)\b|\$(NOM|ACC|POSS)_PRONOUN\b"
)
_THE_PARTICIPANT = re.compile(r"\b(?:the|The|a|A|an|An)\s+\$PARTICIPANT\b")


def read_templates(text: str, where: str) -> pd.DataFrame:
    """The template table by position (the header names vary between releases)."""
    rows = _tsv(text, where)
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


def instantiate(templates: pd.DataFrame, context: str, lang: str = "en") -> pd.DataFrame:
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
                    f"occupation_group_{lang}": t["occupation"],
                    f"occupation_{lang}": t["occupation"],
                    f"participant_{lang}": t["participant"],
                    "gold_role": t["gold_role"],
                    "pronoun_type": t["pronoun_type"],
                    "pronoun_set": pset,
                    f"pronoun_{lang}": said,
                    f"sentence_{lang}": sentence,
                    f"sentence_annotated_{lang}": annotated,
                    f"gold_span_{lang}": gold,
                }
            )
    return pd.DataFrame(rows)


def _tsv(text: str, where: str = "") -> list[list[str]]:
    """The non-empty rows of a TSV text; a line the csv module cannot read (a field past its
    size limit) is an error naming the file and the line."""
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        return [r for r in reader if r]
    except csv.Error as exc:
        raise DatasetError(
            f"cannot read: {exc}", file=where or None, line=reader.line_num
        ) from None


def read_stats(text: str, where: str) -> dict[str, dict[str, float]]:
    rows = _tsv(text, where)
    header = [h.strip() for h in rows[0]] if rows else []
    need = ("occupation", "bergsma_pct_female", "bls_pct_female")
    if any(n not in header for n in need):
        missing = [n for n in need if n not in header]
        raise DatasetError(f"missing column(s) {', '.join(missing)}", file=where, field=missing[0])
    out = {}
    for i, r in enumerate(rows[1:], start=1):
        rec = dict(zip(header, r, strict=False))
        try:
            out[rec["occupation"].strip()] = {
                "bergsma_pct_female": float(rec["bergsma_pct_female"]),
                "bls_pct_female": float(rec["bls_pct_female"]),
            }
        except (KeyError, ValueError):
            raise DatasetError(
                "expected numbers in the percentage columns", file=where, row=i
            ) from None
    return out


def read_winogender_templates(text: str, where: str) -> dict[tuple[str, str], tuple[int, str]]:
    """(occupation, answer) -> (template number = its row in the file, template)."""
    out = {}
    for i, r in enumerate(_tsv(text, where)[1:], start=1):
        if len(r) < 4:
            raise DatasetError(f"expected 4 columns, got {len(r)}", file=where, row=i)
        out[(r[0].strip(), r[2].strip())] = (i, r[3].strip())
    return out


def read_winopron(wp: WinoPron, source: str | None) -> tuple[Frames, SourceInfo]:
    """English WinoPron from a folder holding ``new_templates.tsv``, that file itself, a URL
    prefix, or the repository's ``data.zip`` (local or by URL; the default)."""
    base = source if source is not None else (wp.default_source or WINOPRON_SOURCE)
    name = TEMPLATES_FILE
    if not base.lower().endswith(".zip") and base.lower().endswith(".tsv"):
        p = Path(base)
        base, name = (str(p.parent), p.name) if not base.startswith("http") else base.rsplit("/", 1)
    files = RawFiles(base)
    templates = read_templates(files.read_text(name), files.location(name))
    where = files.location(name)
    frames = {c: (instantiate(templates, c, wp.language), where) for c in ("double", "single")}
    return frames, files.source_info()


def read_winogender(wp: WinoPron, source: str | None) -> tuple[Frames, SourceInfo]:
    """Winogender from a local folder or a URL prefix (default: the public raw files)."""
    files = RawFiles(source if source is not None else (wp.default_source or WINOGENDER_SOURCE))
    where = files.location(SENTENCES_FILE)
    templates = read_winogender_templates(
        files.read_text(WINOGENDER_TEMPLATES_FILE), files.location(WINOGENDER_TEMPLATES_FILE)
    )
    stats = read_stats(files.read_text(STATS_FILE), files.location(STATS_FILE))
    rows = []
    for i, r in enumerate(_tsv(files.read_text(SENTENCES_FILE), where)[1:], start=1):
        if len(r) < 2:
            raise DatasetError("expected sentid and sentence", file=where, row=i)
        sentid, published = r[0].strip(), r[1].strip()
        parts = sentid.removesuffix(".txt").split(".")
        if len(parts) != 4 or parts[2] not in {"0", "1"} or parts[3] not in GENDER_SET:
            raise DatasetError(
                f"sentid {sentid!r} is not occupation.participant.answer.gender.txt",
                file=where,
                row=i,
                field="sentid",
            )
        occupation, participant, answer, gender = parts
        found = templates.get((occupation, answer))
        if found is None:
            raise DatasetError(
                f"no template for occupation {occupation!r} and answer {answer}",
                file=where,
                row=i,
                field="sentid",
            )
        number, template = found
        ptype = next((TYPE_OF[k] for k in TYPE_OF if k in template), None)
        if ptype is None:
            raise DatasetError("the template has no pronoun slot", file=where, row=i)
        if participant == "someone":
            template = _THE_PARTICIPANT.sub("$PARTICIPANT", template)
        gold_role = "occupation" if answer == "0" else "participant"
        pronoun = PRONOUNS[ptype][GENDER_SET[gender]]
        sentence, annotated, gold, said = realise(
            template, occupation, participant, pronoun, gold_role
        )
        if sentence != published:
            raise DatasetError(
                f"the sentence differs from its template's realisation {sentence!r}",
                file=where,
                row=i,
                field="sentence",
            )
        st = stats.get(occupation, {})
        bls = st.get("bls_pct_female")
        rows.append(
            {
                "row_id": sentid.removesuffix(".txt"),
                "pair_id": f"{occupation}/{participant}",
                "template_number": number,
                wp.col("occupation_group"): occupation,
                wp.col("occupation"): occupation,
                wp.col("participant"): participant,
                "gold_role": gold_role,
                "pronoun_type": ptype,
                "pronoun_set": GENDER_SET[gender],
                wp.col("pronoun"): said,
                wp.col("sentence"): sentence,
                wp.col("sentence_annotated"): annotated,
                wp.col("gold_span"): gold,
                "participant_kind": "someone" if participant == "someone" else "specific",
                "bls_pct_female": bls,
                "bergsma_pct_female": st.get("bergsma_pct_female"),
                "occupation_stereotype": None
                if bls is None
                else ("female" if bls > 50 else "male"),
            }
        )
    return {"double": (pd.DataFrame(rows), where)}, files.source_info()
