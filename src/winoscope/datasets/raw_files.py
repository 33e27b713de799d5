"""Reading a public repository's raw data files from a local folder or a URL prefix.

The English originals are distributed as plain files in their repositories (WinoBias bracket
files, Winogender TSVs, WinoPron's ``data.zip``). :class:`RawFiles` reads them by name from

- a local directory (``../data/winobias``),
- a URL prefix (``https://raw.githubusercontent.com/uclanlp/corefBias/master/WinoBias/wino/data``),
  fetched with httpx, or
- a zip archive, local or by URL (``.../data.zip``), whose members are found by file name.

Every file read is recorded with its SHA-256 so the run manifest names exactly what was used.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DatasetError
from .sources import SourceInfo

TIMEOUT_S = 30.0


class MissingFile(DatasetError):
    """The file is not there (no such local file, no such archive member, HTTP 404)."""


def is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


def fetch(url: str, *, timeout: float = TIMEOUT_S) -> bytes:
    """GET ``url`` (following redirects); any failure is one DatasetError naming the URL."""
    import httpx

    try:
        resp = httpx.get(url, timeout=timeout, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise DatasetError(f"cannot download: {type(exc).__name__}: {exc}", file=url) from None
    if resp.status_code == 404:
        raise MissingFile("cannot download: HTTP 404", file=url)
    if resp.status_code != 200:
        raise DatasetError(f"cannot download: HTTP {resp.status_code}", file=url)
    return resp.content


@dataclass
class RawFiles:
    """Files of one repository folder, read by name; ``read`` records what it read."""

    base: str
    timeout: float = TIMEOUT_S
    read_files: dict[str, str] = field(default_factory=dict)  # location -> sha256
    _zip: zipfile.ZipFile | None = field(default=None, repr=False)

    @property
    def kind(self) -> str:
        return "url" if is_url(self.base) else "file"

    def location(self, name: str) -> str:
        if self.base.lower().endswith(".zip"):
            return f"{self.base}!{name}"
        if is_url(self.base):
            return self.base.rstrip("/") + "/" + name
        return str(Path(self.base) / name)

    def _archive(self) -> zipfile.ZipFile:
        if self._zip is None:
            if is_url(self.base):
                try:
                    blob = fetch(self.base, timeout=self.timeout)
                except MissingFile as exc:  # the archive itself: an error, not an absent member
                    raise DatasetError(exc.detail, file=self.base) from None
            else:
                p = Path(self.base)
                if not p.is_file():
                    raise DatasetError("no such file", file=self.base)
                blob = p.read_bytes()
            try:
                self._zip = zipfile.ZipFile(io.BytesIO(blob))
            except zipfile.BadZipFile:
                raise DatasetError("not a zip archive", file=self.base) from None
        return self._zip

    def read_bytes(self, name: str) -> bytes:
        where = self.location(name)
        if self.base.lower().endswith(".zip"):
            archive = self._archive()
            members = [
                m
                for m in archive.namelist()
                if m.rsplit("/", 1)[-1] == name and "__MACOSX" not in m
            ]
            if not members:
                raise MissingFile(f"the archive has no file named {name}", file=self.base)
            blob = archive.read(sorted(members, key=len)[0])
        elif is_url(self.base):
            blob = fetch(where, timeout=self.timeout)
        else:
            p = Path(where)
            if not p.is_file():
                self.check_base()  # the folder the user gave, not a file inside it
                raise MissingFile("no such file", file=where)
            blob = p.read_bytes()
        self.read_files[where] = hashlib.sha256(blob).hexdigest()
        return blob

    def read_text(self, name: str) -> str:
        blob = self.read_bytes(name)
        try:
            return blob.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DatasetError(f"not UTF-8 text: {exc}", file=self.location(name)) from None

    def check_base(self) -> None:
        """A local folder or archive that is not there is an error naming it (the path the
        user gave, not a file inside it)."""
        if is_url(self.base):
            return
        p = Path(self.base)
        if self.base.lower().endswith(".zip"):
            if not p.is_file():
                raise DatasetError("no such file", file=self.base)
        elif not p.is_dir():
            what = "not a folder (give the folder of the files)" if p.exists() else "no such folder"
            raise DatasetError(what, file=self.base)

    def read_optional(self, name: str) -> str | None:
        """The text of ``name``, or None when the file is not there."""
        try:
            return self.read_text(name)
        except MissingFile:
            return None

    def source_info(self) -> SourceInfo:
        """Where the data came from, with one sha256 per file read (``name=digest;...``)."""
        digests = ";".join(
            f"{loc.rsplit('/', 1)[-1].rsplit('!', 1)[-1]}={h}"
            for loc, h in sorted(self.read_files.items())
        )
        return SourceInfo(kind=self.kind, location=self.base, sha256=digests or None)
