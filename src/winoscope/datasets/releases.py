"""Known releases: the published files of each dataset as its authors' evaluators pin them.

A :class:`Release` is one dataset release on the hub: its id, the commit (revision) and, per
file, the path in the repository, its SHA-256 and its number of data rows. The Ukrainian
fairness leaderboard's numbers are computed on exactly these files, so a run on a local copy
says which release it scored: :func:`identify` names a file whose hash is a release's, and a
file that does not match is reported as a modified copy with its own hash.

Families register their releases when imported (:func:`register_release`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..registry import Registry, ignore_objects, load_families

__all__ = ["RELEASES", "Release", "ReleaseFile", "identify", "register_release", "releases_of"]


@dataclass(frozen=True)
class ReleaseFile:
    """One file of a release: its path in the repository, SHA-256 and data rows."""

    path: str
    sha256: str
    rows: int


@dataclass(frozen=True)
class Release:
    """One published release of a dataset (``benchmark``: the name the leaderboard shows)."""

    key: str
    benchmark: str
    hub_id: str
    revision: str
    files: tuple[ReleaseFile, ...]
    task: str = ""

    def file(self, path_or_name: str) -> ReleaseFile | None:
        """The release file with this repository path or file name."""
        for f in self.files:
            if path_or_name in (f.path, f.path.rsplit("/", 1)[-1]):
                return f
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "release": self.key,
            "benchmark": self.benchmark,
            "hub_id": self.hub_id,
            "revision": self.revision,
            "files": [{"path": f.path, "sha256": f.sha256, "rows": f.rows} for f in self.files],
        }


RELEASES: Registry[Release] = Registry("release")

# the families (and plugins) register their releases when imported, as they do their tasks
RELEASES.discover_with(
    load_families, plugins=True, deprecated="winoscope.tasks", adopt=ignore_objects
)


def register_release(release: Release) -> Release:
    RELEASES.add(release.key, release)
    return release


def releases_of(task: str) -> list[Release]:
    """The known releases of a task's data."""
    return [r for r in (RELEASES.get(n) for n in RELEASES.names()) if r.task == task]


def identify(sha256: str | None) -> tuple[Release, ReleaseFile] | None:
    """The release and file whose SHA-256 is ``sha256``, or None."""
    if not sha256:
        return None
    for name in RELEASES.names():
        release = RELEASES.get(name)
        for f in release.files:
            if f.sha256 == sha256:
                return release, f
    return None


def _hashes(sha256: str | None) -> dict[str, str]:
    """A source's file hashes: one hash, or ``config=hash;...`` for a multi-file source."""
    if not sha256:
        return {}
    out = {}
    for part in sha256.split(";"):
        name, sep, digest = part.partition("=")
        out[name if sep else ""] = digest if sep else name
    return out


def release_record(task: str, source: dict[str, Any]) -> dict[str, Any] | None:
    """What the manifest says of the data's release, for a task with known releases (None
    for one without): ``published`` with the release when every file's SHA-256 is the
    release's (or a hub load names its id and revision), ``sample`` for a bundled sample, else
    ``modified copy`` with the file hashes found and the release expected."""
    known = releases_of(task)
    if not known:
        return None
    if source.get("kind") == "sample":
        return {"status": "sample", "expected": known[0].key}
    found = set(_hashes(source.get("sha256")).values())
    for release in known:
        files = {f.sha256 for f in release.files}
        hub = source.get("kind") == "hub" and source.get("location") == release.hub_id
        commit = source.get("commit") or source.get("revision")
        if (found and files <= found) or (hub and commit == release.revision):
            return {"status": "published", **release.describe()}
    return {
        "status": "modified copy",
        "sha256": source.get("sha256"),
        "expected": known[0].key,
        "expected_sha256": {f.path: f.sha256 for f in known[0].files},
    }


def release_line(record: dict[str, Any] | None) -> str | None:
    """One line for reports naming the release, or saying the data is not it."""
    if not record:
        return None
    status = record.get("status")
    if status == "published":
        return (
            f"published release {record['hub_id']} at revision {record['revision'][:12]} "
            f"(files' SHA-256 match)"
        )
    if status == "sample":
        return f"the bundled sample, not the published release {record['expected']}"
    return (
        f"a modified copy: its SHA-256 ({record.get('sha256') or 'unknown'}) is not the "
        f"published release {record['expected']}'s"
    )
