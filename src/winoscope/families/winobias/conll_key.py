"""English WinoBias in CoNLL-2012 format, as the gold key of the resolver protocol.

The release has eight files, ``{dev,test}_{type1,type2}_{pro,anti}_stereotype.v4_auto_conll``,
with one document per sentence whose only entity is the gold referent with its pronoun(s), e.g.
``(nw/dev_type1/stereotype//0); part 000``: ``[The developer] argued with the designer because
[he] did not like the design.`` Pro and anti documents with the same number are the two
versions of one source item (the bootstrap's resampling unit).

Each document becomes one row: ``doc_text`` is the tokens joined by single spaces, and the key
and every span are character offsets in it. The evaluated pronoun is the entity's second mention
in text order (87 of the 3,168 documents have a third, later pronoun, which stays in the key).
The other occupation (``distractor_span``), needed only by reference baselines and the
per-sentence judgement, is the first occupation from the gendered occupation lists outside the
key's mentions, with its article.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ...datasets.base import Dataset, Issue
from ...datasets.conll import ConllDocument, parse_conll, token_offsets
from ...datasets.raw_files import RawFiles, is_url
from ...datasets.sources import SourceInfo
from ...errors import DatasetError

FAMILY = "winobias-en"
DEFAULT_SOURCE = (
    "https://raw.githubusercontent.com/uclanlp/corefBias/master/WinoBias/wino/data/conll_format"
)
LIST_FILES = ("male_occupations.txt", "female_occupations.txt")
REVIEW_STATUS = "published dataset (Zhao et al. 2018)"
SPLITS = ("dev", "test")
TYPES = ("type1", "type2")
CONDITIONS = ("pro", "anti")
MALE_PRONOUNS = frozenset({"he", "him", "his", "himself"})
FEMALE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})
ARTICLES = frozenset({"the", "a", "an"})
_NUMBER = re.compile(r"//(\d+)$")


def file_name(split: str, typ: str, condition: str) -> str:
    return f"{split}_{typ}_{condition}_stereotype.v4_auto_conll"


def _parent(base: str) -> str:
    if is_url(base):
        return base.rstrip("/").rsplit("/", 1)[0]
    return str(Path(base).parent)


def _occupation_lists(files: RawFiles) -> dict[str, str]:
    """Occupation -> stereotyped gender from the two lists, read beside the CoNLL files (a zip
    or a folder holding them) or, as in the repository, one folder up; empty when absent."""
    out: dict[str, str] = {}
    candidates = (
        [files] if files.base.lower().endswith(".zip") else [files, RawFiles(_parent(files.base))]
    )
    for where in candidates:
        try:
            texts = {name: where.read_text(name) for name in LIST_FILES}
        except DatasetError:
            continue
        for name, text in texts.items():
            gender = name.split("_", 1)[0]
            for line in text.splitlines():
                if line.strip():
                    out.setdefault(line.strip().lower(), gender)
        files.read_files.update(where.read_files)
        break
    return out


def _occupations(directory: Path) -> dict[str, str]:
    """The occupation lists for a local CoNLL folder (see :func:`_occupation_lists`)."""
    return _occupation_lists(RawFiles(str(directory)))


def _pronoun_gender(word: str) -> str | None:
    w = word.lower()
    return "male" if w in MALE_PRONOUNS else "female" if w in FEMALE_PRONOUNS else None


def _find_occupation(
    tokens: list[str], taken: set[int], occupations: dict[str, str]
) -> tuple[int, int, str] | None:
    """(first token, last token, occupation) of the first listed occupation outside ``taken``."""
    lowered = [t.lower() for t in tokens]
    names = sorted(occupations, key=lambda o: -len(o.split()))
    for i in range(len(tokens)):
        if i in taken:
            continue
        for name in names:
            parts = name.split()
            j = i + len(parts) - 1
            if lowered[i : j + 1] == parts and not taken & set(range(i, j + 1)):
                start = i - 1 if i > 0 and lowered[i - 1] in ARTICLES and i - 1 not in taken else i
                return (start, j, name)
    return None


def document_row(
    doc: ConllDocument, split: str, typ: str, condition: str, occupations: dict[str, str]
) -> dict[str, Any]:
    tokens = doc.tokens
    text = " ".join(tokens)
    offsets = token_offsets(tokens, text)

    def char(span: tuple[int, int]) -> list[int]:
        return [offsets[span[0]][0], offsets[span[1]][1]]

    if len(doc.clusters) != 1 or len(doc.clusters[0]) < 2:
        raise DatasetError(
            f"document {doc.name!r} needs one entity with the referent and a pronoun, found "
            f"{[len(c) for c in doc.clusters]} mention(s) per entity",
            file=doc.file,
            line=doc.lines[0] if doc.lines else None,
            field="coreference",
        )
    mentions = sorted(doc.clusters[0])
    referent, pronoun = mentions[0], mentions[1]
    taken = {t for s, e in mentions for t in range(s, e + 1)}
    other = _find_occupation(tokens, taken, occupations)
    ref_words = [w.lower() for w in tokens[referent[0] : referent[1] + 1]]
    ref_occ = next(
        (o for o in sorted(occupations, key=len, reverse=True) if o in " ".join(ref_words)), None
    )
    m = _NUMBER.search(doc.doc_id)
    return {
        "row_id": doc.doc_id,
        "doc_name": doc.name,
        "file": Path(doc.file.rsplit("!", 1)[-1]).name,
        "split": split,
        "type": typ,
        "condition": condition,
        "score_group": "primary_balanced",
        "item_number": int(m.group(1)) if m else -1,
        "doc_text": text,
        "tokens": json.dumps(tokens, ensure_ascii=False),
        "gold_clusters": json.dumps([[char(s) for s in sorted(c)] for c in doc.clusters]),
        "pronoun_span": json.dumps(char(pronoun)),
        "target_span": json.dumps(char(referent)),
        "distractor_span": json.dumps(char((other[0], other[1])) if other else None),
        "referent_role": "target",
        "pronoun": " ".join(tokens[pronoun[0] : pronoun[1] + 1]),
        "pronoun_gender": _pronoun_gender(tokens[pronoun[0]]),
        "target_text": " ".join(tokens[referent[0] : referent[1] + 1]),
        "distractor_text": " ".join(tokens[other[0] : other[1] + 1]) if other else None,
        "target_occupation": ref_occ,
        "distractor_occupation": other[2] if other else None,
        "target_stereotype": occupations.get(ref_occ or ""),
        "distractor_stereotype": occupations.get(other[2]) if other else None,
    }


def load(
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
    **_: Any,
) -> Dataset:
    """Load the eight CoNLL files from a folder, a URL prefix (default: the public repository's
    ``conll_format`` folder) or a zip holding them.

    ``split`` (``dev``/``test``; ``validation`` is taken as ``dev``) keeps one split. The
    occupation lists are read beside the files or one folder up when present.
    """
    del revision  # raw files: the URL itself names the revision
    files = RawFiles(str(source) if source is not None else DEFAULT_SOURCE)
    local_folder = files.kind == "file" and not files.base.lower().endswith(".zip")
    if local_folder and not Path(files.base).is_dir():
        raise DatasetError("not a folder with the WinoBias CoNLL files", file=files.base)
    if split is not None:
        split = {"validation": "dev"}.get(split, split)
        if split not in SPLITS:
            raise DatasetError(f"unknown split '{split}' (dev or test)", field="split")
    occupations = _occupation_lists(files)
    rows = []
    found = []
    for sp in SPLITS if split is None else (split,):
        for typ in TYPES:
            for cond in CONDITIONS:
                name = file_name(sp, typ, cond)
                text = files.read_text(name)
                found.append(name)
                where = files.location(name)
                for doc in parse_conll(text.splitlines(keepends=True), file=where):
                    rows.append(document_row(doc, sp, typ, cond, occupations))
    ds = Dataset(
        family=FAMILY,
        name="WinoBias (English, CoNLL)",
        table=pd.DataFrame(rows),
        source=files.source_info(),
        review_status=REVIEW_STATUS,
    )
    ds.metadata["files"] = found
    return ds


def from_frame(raw: pd.DataFrame, *, source: SourceInfo, **_: Any) -> Dataset:
    """A predictions table written by a run (the rows keep every gold column)."""
    needed = ["row_id", "split", "type", "condition", "gold_clusters", "pronoun_span"]
    missing = [c for c in needed if c not in raw.columns]
    if missing:
        raise DatasetError(f"missing column(s) {', '.join(missing)}", file=source.location)
    return Dataset(
        family=FAMILY, name=source.location, table=raw, source=source, review_status=REVIEW_STATUS
    )


def validate(ds: Dataset) -> list[Issue]:
    """Checks: every file has 396 documents; pro and anti versions pair up by number; the
    pronoun is a gendered pronoun; the other occupation was found (reference baselines and the
    per-sentence judgement need it)."""
    t = ds.table
    issues: list[Issue] = []
    for (sp, ty, co), part in t.groupby(["split", "type", "condition"], sort=True):
        if len(part) != 396:
            issues.append(
                Issue("documents", f"{sp}/{ty}/{co}: {len(part)} documents, expected 396")
            )
    for (sp, ty), part in t.groupby(["split", "type"], sort=True):
        pro = set(part[part.condition == "pro"].item_number)
        anti = set(part[part.condition == "anti"].item_number)
        if pro != anti:
            odd = sorted(pro ^ anti)[:5]
            issues.append(Issue("pairs", f"{sp}/{ty}: pro and anti numbers differ (e.g. {odd})"))
    for i, r in enumerate(t.to_dict("records"), start=1):
        if r["pronoun_gender"] is None:
            issues.append(
                Issue(
                    "pronoun",
                    f"'{r['pronoun']}' is not a gendered pronoun",
                    row=i,
                    item=r["row_id"],
                )
            )
        if r["distractor_span"] == "null":
            issues.append(
                Issue("entities", "the other occupation was not found", row=i, item=r["row_id"])
            )
    return issues
