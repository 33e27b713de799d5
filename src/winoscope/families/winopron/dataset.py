"""The WinoPron family: WinoPron-UK, English WinoPron, English Winogender and further adaptations.

One record family, whatever the language. A sentence row has an occupation and (in the
``double`` configuration) another participant, a gold referent (``gold_role``), a pronoun of
a ``pronoun_type`` and a ``pronoun_set``; text fields are localised (``sentence`` is the column
``sentence_uk`` of WinoPron-UK, ``sentence_en`` of the English sets). Card facts of WinoPron-UK:
180 complementary pairs; each ``pair_id`` has an occupation- and a participant-reference
sentence in masculine, feminine and plural forms (``male``/``female``/``plural``), in the
``double`` configuration and the ``single`` one (only the gold referent). ``forced_choice``
holds one prompt per sentence and option order (``occupation_first``/``participant_first``),
linked by ``row_id``; ``gold_option`` is the letter whose role is ``gold_role``.

The loaded :class:`PronounDataset` keeps both sentence configurations in one table with a
``context`` column (``double``/``single``) and a ``row_key`` (``context/row_id``: the two
configurations are scored separately, so a row is named by both), and the prompts in
``prompts``. An adaptation is a :class:`~winoscope.datasets.loading.ColumnMap` plus its pronoun
sets, types and forms (:class:`WinoPron`); the English originals come with readers of their
template files (:mod:`.winopron_templates`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ...datasets.base import Dataset, Issue, duplicate_issues
from ...datasets.loading import TABLE, Adaptation, ColumnMap, config_of, load_tables, samples_folder
from ...datasets.schema import Field, Schema, coerce, family_schema
from ...datasets.sources import SourceInfo
from ...errors import DatasetError
from . import sentence_templates as templates
from .checks import CONTEXTS, ORDERS, ROLES, check_pairs, check_prompts, check_sentences

CONFIGS = ("double", "single", "forced_choice")
SETS = ("male", "female", "plural")
TYPES = ("nominative", "oblique", "possessive")
SET_ALIASES = {"masculine": "male", "feminine": "female", "neutral": "plural"}
Forms = Mapping[str, Mapping[str, frozenset[str]]]  # pronoun_type -> pronoun_set -> forms
Reader = Callable[["WinoPron", str | None], tuple[dict[str, tuple[pd.DataFrame, str]], SourceInfo]]

SENTENCE_FIELDS = (
    Field("row_id", doc="stable identifier shared with the forced-choice configuration"),
    Field("pair_id", doc="the complementary occupation/participant pair"),
    Field("template_number", "int", doc="source WinoPron template number"),
    Field("occupation_group", localised=True, doc="canonical occupation for grouped analysis"),
    Field("occupation", localised=True),
    Field("participant", localised=True),
    Field("gold_role", enum=ROLES),
    Field("pronoun_type", enum=TYPES),
    Field("pronoun_set", enum=SETS),
    Field("pronoun", localised=True),
    Field("sentence", localised=True),
    Field("sentence_annotated", localised=True),
    Field("gold_span", localised=True),
)
PROMPT_FIELDS = (
    Field("prompt_id"),
    Field("row_id"),
    Field("pair_id"),
    Field("context", enum=CONTEXTS),
    Field("option_order", enum=ORDERS),
    Field("option_a_role", enum=ROLES),
    Field("option_b_role", enum=ROLES),
    Field("gold_role", enum=ROLES),
    Field("gold_option", enum=("A", "B")),
    Field("prompt", localised=True),
)
LOCALISED = frozenset(f.name for f in (*SENTENCE_FIELDS, *PROMPT_FIELDS) if f.localised)
CONTEXT_FIELD = Field("context", enum=CONTEXTS)

# Ukrainian third-person pronoun forms by pronoun_type and pronoun_set. Oblique covers every
# case but the nominative, with and without the n- of forms after prepositions ("в нього").
UK_PRONOUN_FORMS: dict[str, dict[str, frozenset[str]]] = {
    "nominative": {
        "male": frozenset({"він"}),
        "female": frozenset({"вона"}),
        "plural": frozenset({"вони"}),
    },
    "oblique": {
        "male": frozenset({"його", "нього", "йому", "ньому", "ним", "нім"}),
        "female": frozenset({"її", "неї", "їй", "ній", "нею"}),
        "plural": frozenset({"їх", "них", "їм", "ним", "ними"}),
    },
    "possessive": {
        "male": frozenset({"його"}),
        "female": frozenset({"її"}),
        "plural": frozenset(
            {"їхній", "їхня", "їхнє", "їхні", "їхнього", "їхньої", "їхньому", "їхнім", "їхню"}
            | {"їхньою", "їхніх", "їхніми", "їх"}
        ),
    },
}


@dataclass
class PronounDataset(Dataset):
    """Sentences of both contexts in ``table`` plus the forced-choice ``prompts`` (if any)."""

    prompts: pd.DataFrame | None = None
    lang: str = "uk"
    pronoun_forms: Forms | None = None
    files: dict[str, str] = field(default_factory=dict)  # configuration -> where it was read


@dataclass(frozen=True)
class WinoPron(Adaptation):
    """One WinoPron adaptation: column map, pronoun sets/types/forms, reader and checks.

    ``reader`` reads a source format of its own (the English template files) and returns the
    raw sentence tables per configuration; without one, ``load`` reads the card's tables.
    """

    columns: ColumnMap
    sets: tuple[str, ...] = SETS
    types: tuple[str, ...] = TYPES
    set_aliases: Mapping[str, str] = field(default_factory=lambda: dict(SET_ALIASES))
    pronoun_forms: Forms | None = None
    reader: Reader | None = None
    default_source: str | None = None
    checks: tuple[Callable[[pd.DataFrame, str], list[Issue]], ...] = ()
    prompt_checks: tuple[Callable[[pd.DataFrame, pd.DataFrame], list[Issue]], ...] = ()

    def col(self, family_field: str) -> str:
        """The table column of a family field: ``col("sentence")`` -> ``sentence_uk``."""
        return self.columns.column(family_field, LOCALISED)

    def sentence_schema(self) -> Schema:
        enums = {"pronoun_set": self.sets, "pronoun_type": self.types, **self.columns.enums}
        aliases = {"pronoun_set": self.set_aliases}
        return family_schema(
            self.name, SENTENCE_FIELDS, self.language, enums=enums, aliases=aliases
        )

    def prompt_schema(self) -> Schema:
        return family_schema(f"{self.name}/forced_choice", PROMPT_FIELDS, self.language)

    def _sentences(
        self, raw: pd.DataFrame, context: str, location: str, findings: list[Issue]
    ) -> pd.DataFrame:
        if "context" in raw.columns:
            raw = raw.drop(columns=["context"])
        raw = self.columns.rename(raw, LOCALISED, where=location)
        table = coerce(raw, self.sentence_schema(), source=location, findings=findings)
        table.insert(
            0, "context", pd.Categorical([context] * len(table), categories=list(CONTEXTS))
        )
        return table

    def from_frames(
        self,
        sentences: Mapping[str, tuple[pd.DataFrame, str]],
        prompts: tuple[pd.DataFrame, str] | None,
        *,
        source: SourceInfo,
        name: str | None = None,
        is_sample: bool = False,
    ) -> PronounDataset:
        """Type each configuration (``{context: (raw table, its location)}``) and join them."""
        findings: list[Issue] = []
        parts = [self._sentences(raw, ctx, loc, findings) for ctx, (raw, loc) in sentences.items()]
        if not parts:
            raise DatasetError(
                "no sentence configuration (double or single) to evaluate", file=source.location
            )
        table = pd.concat(parts, ignore_index=True)
        table["context"] = pd.Categorical(table["context"].astype(str), categories=list(CONTEXTS))
        table["row_key"] = table["context"].astype(str) + "/" + table["row_id"].astype(str)
        typed_prompts = None
        if prompts is not None:
            raw = self.columns.rename(prompts[0], LOCALISED, where=prompts[1])
            typed_prompts = coerce(raw, self.prompt_schema(), source=prompts[1], findings=findings)
            typed_prompts["row_key"] = (
                typed_prompts["context"].astype(str) + "/" + typed_prompts["row_id"].astype(str)
            )
        return PronounDataset(
            family=self.name,
            name=name or self.hub_id or self.name,
            table=table,
            source=source,
            review_status=self.review_status,
            is_sample=is_sample,
            prompts=typed_prompts,
            lang=self.language,
            pronoun_forms=self.pronoun_forms,
            findings=findings,
            files={
                **{ctx: loc for ctx, (_, loc) in sentences.items()},
                **({"forced_choice": prompts[1]} if prompts is not None else {}),
            },
        )

    def from_frame(
        self, raw: pd.DataFrame, *, source: SourceInfo, name: str = "predictions"
    ) -> PronounDataset:
        """A table of sentences of both contexts (a ``context`` column), e.g. saved predictions."""
        if "context" not in raw.columns:
            raise DatasetError(
                "missing column context (double or single)", file=source.location, field="context"
            )
        ctx = coerce(raw[["context"]], Schema("context", (CONTEXT_FIELD,)), source=source.location)
        frames = {}
        for c in CONTEXTS:
            keep = (ctx["context"] == c).to_numpy()
            if keep.any():
                frames[c] = (raw[keep].reset_index(drop=True), source.location)
        return self.from_frames(frames, None, source=source, name=name)

    def load(
        self,
        source: str | Path | None = None,
        *,
        revision: str | None = None,
        split: str | None = None,
        cache_dir: str | None = None,
    ) -> PronounDataset:
        """Load the adaptation.

        ``source`` is ``None`` (the bundled sample, or the reader's default source), a hub id
        (pinned with ``revision``; every configuration, split ``test``), a local directory laid
        out like the hub repository (a README with ``configs``), a local directory holding one
        file per configuration (``double.csv``, ``single.jsonl``, ``forced_choice.parquet`` ...
        names ending in the configuration), or one sentence file.
        """
        if self.reader is not None:
            del revision, split, cache_dir
            frames, info = self.reader(self, None if source is None else str(source))
            return self.from_frames(frames, None, source=info, name=self.name)
        loaded = load_tables(
            source,
            self.columns,
            configs=CONFIGS,
            revision=revision,
            split=split,
            cache_dir=cache_dir,
        )
        if loaded.source.kind == "file" and Path(loaded.source.location).is_file():
            return self._single_file(loaded.tables, loaded.source, loaded.name)
        prompts = loaded.tables.get("forced_choice")
        sentences = {c: t for c, t in loaded.tables.items() if c != "forced_choice"}
        ds = self.from_frames(
            sentences, prompts, source=loaded.source, name=loaded.name, is_sample=loaded.is_sample
        )
        ds.metadata.update(loaded.metadata)
        return ds if prompts is not None else without_prompts(ds)

    def _single_file(
        self, tables: Mapping[str, tuple[pd.DataFrame, str]], info: SourceInfo, name: str
    ) -> PronounDataset:
        ((config, (raw, where)),) = tables.items()
        p = Path(where)
        if "prompt_id" in raw.columns:
            raise DatasetError(
                "a forced_choice file alone cannot be scored: its rows need the double and "
                "single sentences (pronoun_set, pronoun_type); pass a directory holding double, "
                "single and forced_choice files",
                file=where,
            )
        if "context" in raw.columns:
            return self.from_frame(raw, source=info, name=name)
        if config == TABLE or config_of(p, CONFIGS) is None:
            raise DatasetError(
                "cannot tell the configuration: add a 'context' column (double/single) or name "
                "the file after it (double.csv, single.csv)",
                file=where,
                field="context",
            )
        return without_prompts(
            self.from_frames({config: (raw, where)}, None, source=info, name=name)
        )

    def validate(self, ds: Dataset) -> list[Issue]:
        """Run every mechanical check; return one Issue per failure (empty: all pass).

        Rows are numbered from 1 within their own configuration; ``item`` names the
        configuration and the row_id (or prompt_id).
        """
        t = ds.table
        issues: list[Issue] = list(ds.findings)
        forms = getattr(ds, "pronoun_forms", None) or self.pronoun_forms
        lang = getattr(ds, "lang", self.language)
        files = getattr(ds, "files", None) or {}
        for context, rows in t.groupby("context", observed=True, sort=False):
            where = files.get(str(context), ds.source.location)
            issues += duplicate_issues(rows, "row_key", file=where, label="row_id", shown="row_id")
            issues += check_sentences(rows, str(context), lang, forms)
            issues += check_pairs(rows, str(context))
            if lang == self.language:  # the adaptation's checks of its own language
                for check in self.checks:
                    issues += check(rows, str(context))
        prompts = getattr(ds, "prompts", None)
        if prompts is not None:
            where = files.get("forced_choice", ds.source.location)
            issues += duplicate_issues(prompts, "prompt_id", file=where)
            issues += check_prompts(t, prompts)
            if lang == self.language:
                for prompt_check in self.prompt_checks:
                    issues += prompt_check(t, prompts)
        return issues


def without_prompts(ds: PronounDataset) -> PronounDataset:
    """``ds`` read from sentence files without a ``forced_choice`` one, with the finding that
    says so: a run asks every sentence with the built-in prompt, not the dataset's own."""
    ds.findings.append(
        Issue(
            "prompts",
            f"no forced_choice configuration: none of the {len(ds.table)} sentence(s) has a "
            "prompt of its own, so the dataset-prompts template asks every one with winoscope's "
            "built-in prompt, not the dataset's prompt_uk (add the forced_choice file)",
            file=ds.source.location,
        )
    )
    return ds


def _uk_entities(rows: pd.DataFrame, context: str) -> list[Issue]:
    from .checks_uk import check_entities

    return check_entities(rows, context)


def _uk_prompts(sentences: pd.DataFrame, prompts: pd.DataFrame) -> list[Issue]:
    from .checks_uk import check_prompts as check_uk_prompts

    return check_uk_prompts(sentences, prompts)


UK = WinoPron(
    ColumnMap(
        name="winopron-uk",
        language="uk",
        sample={c: samples_folder(__name__) / f"winopron_uk_sample_{c}.csv" for c in CONFIGS},
        hub_id="FairForget/WinoPron-Uk",
        hub_split="test",
        review_status=(
            "sentence-level human review ongoing; suitable for pipeline integration and "
            "preliminary evaluation"
        ),
        sample_note=(
            "Bundled sample written for winoscope in the card's schema; not the WinoPron-UK "
            "dataset. Numbers on it are for checking the pipeline only."
        ),
    ),
    pronoun_forms=UK_PRONOUN_FORMS,
    checks=(_uk_entities,),
    prompt_checks=(_uk_prompts,),
)


def english(name: str, review_status: str, reader: Reader, default_source: str) -> WinoPron:
    """An English adaptation read from template files: he/she/singular they."""
    return WinoPron(
        ColumnMap(name=name, language="en", review_status=review_status),
        sets=templates.SETS,
        types=templates.TYPES,
        set_aliases={},
        pronoun_forms=templates.FORMS,
        reader=reader,
        default_source=default_source,
    )


EN = english(
    "winopron-en",
    "published dataset (Gautam et al., CRAC 2024)",
    templates.read_winopron,
    templates.WINOPRON_SOURCE,
)
WINOGENDER = english(
    "winogender-en",
    "published dataset (Rudinger et al., NAACL 2018)",
    templates.read_winogender,
    templates.WINOGENDER_SOURCE,
)

__all__ = ["CONFIGS", "EN", "SETS", "TYPES", "UK", "WINOGENDER", "PronounDataset", "WinoPron"]
