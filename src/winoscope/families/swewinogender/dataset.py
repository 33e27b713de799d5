"""SweWinogender v2.0 (SuperLim 2): loading, derived annotations and mechanical checks.

One row is one NLI item in SuperLim 2's JSON Lines format::

    {"idx": 2, "premise": "Teknikern sa till kunden att han kunde betala kontant.",
     "hypothesis": "Meddelandet var att kunden kunde betala kontant.", "label": "entailment",
     "meta": {"tuple_id": "1B-entailment", "template_id": "1B",
              "occupation_participant": "tekniker", "other_participant": "kund",
              "pronoun": "han"}}

``meta`` is flattened into columns of the same names. Each template (``1B``) gives six items:
three pronouns (han/hon/hen) x two hypotheses (the pronoun replaced by either candidate); a
*tuple* (``1B-entailment``) is the three items that differ only in the pronoun. Templates ``1A``
and ``1B`` share their participants and the start of the premise; their number (``1``) is the
*schema*, the resampling unit of the bootstrap.

Derived columns (the v1 pronoun-resolution view of the same items, worked out from the text):

- ``pronoun_form`` / ``pronoun_start``: the pronoun as written in the premise (``han``,
  ``hennes``, ``hens`` ...) and its character offset, found as the one word that differs
  between the three premises of a template (so ``... att hen gav honom ...`` resolves ``hen``);
- ``occupation_form`` / ``participant_form`` (and ``*_start``): the candidates as the premise
  writes them (``Teknikern`` -> ``teknikern``, ``kunden``), matched as the meta lemma plus a
  definite/genitive ending;
- ``hypothesis_referent``: which candidate the hypothesis puts in place of the pronoun
  (``occupation``/``participant``); where a typo hides it (``erapeuten``), it is the other
  candidate than the sibling hypothesis of the same premise names;
- ``gold_referent``: the referent of the pronoun, i.e. the ``hypothesis_referent`` of the
  entailed hypothesis of the same premise;
- ``pronoun_gender``: male (han), female (hon), neutral (hen).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from ...datasets.adaptation import TableAdaptation
from ...datasets.base import Dataset, Issue, duplicate_issues
from ...datasets.loading import ColumnMap, samples_folder
from ...datasets.schema import Field, Schema
from ...errors import DatasetError

HUB_ID = "sbx/superlim-2"
HUB_CONFIG = "swewinogender"
HUB_SPLIT = "test"
URL = (
    "https://raw.githubusercontent.com/spraakbanken/SuperLim-2/main/"
    "swewinogender/swewinogender_test.jsonl"
)
REVIEW_STATUS = "released (SuperLim 2.0, SweWinogender v2.0)"
SAMPLE_FILE = samples_folder(__name__) / "swewinogender_sample.jsonl"

LABELS = ("entailment", "neutral")
PRONOUNS = ("han", "hon", "hen")
PRONOUN_GENDER = {"han": "male", "hon": "female", "hen": "neutral"}
PRONOUN_FORMS = {
    "han": ("han", "hans", "honom"),
    "hon": ("hon", "hennes", "henne"),
    "hen": ("hen", "hens", "henom"),
}
META_FIELDS = ("tuple_id", "template_id", "occupation_participant", "other_participant", "pronoun")
# endings a Swedish noun takes in the premises: definite singular/plural and genitive
_ENDINGS = ("", "n", "en", "et", "t", "s", "ns", "ens", "ets", "ts", "na", "nas", "erna", "arna")
_WORD = re.compile(r"\w+")

FIELDS = (
    Field("idx", "int", doc="item number in the release"),
    Field("premise"),
    Field("hypothesis"),
    Field("label", enum=LABELS),
    Field("tuple_id", doc="the three items that differ only in the pronoun"),
    Field("template_id", doc="template number + A/B continuation, e.g. 1B"),
    Field("occupation_participant", doc="the occupation, as a lemma (tekniker)"),
    Field("other_participant", doc="the other participant, as a lemma (kund)"),
    Field("pronoun", enum=PRONOUNS),
)


def flatten_meta(raw: pd.DataFrame, *, source: str) -> pd.DataFrame:
    """Move the fields of a ``meta`` object column into columns of their own names.

    Rows read from a hub Parquet file may already be flat; those pass unchanged.
    """
    if "meta" not in raw.columns:
        return raw
    out = raw.drop(columns=["meta"]).copy()
    metas = list(raw["meta"])
    for i, meta in enumerate(metas, start=1):
        if isinstance(meta, str):
            try:
                meta = json.loads(meta)
            except json.JSONDecodeError:
                raise DatasetError("not a JSON object", file=source, row=i, field="meta") from None
            metas[i - 1] = meta
        if not isinstance(meta, dict):
            raise DatasetError(
                f"expected an object, got {type(meta).__name__}", file=source, row=i, field="meta"
            )
    for name in META_FIELDS:
        values = [m.get(name) for m in metas]
        if name in out.columns and all(v is None for v in values):
            continue
        for i, v in enumerate(values, start=1):
            if v is None:
                raise DatasetError(
                    "missing in meta", file=source, row=i, field=f"meta.{name}"
                ) from None
        out[name] = values
    return out


def schema_id(template_id: str) -> str:
    """``12A`` -> ``12``: the Winogender schema shared by the A and B continuations."""
    m = re.fullmatch(r"(\d+)\s*[A-Za-z]?", template_id.strip())
    return m.group(1) if m else template_id


def _words(text: str) -> list[tuple[str, int]]:
    return [(m.group(0), m.start()) for m in _WORD.finditer(text)]


def find_noun(text: str, lemma: str) -> tuple[str, int] | None:
    """The first word of ``text`` that is ``lemma`` plus a definite/genitive ending.

    >>> find_noun("Teknikern sa till kunden att han kunde betala.", "kund")
    ('kunden', 18)
    """
    low = lemma.lower()
    for word, start in _words(text):
        w = word.lower()
        if w.startswith(low) and w[len(low) :] in _ENDINGS:
            return word, start
    return None


def _pronoun_positions(premises: dict[str, str]) -> dict[str, tuple[str, int] | None]:
    """Per pronoun, the premise word that differs across the template's premises."""
    words = {p: _words(text) for p, text in premises.items()}
    found: dict[str, tuple[str, int] | None] = dict.fromkeys(premises)
    lengths = {len(w) for w in words.values()}
    if len(premises) > 1 and len(lengths) == 1:
        n = lengths.pop()
        diff = [i for i in range(n) if len({words[p][i][0].lower() for p in premises}) > 1]
        if len(diff) == 1:
            i = diff[0]
            for p in premises:
                word, start = words[p][i]
                if word.lower() in PRONOUN_FORMS[p]:
                    found[p] = (word, start)
            return found
    for p, ws in words.items():  # fallback: the first word of the pronoun's paradigm
        found[p] = next(((w, s) for w, s in ws if w.lower() in PRONOUN_FORMS[p]), None)
    return found


def _named_candidate(hypothesis: str, occupation: str, participant: str) -> str | None:
    """The candidate standing in the pronoun's place: the only one named, else the first.

    ``Anledningen var att köparen gav målaren ...`` (premise ``... att hen gav honom ...``)
    names both; the pronoun was the first of the two, so the first named stands in for it.
    """
    occ, par = find_noun(hypothesis, occupation), find_noun(hypothesis, participant)
    if occ is None and par is None:
        return None
    if par is None or (occ is not None and occ[1] < par[1]):
        return "occupation"
    return "participant"


def derive(table: pd.DataFrame) -> pd.DataFrame:
    """Add the derived columns described in the module docstring (None where not found)."""
    t = table.copy()
    t["row_id"] = t["idx"].astype(str)
    t["schema_id"] = [schema_id(x) for x in t["template_id"]]
    t["pronoun_gender"] = t["pronoun"].astype(str).map(PRONOUN_GENDER)
    t["premise_id"] = t["template_id"].astype(str) + "/" + t["pronoun"].astype(str)
    pron: dict[str, tuple[str, int] | None] = {}
    for _tid, g in t.groupby("template_id", sort=False):
        premises = dict(zip(g["pronoun"].astype(str), g["premise"], strict=False))
        for p, hit in _pronoun_positions(premises).items():
            pron[f"{_tid}/{p}"] = hit
    t["pronoun_form"] = [(pron.get(k) or (None, None))[0] for k in t["premise_id"]]
    t["pronoun_start"] = [(pron.get(k) or (None, None))[1] for k in t["premise_id"]]
    for role, col in (
        ("occupation", "occupation_participant"),
        ("participant", "other_participant"),
    ):
        hits = [find_noun(p, lemma) for p, lemma in zip(t["premise"], t[col], strict=True)]
        t[f"{role}_form"] = [h[0].lower() if h else None for h in hits]
        t[f"{role}_start"] = [h[1] if h else None for h in hits]
    referent: list[str | None] = []
    for h, occ, par in zip(
        t["hypothesis"], t["occupation_participant"], t["other_participant"], strict=True
    ):
        referent.append(_named_candidate(h, occ, par))
    t["hypothesis_referent"] = referent
    # a typo in one hypothesis: it names the candidate its sibling does not
    flip = {"occupation": "participant", "participant": "occupation"}
    ref = t["hypothesis_referent"]
    size = t.groupby("premise_id")["premise_id"].transform("size")
    n_known = ref.notna().groupby(t["premise_id"]).transform("sum")
    sibling = t[ref.notna()].groupby("premise_id")["hypothesis_referent"].first()
    fill = ref.isna() & (size == 2) & (n_known == 1)
    t.loc[fill, "hypothesis_referent"] = t.loc[fill, "premise_id"].map(sibling).map(flip)
    gold: dict[str, str] = {}
    for r in t[t["label"] == "entailment"][["premise_id", "hypothesis_referent"]].itertuples(
        index=False
    ):
        if r.hypothesis_referent is not None:
            gold[r.premise_id] = r.hypothesis_referent
    t["gold_referent"] = [gold.get(k) for k in t["premise_id"]]
    return t


COLUMNS = ColumnMap(
    name="swewinogender",
    language="sv",
    sample=SAMPLE_FILE,
    hub_id=HUB_ID,
    hub_config=HUB_CONFIG,
    hub_split=HUB_SPLIT,
    review_status=REVIEW_STATUS,
    sample_note=(
        "Bundled sample written for winoscope in SuperLim 2's SweWinogender schema; not the "
        "SweWinogender dataset. Numbers on it are for checking the pipeline only."
    ),
)


@dataclass(frozen=True)
class SweWinogender(TableAdaptation, fields=FIELDS):
    """SweWinogender v2.0 read as one table: ``meta`` flattened, then the derived columns."""

    def prepare(self, raw: pd.DataFrame, where: str) -> pd.DataFrame:
        return flatten_meta(raw, source=where)

    def derive(self, table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
        return derive(table)

    def validate(self, ds: Dataset) -> list[Issue]:
        return validate(ds)


SV = SweWinogender(COLUMNS, version="2.0")
from_frame = SV.from_frame
sample_path = SV.sample_path


def load(
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
    cache_dir: str | None = None,
    config: str = HUB_CONFIG,
) -> Dataset:
    """Load SweWinogender v2.0.

    ``source`` is a local JSONL/CSV/Parquet file, an ``http(s)://`` URL of the JSONL file
    (:data:`URL` is SuperLim 2's), a hub id (:data:`HUB_ID`, config ``swewinogender``, split
    ``test``; pin with ``revision``) or a local directory laid out like the hub repository;
    ``None`` loads the bundled sample (written for winoscope in the same schema, not the
    dataset).
    """
    sv = SV if config == HUB_CONFIG else replace(SV, columns=replace(COLUMNS, hub_config=config))
    return sv.load(source, revision=revision, split=split, cache_dir=cache_dir)


def validate(ds: Dataset) -> list[Issue]:
    """Mechanical checks: the derived annotations exist and the tuple structure is complete.

    Every premise has one pronoun and both candidates; every hypothesis names one candidate;
    a premise has one entailed and one neutral hypothesis naming different candidates; a tuple
    has one item per pronoun with one label; a template has the six items.
    """
    t = ds.table
    issues: list[Issue] = list(ds.findings)
    issues += duplicate_issues(t, "idx", file=ds.source.location)
    for i, r in enumerate(t.to_dict("records"), start=1):
        rid = str(r["idx"])
        for col, what in (
            ("pronoun_form", f"no form of '{r['pronoun']}' found in the premise"),
            ("occupation_form", f"'{r['occupation_participant']}' not found in the premise"),
            ("participant_form", f"'{r['other_participant']}' not found in the premise"),
            ("hypothesis_referent", "the hypothesis names neither candidate"),
        ):
            if r[col] is None or (isinstance(r[col], float) and pd.isna(r[col])):
                issues.append(Issue("annotation", what, row=i, item=rid))
    for tid, g in t.groupby("tuple_id", sort=True):
        pr = sorted(g["pronoun"].astype(str))
        if pr != sorted(PRONOUNS):
            issues.append(
                Issue("tuples", f"needs one item per pronoun han/hen/hon, has {pr}", item=str(tid))
            )
        if g["label"].nunique() != 1:
            issues.append(
                Issue("tuples", "the items of a tuple have different labels", item=str(tid))
            )
    for pid, g in t.groupby("premise_id", sort=True):
        labels = sorted(g["label"].astype(str))
        if labels != ["entailment", "neutral"]:
            issues.append(
                Issue(
                    "premises",
                    f"needs one entailment and one neutral item, has {labels}",
                    item=str(pid),
                )
            )
        elif g["hypothesis_referent"].nunique() != 2:
            issues.append(
                Issue("premises", "both hypotheses name the same candidate", item=str(pid))
            )
    for tid, g in t.groupby("template_id", sort=True):
        if len(g) != 6:
            issues.append(Issue("templates", f"needs 6 items, has {len(g)}", item=str(tid)))
        for col in ("occupation_participant", "other_participant"):
            if g[col].nunique() > 1:
                issues.append(
                    Issue("templates", f"{col} differs within the template", item=str(tid))
                )
    return issues
