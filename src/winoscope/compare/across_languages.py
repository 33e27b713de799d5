"""One model on an English set and its Ukrainian adaptation, joined on shared source items.

WinoBias-UK Natural joins English WinoBias (task ``winobias-en``) on the source item
``(split, type, item_number, condition)`` (:mod:`winoscope.families.winobias.crosslingual`);
WinoPron-UK joins English WinoPron (task ``winopron-en``) on the source template number and
pronoun set (:mod:`winoscope.families.winopron.crosslingual`).

On the shared rows, per family: the card's metrics per language, UK - EN with a 95% paired
bootstrap interval (the same resampled source units for both languages); the per-row agreement
(both right, only EN right, only UK right, both wrong) with an exact McNemar test; and the
occupations whose accuracy differs most between the languages (by the English occupation, with
the Ukrainian name beside it) (:mod:`winoscope.compare.joins`).


Not linked: SweWinogender to English Winogender. The SweWinogender release numbers its own
templates (``template_id`` 1A, 1B; schema 1) and gives Swedish occupation and participant
lemmas, but no Winogender schema id or English form, so no row can be tied to an English
Winogender sentence without a mapping the release does not state; :func:`crosslingual`
refuses the pair and says so (:data:`UNLINKABLE`).

Before joining, :func:`crosslingual` checks what a reviewer would: the Ukrainian run comes
first (swapped runs are refused with the order to use); both runs are of one model (the spec
and the weights, label, adapters and hooks the manifests record, :func:`model_differences`);
and every linked row names the same occupations in both languages (the family modules'
``occupation_check``). A different model or mismatched occupations are refused unless allowed
(``allow_different_models``, ``allow_mismatched``), and what was allowed is stated in the
result's ``notes`` and on the pages, which also carry a banner when a run is on a bundled
sample.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..errors import DatasetError, TaskError
from ..jsonio import write_csv
from ..results.crosslingual import CrosslingualResult
from ..results.record import RunRecord
from ..results.rundir import RunDir, load_predictions, load_run_dir
from .joins import answered_in_both, mismatch_text
from .links import Link, Unlinkable, find_link, linked_pairs
from .pairing import data_identity

# model.params entries that tell two runs of one spec apart: who labelled an in-memory model,
# which weights (fingerprint, hub commit), adapters and hooks were on it
MODEL_FIELDS = (
    "label",
    "fingerprint",
    "commit",
    "weights",
    "weights_modified",
    "adapter",
    "adapters",
    "hooks",
)
# entries whose absence means "none" (so one run with them and one without differ)
MODEL_PRESENCE = ("weights_modified", "adapter", "adapters", "hooks")


def model_identity(record: RunRecord) -> dict[str, str]:
    """What identifies a run's model: its spec, then each :data:`MODEL_FIELDS` entry the
    record holds (as text)."""
    params = record.model.params or {}
    out = {"spec": "?" if record.model.spec is None else str(record.model.spec)}
    for key in MODEL_FIELDS:
        value = params.get(key)
        if value is None or value == "" or value == [] or value == {}:
            continue
        out[key] = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return out


def _short(text: str, n: int = 16) -> str:
    return text if len(text) <= n else text[:n] + "…"


def model_differences(a: RunRecord, b: RunRecord) -> list[str]:
    """``field A vs B`` for every identity field the two records disagree on (a field only
    one of them records counts when its absence means none, :data:`MODEL_PRESENCE`)."""
    ia, ib = model_identity(a), model_identity(b)
    out = []
    for key in dict.fromkeys([*ia, *ib]):
        if key in ia and key in ib:
            if ia[key] != ib[key]:
                out.append(f"{key} {_short(ia[key])} vs {_short(ib[key])}")
        elif key in MODEL_PRESENCE:
            out.append(f"{key} {_short(ia.get(key, 'none'))} vs {_short(ib.get(key, 'none'))}")
    return out


def _identity(rd: RunDir) -> dict[str, str]:
    """What the page and the Markdown show of a run: the strongest data hash it records."""
    data = next(iter(data_identity(rd.record).items()), None)
    return {
        "task": rd.task,
        "model": rd.label,
        "run": str(rd.path),
        "data": f"{data[0]}={data[1]}" if data else "unrecorded",
        "prompt": rd.prompt_key,
        "dataset": rd.record.dataset_name or rd.task,
    }


def _check_order(uk: RunDir, en: RunDir) -> None:
    """A TaskError for a pair that links only the other way round (English run first)."""
    if isinstance(find_link(en.task, uk.task), Link):
        raise TaskError(
            f"the runs are in the wrong order: {uk.path.name} is the English run ({uk.task}) "
            f"and {en.path.name} the Ukrainian one ({en.task}); crosslingual takes the "
            "Ukrainian run first and the English run second. Swap them: "
            f"crosslingual({str(en.path)!r}, {str(uk.path)!r})"
        )


def _check_models(uk: RunDir, en: RunDir, allow: bool) -> list[str]:
    """The notes of an allowed model difference; a TaskError naming both models otherwise."""
    diffs = model_differences(uk.record, en.record)
    if not diffs:
        return []
    said = (
        f"the UK run {uk.path.name} is of {uk.label} and the EN run {en.path.name} of "
        f"{en.label} ({'; '.join(diffs)})"
    )
    if not allow:
        raise TaskError(
            f"the runs are of different models: {said}. A cross-lingual comparison is one "
            "model in two languages; pass --allow-different-models (allow_different_models=True) to compare two models "
            "anyway"
        )
    return [
        f"Different models (allowed by allow_different_models): {said}. UK − EN mixes the "
        "language with the model; it is not one model's cross-lingual difference."
    ]


def _check_occupations(
    mismatches: pd.DataFrame, checked: int, unit: str, allow: bool, table: str
) -> list[str]:
    """The note of allowed mismatched occupations; a TaskError listing them otherwise."""
    if mismatches.empty:
        return []
    more = len(mismatches) - 3
    said = (
        f"{len(mismatches)} of {checked} occupation links ({unit}, role) do not correspond by "
        f"{table}: {mismatch_text(mismatches)}" + (f"; {more} more" if more > 0 else "")
    )
    if not allow:
        raise TaskError(
            f"{said}. The joined rows are not translations of each other; refusing to compare "
            "them. Pass --allow-mismatched (allow_mismatched=True) to join them anyway (they are then listed on the "
            "page and in the result's mismatches)"
        )
    return [
        f"Mismatched occupations (allowed by allow_mismatched): {said}. Those rows are "
        "compared as if they were translations (the mismatches table lists them)."
    ]


def crosslingual(
    run_uk: str | Path | RunDir,
    run_en: str | Path | RunDir,
    *,
    out: str | Path | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    allow_different_models: bool = False,
    allow_mismatched: bool = False,
) -> CrosslingualResult:
    """Join a Ukrainian run and an English run of one model on shared source items
    (WinoBias-UK with WinoBias, WinoPron-UK with WinoPron); SweWinogender cannot be linked to
    English Winogender (the error says why).

    The Ukrainian run comes first. Runs of different models (spec, or the weights, label,
    adapters or hooks recorded for one spec) are refused unless ``allow_different_models``;
    linked rows whose occupations are not translations of each other are refused unless
    ``allow_mismatched``. What is allowed is stated on the pages and in ``notes``; a run on the
    bundled sample puts a banner on the pages.
    """
    from ..outputs import check_out_folder

    if out is not None:
        check_out_folder(out)
    if n_boot < 0 or seed < 0:
        raise TaskError(f"n_boot={n_boot}, seed={seed}: expected whole numbers from 0")
    if not 0 < level < 1:
        raise TaskError(f"level={level!r}: expected a share between 0 and 1, e.g. 0.95")
    uk = run_uk if isinstance(run_uk, RunDir) else load_run_dir(run_uk)
    en = run_en if isinstance(run_en, RunDir) else load_run_dir(run_en)
    _check_order(uk, en)
    link = find_link(uk.task, en.task)
    if isinstance(link, Unlinkable):  # refused whichever comes first
        raise TaskError(
            f"no cross-lingual link between {uk.task} ({uk.path.name}) and {en.task} "
            f"({en.path.name}): {link.reason}"
        )
    if not isinstance(link, Link):
        known = ", ".join(f"{a} with {b}" for a, b in linked_pairs())
        raise TaskError(
            f"no cross-lingual link between {uk.task} ({uk.path.name}) and {en.task} "
            f"({en.path.name}); linked (Ukrainian run first): {known}"
        )
    notes = _check_models(uk, en, allow_different_models)
    joined, counts = link.linked_rows(load_predictions(uk), load_predictions(en))
    mismatches, checked = link.occupation_check(joined)
    key, unit, tables = list(link.key), link.unit, link.tables
    uk_rows = counts[link.uk_rows]
    notes += _check_occupations(
        mismatches, checked, link.link_unit, allow_mismatched, link.occupation_source
    )
    rows, join_counts = answered_in_both(joined, uk_rows)
    counts = {**counts, **join_counts}
    if rows.empty:
        raise DatasetError(
            f"the two runs share no answered source item ({', '.join(key)})",
            file=str(en.path),
        )
    samples = [lang for lang, rd in (("uk", uk), ("en", en)) if rd.record.is_sample]
    result = CrosslingualResult(
        run_uk=str(uk.path),
        run_en=str(en.path),
        model_uk=uk.model,
        model_en=en.model,
        table=tables[0](rows, n_boot=n_boot, seed=seed, level=level),
        agreement=tables[1](rows),
        occupations=tables[2](rows),
        settings={
            **counts,
            "occupation_links": checked,
            "mismatched_links": len(mismatches),
            "n_boot": n_boot,
            "seed": seed,
            "level": level,
            "resampling_unit": unit,
            "join": key,
            "allow_different_models": allow_different_models,
            "allow_mismatched": allow_mismatched,
        },
        runs={lang: _identity(rd) for lang, rd in (("uk", uk), ("en", en))},
        mismatches=mismatches,
        notes=notes,
        sample_runs=samples,
        out_dir=None if out is None else str(out),
    )
    if out is not None:
        target = Path(out)
        target.mkdir(parents=True, exist_ok=True)
        write_csv(target / "crosslingual.csv", result.table)
        write_csv(target / "crosslingual_agreement.csv", result.agreement)
        write_csv(target / "crosslingual_occupations.csv", result.occupations)
        if not result.mismatches.empty:
            write_csv(target / "crosslingual_mismatches.csv", result.mismatches)
        from ..report.crosslingual_page import write_crosslingual

        write_crosslingual(result, target)
    return result
