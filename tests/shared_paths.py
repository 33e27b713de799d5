"""Where the real test data is: the one place tests find it.

``WINOSCOPE_SHARED_DATA`` when set, else ``../shared/data`` beside the project. Every test that
reads real data uses :data:`SHARED_DATA` (or the ``shared_data`` fixture built on it);
``tests/test_shared_data_policy.py`` checks that no test builds the path itself."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("WINOSCOPE_SHARED_DATA", ROOT.parent / "shared" / "data"))


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def link_beside(root: Path) -> Path:
    """Make ``root/shared/data`` a link to :data:`SHARED_DATA`, so that a command run in
    ``root/<project>`` finds the releases at ``../shared/data`` as the docs show them."""
    link = root / "shared" / "data"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(SHARED_DATA, target_is_directory=True)
    return link


# how the README and the docs pages name the releases (beside the project)
AS_THE_DOCS_WRITE_IT = "../shared/data"
