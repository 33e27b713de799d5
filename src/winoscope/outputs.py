"""Output folders, checked before any work is done.

A command that writes a folder checks it first (:func:`check_out_folder`): a path that is a
file, under a file, or in a folder this process cannot write is refused in one line naming the
option, the path and the way out, before a model is asked, so no answer is lost to a failed
write at the end. (The files themselves are written whole or not at all:
:func:`winoscope.jsonio.write_atomic`.)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import TaskError


def _nearest_existing(path: Path) -> Path:
    """``path`` or the nearest of its parents that exists (a file or a folder)."""
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_out_folder(path: str | Path, option: str = "--out") -> Path:
    """``path`` as a folder this process can create and write in, else :class:`TaskError`.

    Nothing is created: the nearest existing folder is probed with a temporary file, which is
    removed at once (permission bits alone do not say it: root writes anywhere they allow, a
    read-only file system refuses everyone).
    """
    out = Path(path)
    where = f"{option} {out}" if option else str(out)
    if out.exists() and not out.is_dir():
        raise TaskError(f"{where}: a file, not a folder: give a folder (a new one is made)")
    existing = _nearest_existing(out)
    if not existing.is_dir():
        raise TaskError(
            f"{where}: {existing} is a file, so no folder can be made under it: give another folder"
        )
    try:
        fd, probe = tempfile.mkstemp(prefix=".winoscope-probe-", dir=existing)
    except OSError as exc:
        what = "write in it" if existing == out.absolute() else f"make a folder in {existing}"
        raise TaskError(
            f"{where}: cannot {what} ({exc.strerror or exc}): give a folder you can write"
        ) from None
    os.close(fd)
    os.unlink(probe)
    return out
