"""A study as a Python object: the grid of models x swept values x tasks x templates, and how
it fans out over Slurm (:mod:`winoscope.studies.load` reads it from a TOML or YAML file).

One *model* is one job: its swept values are its points (a model spec per value, a folder of
``checkpoint-N`` folders, PEFT adapters on one base, or a Python factory ``module:function``
that returns a backend for a value), and every task and template runs at every point inside
that job, so a model's weights are loaded on one node once (once per point for checkpoints and
adapters, whose weights differ). A *cell* is one run: model, value, task, template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SLURM_KEYS = (
    "partition",
    "gpus",
    "cpus",
    "time",
    "mem",
    "account",
    "array_parallelism",
    "extra",
    "setup",
    "wait",
)


@dataclass(frozen=True)
class ModelSpec:
    """One model of a study: exactly one of ``points``, ``checkpoints``, ``adapters`` (with
    ``base``), ``factory`` (with ``values``) or ``spec`` (a single point, valued ``value``)."""

    name: str
    points: dict[Any, str] | None = None
    checkpoints: Path | None = None
    base: str | None = None
    adapters: dict[Any, str] | None = None
    factory: str | None = None
    values: list[Any] | None = None
    spec: str | None = None
    value: Any = 0
    reference: Any = None
    model_args: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        for kind in ("points", "checkpoints", "adapters", "factory", "spec"):
            if getattr(self, kind) is not None:
                return kind
        return "none"


@dataclass(frozen=True)
class TaskSpec:
    """A task of a study, with its data (default: the bundled sample) and scorer options."""

    name: str
    data: str | None = None
    scorer_options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SlurmOptions:
    """How each job is submitted (docs/cluster.md maps each to its ``#SBATCH`` line).

    ``time`` is minutes (``--time``); ``mem`` a Slurm size (``64G``, ``--mem``); ``gpus``
    GPUs per node (``--gpus-per-node``); ``cpus`` CPUs per task; ``array_parallelism`` the
    most array tasks running at once (``--array=0-N%P``); ``extra`` further ``#SBATCH`` lines
    (``--constraint=gh200``); ``setup`` shell lines run before the job (``module load ...``);
    ``wait`` the most minutes the submitting process waits for the jobs.
    """

    partition: str | None = None
    gpus: int | None = None
    cpus: int = 1
    time: int = 60
    mem: str | None = None
    account: str | None = None
    array_parallelism: int = 8
    extra: list[str] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    wait: float = 24 * 60


@dataclass(frozen=True)
class Study:
    """The whole grid. Paths are resolved against the study file's folder."""

    name: str
    models: list[ModelSpec]
    tasks: list[TaskSpec]
    out: Path
    key: str = "alpha"
    templates: list[str | None] = field(default_factory=lambda: [None])
    tags: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    n_boot: int = 2000
    limit: int | None = None
    pythonpath: list[Path] = field(default_factory=list)
    slurm: SlurmOptions = field(default_factory=SlurmOptions)
    source: Path | None = None

    def model(self, name: str) -> ModelSpec:
        for m in self.models:
            if m.name == name:
                return m
        raise KeyError(name)
