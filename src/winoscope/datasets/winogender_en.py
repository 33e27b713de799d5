"""English Winogender schemas (Rudinger et al. 2018) in the WinoPron record family.

Source files (``data/`` of rudinger/winogender-schemas): ``all_sentences.tsv`` (720 sentences;
the id ``technician.customer.1.male.txt`` encodes occupation, participant, answer -- 0 = the
occupation is the referent, 1 = the participant -- and pronoun gender male/female/neutral; the
participant is ``someone`` in half of them), ``templates.tsv`` (the template of each occupation
and answer, which gives the pronoun's case) and ``occupations-stats.tsv`` (% women per
occupation in the Bergsma corpus statistics and in the 2015 US labour statistics).

Every sentence is a double-context row (both entities present); ``pair_id`` is
``occupation/participant`` (the two answers of one occupation with one participant wording).
Each sentence is rebuilt from its template and must equal the published text, which gives the
exact bracket annotation. ``bls_pct_female`` / ``bergsma_pct_female`` are kept as columns and
``occupation_stereotype`` is the majority gender in the labour statistics (for the reference
stereotype baseline).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd

from ..errors import DatasetError
from .raw_files import RawFiles
from .winopron_en import FORMS, PRONOUNS, SCHEMA, TYPE_OF, realise
from .winopron_uk import PronounDataset, from_frames

DEFAULT_SOURCE = "https://raw.githubusercontent.com/rudinger/winogender-schemas/master/data"
REVIEW_STATUS = "published dataset (Rudinger et al., NAACL 2018)"
SENTENCES_FILE = "all_sentences.tsv"
TEMPLATES_FILE = "templates.tsv"
STATS_FILE = "occupations-stats.tsv"
GENDER_SET = {"male": "male", "female": "female", "neutral": "neutral"}
_THE_PARTICIPANT = re.compile(r"\b(?:the|The|a|A|an|An)\s+\$PARTICIPANT\b")


def _tsv(text: str) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE) if r]


def read_stats(text: str, where: str) -> dict[str, dict[str, float]]:
    rows = _tsv(text)
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


def read_templates(text: str, where: str) -> dict[tuple[str, str], tuple[int, str]]:
    """(occupation, answer) -> (template number = its row in the file, template)."""
    out = {}
    for i, r in enumerate(_tsv(text)[1:], start=1):
        if len(r) < 4:
            raise DatasetError(f"expected 4 columns, got {len(r)}", file=where, row=i)
        out[(r[0].strip(), r[2].strip())] = (i, r[3].strip())
    return out


def load(
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
    cache_dir: str | None = None,
) -> PronounDataset:
    """Load Winogender from a local folder or a URL prefix (default: the public raw files)."""
    del revision, split, cache_dir
    files = RawFiles(str(source) if source is not None else DEFAULT_SOURCE)
    where = files.location(SENTENCES_FILE)
    templates = read_templates(files.read_text(TEMPLATES_FILE), files.location(TEMPLATES_FILE))
    stats = read_stats(files.read_text(STATS_FILE), files.location(STATS_FILE))
    rows = []
    for i, r in enumerate(_tsv(files.read_text(SENTENCES_FILE))[1:], start=1):
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
                "occupation_group_en": occupation,
                "occupation_en": occupation,
                "participant_en": participant,
                "gold_role": gold_role,
                "pronoun_type": ptype,
                "pronoun_set": GENDER_SET[gender],
                "pronoun_en": said,
                "sentence_en": sentence,
                "sentence_annotated_en": annotated,
                "gold_span_en": gold,
                "participant_kind": "someone" if participant == "someone" else "specific",
                "bls_pct_female": bls,
                "bergsma_pct_female": st.get("bergsma_pct_female"),
                "occupation_stereotype": None
                if bls is None
                else ("female" if bls > 50 else "male"),
            }
        )
    ds = from_frames(
        {"double": (pd.DataFrame(rows), where)},
        None,
        source=files.source_info(),
        name="winogender-en",
        lang="en",
        schema=SCHEMA,
        family="winogender-en",
        review_status=REVIEW_STATUS,
    )
    ds.pronoun_forms = FORMS
    return ds
