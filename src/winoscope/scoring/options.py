"""Scorer options: switches a scorer declares (name, choices, default, meaning), passed generically.

A family's scorer declares each option next to the code that reads it::

    declare.option("keep_unpaired", kind="flag", default=False,
                   meaning="keep items whose variants differ beyond the pronoun in pair metrics")

and runs pass them without knowing the family: ``scorer_options={"keep_unpaired": True}`` in
Python, ``-S keep_unpaired=true`` on the command line (as ``-M`` does for backends). An option
the task's scorer does not declare is an error listing the ones it does; a value outside the
declared choices is an error listing them. ``default_when_scoring`` is the default of
``winoscope score`` (predictions made elsewhere) where it differs from a run's: SweWinogender's
label convention reads a SuperLim submission with SuperLim's labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import TaskError

OptionKind = Literal["flag", "choice"]
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class ScorerOption:
    """One switch of a scorer; ``kind`` ``flag`` is a boolean, ``choice`` one of ``choices``."""

    name: str
    kind: OptionKind
    meaning: str
    default: Any = None
    choices: tuple[str, ...] = ()
    default_when_scoring: Any = None

    def parse(self, value: Any, task: str) -> Any:
        if self.kind == "flag":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise TaskError(f"task {task}: scorer option {self.name}={value!r}: give true or false")
        text = str(value)
        if text not in self.choices:
            raise TaskError(
                f"task {task}: scorer option {self.name}={value!r}: choose "
                f"{' or '.join(self.choices)}"
            )
        return text

    def describe(self) -> str:
        values = "true|false" if self.kind == "flag" else "|".join(self.choices)
        default = str(self.default).lower() if self.kind == "flag" else self.default
        return f"{self.name}={values} (default {default}): {self.meaning}"


def scorer_options(
    task: str,
    declared: Sequence[ScorerOption],
    given: Mapping[str, Any] | None,
    *,
    scoring_file: bool = False,
) -> dict[str, Any]:
    """The options to pass to a task's scorer: the given ones, checked and parsed, plus the
    declared ``default_when_scoring`` of those not given when scoring predictions made elsewhere.
    Options given as None count as not given."""
    by_name = {o.name: o for o in declared}
    chosen = {k: v for k, v in dict(given or {}).items() if v is not None}
    unknown = sorted(k for k in chosen if k not in by_name)
    if unknown:
        known = ", ".join(by_name) or "none"
        raise TaskError(
            f"task {task}: unknown scorer option(s) {', '.join(unknown)} (known: {known})"
        )
    out = {k: by_name[k].parse(v, task) for k, v in chosen.items()}
    if scoring_file:
        for o in declared:
            if o.name not in out and o.default_when_scoring is not None:
                out[o.name] = o.default_when_scoring
    return out
