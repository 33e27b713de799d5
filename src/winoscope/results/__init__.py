"""What the public functions return: a run's result, a prompt-sensitivity run's and a sweep's
(:mod:`.run`), a comparison of two runs (:mod:`.diff`) and a cross-lingual join
(:mod:`.crosslingual`). ``compare`` computes the last two, ``report`` draws every one of them;
they sit below both so that neither imports the other for a type."""

from .crosslingual import CrosslingualResult
from .diff import DiffResult
from .run import RunResult, SensitivityResult, SweepResult

__all__ = ["CrosslingualResult", "DiffResult", "RunResult", "SensitivityResult", "SweepResult"]
