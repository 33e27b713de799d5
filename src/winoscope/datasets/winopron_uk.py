"""WinoPron-UK: its three configurations, loading and the card's mechanical checks.

Card facts implemented here: 180 complementary pairs; each ``pair_id`` has an occupation- and a
participant-reference sentence (``gold_role``) in masculine, feminine and plural forms
(``pronoun_set`` male/female/plural), in the ``double`` configuration (occupation and another
participant) and in the ``single`` one (only the gold referent). ``forced_choice`` holds one
prompt per sentence and option order (``occupation_first``/``participant_first``), linked by
``row_id``; ``gold_option`` is the letter whose role (``option_a_role``/``option_b_role``) is
``gold_role``.

The loaded :class:`PronounDataset` keeps both sentence configurations in one table with a
``context`` column (``double``/``single``) and a ``row_key`` (``context/row_id``: the two
configurations are scored separately, so a row is named by both), and the prompts in
``prompts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pandas as pd

from ..errors import DatasetError
from .annotation import bracket_mentions, strip_brackets
from .base import Dataset, Issue
from .checks_winopron_uk import check_entities, check_prompts
from .schema import Field, Schema, coerce
from .sources import TABLE_SUFFIXES, SourceInfo, file_sha256, load_hub_table, read_table

HUB_ID = "FairForget/WinoPron-Uk"
HUB_SPLIT = "test"
REVIEW_STATUS = (
    "sentence-level human review ongoing; suitable for pipeline integration and preliminary "
    "evaluation"
)
SAMPLE_FILES = {
    "double": "winopron_uk_sample_double.csv",
    "single": "winopron_uk_sample_single.csv",
    "forced_choice": "winopron_uk_sample_forced_choice.csv",
}
CONFIGS = ("double", "single", "forced_choice")
CONTEXTS = ("double", "single")
ROLES = ("occupation", "participant")
SETS = ("male", "female", "plural")
TYPES = ("nominative", "oblique", "possessive")
ORDERS = ("occupation_first", "participant_first")
SET_ALIASES = {"masculine": "male", "feminine": "female", "neutral": "plural"}

# Ukrainian third-person pronoun forms by pronoun_type and pronoun_set. Oblique covers every
# case but the nominative, with and without the n- of forms after prepositions ("в нього").
PRONOUN_FORMS: dict[str, dict[str, frozenset[str]]] = {
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
            {
                "їхній",
                "їхня",
                "їхнє",
                "їхні",
                "їхнього",
                "їхньої",
                "їхньому",
                "їхнім",
                "їхню",
                "їхньою",
                "їхніх",
                "їхніми",
                "їх",
            }
        ),
    },
}


def sentence_schema(
    lang: str = "uk", sets: tuple[str, ...] = SETS, types: tuple[str, ...] = TYPES
) -> Schema:
    """The card's sentence fields; ``lang`` is the suffix of the text fields (``_uk``)."""
    return Schema(
        family=f"winopron-{lang}",
        fields=(
            Field("row_id", doc="stable identifier shared with the forced-choice configuration"),
            Field("pair_id", doc="the complementary occupation/participant pair"),
            Field("template_number", "int", doc="source WinoPron template number"),
            Field(f"occupation_group_{lang}", doc="canonical occupation for grouped analysis"),
            Field(f"occupation_{lang}"),
            Field(f"participant_{lang}"),
            Field("gold_role", enum=ROLES),
            Field("pronoun_type", enum=tuple(types)),
            Field("pronoun_set", enum=tuple(sets), aliases=SET_ALIASES if lang == "uk" else {}),
            Field(f"pronoun_{lang}"),
            Field(f"sentence_{lang}"),
            Field(f"sentence_annotated_{lang}"),
            Field(f"gold_span_{lang}"),
        ),
    )


def prompt_schema(lang: str = "uk") -> Schema:
    return Schema(
        family=f"winopron-{lang}/forced_choice",
        fields=(
            Field("prompt_id"),
            Field("row_id"),
            Field("pair_id"),
            Field("context", enum=CONTEXTS),
            Field("option_order", enum=ORDERS),
            Field("option_a_role", enum=ROLES),
            Field("option_b_role", enum=ROLES),
            Field("gold_role", enum=ROLES),
            Field("gold_option", enum=("A", "B")),
            Field(f"prompt_{lang}"),
        ),
    )


SENTENCE_SCHEMA = sentence_schema()
PROMPT_SCHEMA = prompt_schema()
CONTEXT_FIELD = Field("context", enum=CONTEXTS)


@dataclass
class PronounDataset(Dataset):
    """Sentences of both contexts in ``table`` plus the forced-choice ``prompts`` (if any)."""

    prompts: pd.DataFrame | None = None
    lang: str = "uk"
    pronoun_forms: Mapping[str, Mapping[str, frozenset[str]]] | None = None


def _sentences(raw: pd.DataFrame, context: str, schema: Schema, location: str) -> pd.DataFrame:
    if "context" in raw.columns:
        raw = raw.drop(columns=["context"])
    table = coerce(raw, schema, source=location)
    table.insert(0, "context", pd.Categorical([context] * len(table), categories=list(CONTEXTS)))
    return table


def from_frames(
    sentences: Mapping[str, tuple[pd.DataFrame, str]],
    prompts: tuple[pd.DataFrame, str] | None,
    *,
    source: SourceInfo,
    name: str = HUB_ID,
    is_sample: bool = False,
    lang: str = "uk",
    schema: Schema = SENTENCE_SCHEMA,
    family: str = "winopron-uk",
    review_status: str = REVIEW_STATUS,
) -> PronounDataset:
    """Type each configuration (``{context: (raw table, where it came from)}``) and join them."""
    parts = [_sentences(raw, ctx, schema, loc) for ctx, (raw, loc) in sentences.items()]
    if not parts:
        raise DatasetError(
            "no sentence configuration (double or single) to evaluate", file=source.location
        )
    table = pd.concat(parts, ignore_index=True)
    table["context"] = pd.Categorical(table["context"].astype(str), categories=list(CONTEXTS))
    table["row_key"] = table["context"].astype(str) + "/" + table["row_id"].astype(str)
    typed_prompts = None
    if prompts is not None:
        typed_prompts = coerce(prompts[0], prompt_schema(lang), source=prompts[1])
        typed_prompts["row_key"] = (
            typed_prompts["context"].astype(str) + "/" + typed_prompts["row_id"].astype(str)
        )
    return PronounDataset(
        family=family,
        name=name,
        table=table,
        source=source,
        review_status=review_status,
        is_sample=is_sample,
        prompts=typed_prompts,
        lang=lang,
    )


def from_frame(
    raw: pd.DataFrame, *, source: SourceInfo, name: str = "predictions"
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
    return from_frames(frames, None, source=source, name=name)


def sample_path(config: str) -> Path:
    return Path(str(resources.files("winoscope.data").joinpath(SAMPLE_FILES[config])))


def _config_of(path: Path) -> str | None:
    stem = path.name.split(".")[0].lower().replace("-", "_")
    for config in ("forced_choice", "double", "single"):
        if stem == config or stem.endswith("_" + config) or stem.startswith(config + "_"):
            return config
    return None


def _files_in(directory: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for p in sorted(directory.iterdir()):
        if p.is_file() and "".join(p.suffixes[-1:]).lower() in TABLE_SUFFIXES:
            config = _config_of(p)
            if config is not None:
                if config in found:
                    raise DatasetError(
                        f"two files for configuration '{config}': {found[config].name}, {p.name}",
                        file=str(directory),
                    )
                found[config] = p
    return found


def _from_files(files: Mapping[str, Path], *, name: str, location: str) -> PronounDataset:
    sentences: dict[str, tuple[pd.DataFrame, str]] = {}
    prompts = None
    hashes = []
    for config in CONFIGS:
        p = files.get(config)
        if p is None:
            continue
        raw = read_table(p)
        hashes.append(f"{config}={file_sha256(p)}")
        if config == "forced_choice":
            prompts = (raw, str(p))
        else:
            sentences[config] = (raw, str(p))
    info = SourceInfo(kind="file", location=location, sha256=";".join(hashes))
    return from_frames(sentences, prompts, source=info, name=name)


def _single_file(p: Path) -> PronounDataset:
    raw = read_table(p)
    if "prompt_id" in raw.columns:
        raise DatasetError(
            "a forced_choice file alone cannot be scored: its rows need the double and single "
            "sentences (pronoun_set, pronoun_type); pass a directory holding double, single and "
            "forced_choice files",
            file=str(p),
        )
    info = SourceInfo(kind="file", location=str(p), sha256=file_sha256(p))
    if "context" in raw.columns:
        return from_frame(raw, source=info, name=p.name)
    config = _config_of(p)
    if config is None:
        raise DatasetError(
            "cannot tell the configuration: add a 'context' column (double/single) or name the "
            "file after it (double.csv, single.csv)",
            file=str(p),
            field="context",
        )
    return from_frames({config: (raw, str(p))}, None, source=info, name=p.name)


def load(
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
    cache_dir: str | None = None,
) -> PronounDataset:
    """Load WinoPron-UK.

    ``source`` is ``None`` (the bundled sample: the project's own text, not the dataset), a hub
    id (``FairForget/WinoPron-Uk``, pinned with ``revision``; all three configurations, split
    ``test``), a local directory laid out like the hub repository (a README with ``configs``),
    a local directory holding one file per configuration (``double.csv``, ``single.jsonl``,
    ``forced_choice.parquet`` ... names ending in the configuration), or one sentence file.
    """
    if source is None:
        files = {c: sample_path(c) for c in CONFIGS}
        ds = _from_files(files, name="winopron-uk sample", location="winoscope:winopron_uk_sample")
        ds.source = SourceInfo(
            kind="sample", location="winoscope:winopron_uk_sample", sha256=ds.source.sha256
        )
        ds.is_sample = True
        ds.metadata["note"] = (
            "Bundled sample written for winoscope in the card's schema; not the WinoPron-UK "
            "dataset. Numbers on it are for checking the pipeline only."
        )
        return ds
    p = Path(source)
    if p.is_file():
        return _single_file(p)
    if p.suffix.lower() in TABLE_SUFFIXES:
        raise DatasetError("no such file", file=str(p))
    if p.is_dir() and not (p / "README.md").is_file():
        files = _files_in(p)
        if not files:
            raise DatasetError(
                "no double/single/forced_choice table files and no hub README.md here",
                file=str(p),
            )
        return _from_files(files, name=p.name, location=str(p))
    sentences = {}
    prompts = None
    infos = []
    for config in CONFIGS:
        raw, info = load_hub_table(
            str(source),
            config=config,
            split=split or HUB_SPLIT,
            revision=revision,
            cache_dir=cache_dir,
        )
        raw = raw.drop(columns=["split"], errors="ignore")
        infos.append(info)
        where = f"{source}:{config}"
        if config == "forced_choice":
            prompts = (raw, where)
        else:
            sentences[config] = (raw, where)
    info = SourceInfo(
        kind="hub",
        location=str(source),
        revision=revision,
        split=split or HUB_SPLIT,
        commit=infos[0].commit,
        commit_from=infos[0].commit_from,
    )
    return from_frames(sentences, prompts, source=info, name=str(source))


def _cf(text: str) -> str:
    return text.strip().casefold()


def validate(ds: Dataset) -> list[Issue]:
    """Run every mechanical check of the card; return one Issue per failure (empty: all pass).

    Rows are numbered from 1 within their own configuration; ``item`` names the configuration
    and the row_id (or prompt_id). Entity inflection and prompt integrity (Ukrainian only) are
    in :mod:`.checks_winopron_uk`.
    """
    lang = getattr(ds, "lang", "uk")
    t = ds.table
    issues: list[Issue] = []
    forms = getattr(ds, "pronoun_forms", None) or (PRONOUN_FORMS if lang == "uk" else None)
    for context, rows in t.groupby("context", observed=True, sort=False):
        issues += _check_sentences(rows, str(context), lang, forms)
        issues += _check_pairs(rows, str(context))
        if lang == "uk":
            issues += check_entities(rows, str(context))
    prompts = getattr(ds, "prompts", None)
    if prompts is not None:
        issues += _check_prompts(t, prompts)
        if lang == "uk":
            issues += check_prompts(t, prompts)
    return issues


def _check_sentences(
    rows: pd.DataFrame,
    context: str,
    lang: str,
    forms: Mapping[str, Mapping[str, frozenset[str]]] | None,
) -> list[Issue]:
    issues: list[Issue] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows.to_dict("records"), start=1):
        where = f"{context}:{row['row_id']}"

        def add(check: str, msg: str, *, _i: int = i, _w: str = where) -> None:
            issues.append(Issue(check, msg, row=_i, item=_w))

        if row["row_id"] in seen:
            add("row_id", f"row_id repeats row {seen[row['row_id']]} of the {context} sentences")
        seen.setdefault(row["row_id"], i)
        sent, ann = row[f"sentence_{lang}"], row[f"sentence_annotated_{lang}"]
        gold, pron = row[f"gold_span_{lang}"], row[f"pronoun_{lang}"]
        if strip_brackets(ann) != sent:
            add(
                "annotation",
                f"removing the square brackets from sentence_annotated_{lang} does not give "
                f"sentence_{lang}",
            )
        try:
            mentions = bracket_mentions(ann)
        except ValueError as exc:
            add("annotation", f"sentence_annotated_{lang}: {exc}")
            mentions = None
        if mentions is not None:
            if len(mentions) != 2:
                add("annotation", f"expected exactly two bracketed spans, found {len(mentions)}")
            elif sorted(m.text for m in mentions) != sorted([gold, pron]):
                found = " and ".join(f"'{m.text}'" for m in mentions)
                add(
                    "annotation",
                    f"bracketed spans {found} are not the gold span '{gold}' and the pronoun "
                    f"'{pron}'",
                )
        if gold not in sent:
            add("annotation", f"gold_span_{lang} '{gold}' does not occur in sentence_{lang}")
        if forms is not None:
            allowed = forms[str(row["pronoun_type"])][str(row["pronoun_set"])]
            if _cf(pron) not in allowed:
                add(
                    "pronoun",
                    f"pronoun_{lang} '{pron}' is not a {row['pronoun_set']} {row['pronoun_type']} "
                    f"form (expected one of {', '.join(sorted(allowed))})",
                )
    return issues


def _check_pairs(rows: pd.DataFrame, context: str) -> list[Issue]:
    issues: list[Issue] = []
    expected = {(r, s) for r in ROLES for s in sorted(set(rows["pronoun_set"].cat.categories))}
    for pair_id, group in rows.groupby("pair_id", sort=True):
        cells = list(
            zip(group["gold_role"].astype(str), group["pronoun_set"].astype(str), strict=True)
        )
        missing = sorted(expected - set(cells))
        dupes = sorted({c for c in cells if cells.count(c) > 1})
        if missing or dupes:
            parts = []
            if missing:
                parts.append("missing " + ", ".join(f"{r}/{s}" for r, s in missing))
            if dupes:
                parts.append("duplicated " + ", ".join(f"{r}/{s}" for r, s in dupes))
            issues.append(
                Issue(
                    "pair",
                    f"{context} pair needs one occupation- and one participant-reference sentence "
                    "per pronoun set: " + "; ".join(parts),
                    item=f"{context}:{pair_id}",
                )
            )
        group_col = [c for c in group.columns if c.startswith("occupation_group_")]
        if group_col and group[group_col[0]].nunique() > 1:
            vals = ", ".join(sorted(group[group_col[0]].unique()))
            issues.append(
                Issue(
                    "pair",
                    f"{group_col[0]} differs within the pair ({vals})",
                    item=f"{context}:{pair_id}",
                )
            )
    return issues


def _check_prompts(sentences: pd.DataFrame, prompts: pd.DataFrame) -> list[Issue]:
    issues: list[Issue] = []
    by_key = sentences.set_index("row_key")[["gold_role", "pair_id"]].to_dict("index")
    seen_ids: dict[str, int] = {}
    orders: dict[str, list[str]] = {}
    for i, row in enumerate(prompts.to_dict("records"), start=1):
        where = f"forced_choice:{row['prompt_id']}"

        def add(check: str, msg: str, *, _i: int = i, _w: str = where) -> None:
            issues.append(Issue(check, msg, row=_i, item=_w))

        if row["prompt_id"] in seen_ids:
            add("prompt_id", f"prompt_id repeats forced_choice row {seen_ids[row['prompt_id']]}")
        seen_ids.setdefault(row["prompt_id"], i)
        a, b = str(row["option_a_role"]), str(row["option_b_role"])
        if a == b:
            add("options", f"option_a_role and option_b_role are both '{a}'")
        first = str(row["option_order"]).removesuffix("_first")
        if a != first:
            add("options", f"option_order {row['option_order']} but option_a_role is {a}")
        gold_letter = "A" if a == row["gold_role"] else ("B" if b == row["gold_role"] else None)
        if gold_letter != row["gold_option"]:
            add(
                "options",
                f"gold_option {row['gold_option']} does not match gold_role {row['gold_role']} "
                f"(A = {a}, B = {b})",
            )
        sent = by_key.get(row["row_key"])
        if sent is None:
            add(
                "link",
                f"row_id {row['row_id']} is not a row of the {row['context']} configuration",
            )
            continue
        orders.setdefault(row["row_key"], []).append(str(row["option_order"]))
        if str(sent["gold_role"]) != str(row["gold_role"]):
            add("link", f"gold_role {row['gold_role']} but the sentence has {sent['gold_role']}")
        if str(sent["pair_id"]) != str(row["pair_id"]):
            add("link", f"pair_id {row['pair_id']} but the sentence has {sent['pair_id']}")
    for key in sentences["row_key"]:
        got = sorted(orders.get(key, []))
        if got != sorted(ORDERS):
            issues.append(
                Issue(
                    "order_balance",
                    "needs exactly one prompt per option order "
                    f"({', '.join(ORDERS)}); has {', '.join(got) or 'none'}",
                    item=key.replace("/", ":", 1),
                )
            )
    return issues
