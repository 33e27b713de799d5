"""What one evaluation is: a :class:`RunConfig`, shared by the API, the CLI, prompt
sensitivity and sweeps.

Every setting of a run is a field here, once; :func:`winoscope.run` takes them as keyword
arguments (``run("winobias-uk", "baseline:agreement", n_boot=500)``) or as a config
(``run(RunConfig("winobias-uk", "baseline:agreement", n_boot=500))``), and a sweep or a
prompt-sensitivity run changes one field per run (:meth:`RunConfig.but`). Settings that belong
to one family's scorer are not fields: they are ``scorer_options`` (``{"keep_unpaired": True}``,
``{"labels": "superlim"}``), which the task's scorer declares and checks
(:mod:`winoscope.scoring.options`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..datasets.base import Dataset
    from ..protocols.cloze import ClozeTemplate
    from ..protocols.forced_choice import PromptTemplate
    from ..tasks.base import Task


@dataclass(frozen=True)
class RunConfig:
    """One run's settings (see :func:`winoscope.run` for each one's meaning).

    ``protocol`` chooses how the task is asked (``forced_choice``, ``nli_forced_choice``,
    ``coref`` or ``cloze``); None asks the task's own protocol when the backend answers it,
    else the cloze protocol for a backend that only scores continuations (``mode=cloze``).
    Either way the choice is checked against what the backend says it answers.
    """

    task: str | Task
    model: str | Backend
    data: str | Path | Dataset | None = None
    out: str | Path | None = None
    seed: int = 0
    template: str | Path | PromptTemplate | ClozeTemplate | None = None
    protocol: str | None = None
    n_boot: int = 2000
    revision: str | None = None
    split: str | None = None
    quiet: bool = True
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    scorer_options: Mapping[str, Any] = field(default_factory=dict)
    store: str | Path | bool | None = None
    resume: bool = True
    strict: bool = False
    failed: str = "exclude"
    max_failed_share: float = 0.0
    limit: int | None = None
    tags: Mapping[str, Any] | None = None
    skip_bad_rows: bool = False
    overwrite: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "backend_options", dict(self.backend_options or {}))
        object.__setattr__(self, "scorer_options", dict(self.scorer_options or {}))

    def but(self, **changes: Any) -> RunConfig:
        """The same run with some settings changed (``config.but(out=..., template=...)``)."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise TypeError(f"RunConfig has no setting(s) {', '.join(unknown)}")
        return replace(self, **changes)


#: every setting's default, as :func:`winoscope.run` compares what it was given with
RUN_DEFAULTS: dict[str, Any] = {
    f.name: f.default_factory() if f.default_factory is not MISSING else f.default
    for f in fields(RunConfig)
    if f.name not in ("task", "model")
}
