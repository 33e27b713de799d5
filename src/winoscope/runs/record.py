"""The last stages' records and the manifest, built once from them.

:class:`Answers` is what the ask stage got (every response by request id, with how many were
stored, asked and failed); :class:`Predicted` what the predict stage made of them (the rows
with their predictions, the rows the scorer reads after the failed-request policy, and how
many had no answer). :func:`run_manifest` builds the manifest from the plan, these two and the
scorer's result, in one place: nothing adds to it afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..datasets.validation import manifest_entry
from ..protocols.answer_pattern import invalid_pattern
from ..protocols.cloze import ORDER_NOTE, ClozeTemplate
from ..protocols.forced_choice import letter_mass_summary
from ..records import Description, Response
from ..scoring.answer_quality import answer_quality
from ..scoring.base import ScoreResult
from .outcome import build_manifest, run_outcome
from .plan import RunPlan


@dataclass(frozen=True)
class Answers:
    responses: dict[str, Response]
    counts: dict[str, Any]  # cached, asked, errors

    @property
    def n_errors(self) -> int:
        return sum(1 for r in self.responses.values() if r.error is not None)


@dataclass(frozen=True)
class Predicted:
    predictions: pd.DataFrame  # every row with its prediction (the run's predictions.csv)
    to_score: pd.DataFrame  # the rows the scorer reads after the failed-request policy
    unanswered: int


def why_not_stored(plan: RunPlan, description: Description) -> str:
    backend, cfg = plan.backend, plan.config
    if not backend.cacheable:
        runtime = description.runtime
        return str(runtime.get("store") or "the backend's answers cost nothing to recompute")
    if cfg.store is False:
        return "store=False"
    return "no run directory (out) and no store file given"


def run_manifest(
    plan: RunPlan, answers: Answers, predicted: Predicted, result: ScoreResult
) -> dict[str, Any]:
    """The run's manifest: dataset, model (identity, runtime, transport), prompt, protocol,
    bootstrap, answers, outcome, validation, partial data, failed requests, conventions."""
    cfg, backend = plan.config, plan.backend
    description = backend.describe()
    n_errors = answers.n_errors
    manifest = build_manifest(
        plan.task,
        plan.dataset,
        backend,
        plan.template,
        seed=cfg.seed,
        n_boot=cfg.n_boot,
        n_requests=len(plan.requests),
        n_errors=n_errors,
        started=plan.started,
        settings=result.settings,
        runtime=dict(description.runtime),
    )
    responses: dict[str, Any] = {
        **answers.counts,
        "store": None if plan.store_path is None else plan.store_path.name,
    }
    if plan.store_path is None:
        responses["not_stored"] = why_not_stored(plan, description)
    extra: dict[str, Any] = {"tags": plan.tags, "responses": responses}
    mass = letter_mass_summary(answers.responses.values())
    if mass is not None:  # instruct models that do not answer with the offered letters show
        extra["letter_mass"] = mass
    extra["outcome"] = run_outcome(answers.responses, len(plan.requests), cfg.max_failed_share)
    extra["answer_quality"] = answer_quality(
        result.counts, extra["outcome"], invalid_pattern(plan.requests, answers.responses)
    )
    if description.transport is not None:
        extra["transport"] = dict(description.transport)
    extra["protocol"] = plan.protocol  # the task's own, or the other binding it was asked by
    if isinstance(plan.template, ClozeTemplate):
        extra["prompt_template"] = plan.template.describe()
        extra["protocol_notes"] = [ORDER_NOTE]
    extra["validation"] = manifest_entry(plan.issues)
    if plan.partial is not None:
        extra["partial"] = plan.partial
    if plan.left_out is not None:
        extra["left_out"] = plan.left_out
    extra["failed_requests"] = {
        "policy": cfg.failed,
        "requests": n_errors,
        "rows": predicted.unanswered,
    }
    if result.settings.get("conventions"):
        extra["conventions"] = result.settings["conventions"]
    if description.output is not None:
        extra["resolver_output"] = dict(description.output)
    return {**manifest, **extra}
