"""The built-in tasks: importing this module registers every family's tasks.

The task registry (:data:`winoscope.tasks.TASKS`) imports it by name on its first look-up;
adding a family is one more import here (a third-party family uses an entry point instead,
see docs/plugins.md).
"""

from .swewinogender import crosslingual as _swewinogender_crosslingual  # noqa: F401
from .swewinogender import tasks as _swewinogender  # noqa: F401
from .winobias import coref_tasks as _winobias_coref  # noqa: F401
from .winobias import crosslingual as _winobias_crosslingual  # noqa: F401
from .winobias import tasks as _winobias  # noqa: F401
from .winopron import coref_tasks as _winopron_coref  # noqa: F401
from .winopron import crosslingual as _winopron_crosslingual  # noqa: F401
from .winopron import tasks as _winopron  # noqa: F401
