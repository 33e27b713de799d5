"""Studies: a grid of models x swept values x tasks x templates, one job per model, run locally
or fanned out over Slurm, resumed cell by cell and merged into sweep pages, a leaderboard and a
comparison (docs/cluster.md).

>>> from winoscope.studies import load_study, run_study            # doctest: +SKIP
>>> study = load_study("steer.toml")                                # doctest: +SKIP
>>> run_study(study, "slurm")                                       # doctest: +SKIP
"""

from __future__ import annotations

from .cells import Job, plan_cells
from .grid import Cell
from .load import StudyFileError, load_study, study_from_dict
from .run import StudyRun, plan_text, run_study
from .spec import ModelSpec, SlurmOptions, Study, TaskSpec

__all__ = [
    "Cell",
    "Job",
    "ModelSpec",
    "SlurmOptions",
    "Study",
    "StudyFileError",
    "StudyRun",
    "TaskSpec",
    "load_study",
    "plan_cells",
    "plan_text",
    "run_study",
    "study_from_dict",
]
