"""One model on an English set and its Ukrainian adaptation, joined on shared source items.

WinoBias-UK Natural joins English WinoBias (task ``winobias-en``) on the source item
``(split, type, item_number, condition)`` (:mod:`winoscope.compare.across_winobias`);
WinoPron-UK joins English WinoPron (task ``winopron-en``) on the source template number and
pronoun set (:mod:`winoscope.compare.across_winopron`).

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
"""

from __future__ import annotations

from pathlib import Path

from ..errors import DatasetError, TaskError
from ..report.rundir import RunDir, load_predictions, load_run_dir
from . import across_winobias as wb
from . import across_winopron as wp
from .crosslingual_result import CrosslingualResult
from .joins import agreement_table, occupation_table
from .pairing import data_identity

PAIRS = {("winobias-uk", "winobias-en"), ("winopron-uk", "winopron-en")}
SWEWINOGENDER_TASKS = ("swewinogender", "swewinogender/nli", "swewinogender/resolution")
UNLINKABLE = {
    (sv, en): (
        "SweWinogender rows cannot be linked to English Winogender rows: the SweWinogender "
        "release numbers its own templates (template_id 1A, 1B, ...; schema 1) and does not say "
        "which Winogender schema or sentence (answer 0 or 1) each one adapts, and its "
        "occupations and participants are Swedish lemmas with no English form, so pairing the "
        "runs would rest on a mapping the release does not give. Compare the two runs' own "
        "reports side by side instead (winoscope compare)"
    )
    for sv in SWEWINOGENDER_TASKS
    for en in ("winogender-en", "winopron-en")
}


def _identity(rd: RunDir) -> dict[str, str]:
    """What the page and the Markdown show of a run: the strongest data hash it records."""
    data = next(iter(data_identity(rd.manifest).items()), None)
    return {
        "task": rd.task,
        "model": rd.model,
        "run": str(rd.path),
        "data": f"{data[0]}={data[1]}" if data else "unrecorded",
        "prompt": rd.prompt_key,
    }


def crosslingual(
    run_uk: str | Path | RunDir,
    run_en: str | Path | RunDir,
    *,
    out: str | Path | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> CrosslingualResult:
    """Join a Ukrainian run and an English run of one model on shared source items
    (WinoBias-UK with WinoBias, WinoPron-UK with WinoPron); SweWinogender cannot be linked to
    English Winogender (the error says why)."""
    uk = run_uk if isinstance(run_uk, RunDir) else load_run_dir(run_uk)
    en = run_en if isinstance(run_en, RunDir) else load_run_dir(run_en)
    if (uk.task, en.task) in UNLINKABLE:
        raise TaskError(
            f"no cross-lingual link between {uk.task} ({uk.path.name}) and {en.task} "
            f"({en.path.name}): {UNLINKABLE[(uk.task, en.task)]}"
        )
    if (uk.task, en.task) not in PAIRS:
        known = ", ".join(f"{a} with {b}" for a, b in sorted(PAIRS))
        raise TaskError(
            f"no cross-lingual link between {uk.task} ({uk.path.name}) and {en.task} "
            f"({en.path.name}); linked: {known}"
        )
    if uk.task == "winopron-uk":
        rows, counts = wp.shared_rows(load_predictions(uk), load_predictions(en))
        key, unit = wp.KEY, "template pair (pair_id; same draws for both languages)"
        tables = (wp.metric_table, wp.agreement_table, wp.occupation_table)
    else:
        rows, counts = wb.shared_rows(load_predictions(uk), load_predictions(en))
        key, unit = wb.KEY, "source item within split/type (same draws for both languages)"
        tables = (wb.metric_table, agreement_table, occupation_table)
    if rows.empty:
        raise DatasetError(
            f"the two runs share no answered source item ({', '.join(key)})",
            file=str(en.path),
        )
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
            "n_boot": n_boot,
            "seed": seed,
            "level": level,
            "resampling_unit": unit,
            "join": key,
        },
        runs={lang: _identity(rd) for lang, rd in (("uk", uk), ("en", en))},
    )
    if out is not None:
        target = Path(out)
        target.mkdir(parents=True, exist_ok=True)
        result.table.to_csv(target / "crosslingual.csv", index=False)
        result.agreement.to_csv(target / "crosslingual_agreement.csv", index=False)
        result.occupations.to_csv(target / "crosslingual_occupations.csv", index=False)
        from .crosslingual_report import write_crosslingual

        write_crosslingual(result, target)
    return result
