"""Files are written whole or not at all: a write that fails half-way leaves the earlier file
and no temporary file beside it, and the new file gets the usual permissions (not mkstemp's
0600)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from winoscope.jsonio import atomic_path, write_atomic, write_json


def test_a_failed_write_leaves_the_earlier_file(tmp_path: Path) -> None:
    target = tmp_path / "metrics.csv"
    target.write_text("the earlier run\n", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half of a new", encoding="utf-8")
        raise RuntimeError("disk full")
    assert target.read_text(encoding="utf-8") == "the earlier run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.csv"]


def test_a_whole_write_replaces_it_with_the_group_able_to_read(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_text("old\n", encoding="utf-8")
    write_atomic(target, "new – нове\n")
    write_json(tmp_path / "m.json", {"a": float("nan")})
    assert target.read_text(encoding="utf-8") == "new – нове\n"
    assert (tmp_path / "m.json").read_text(encoding="utf-8") == '{\n  "a": null\n}\n'
    mode = stat.S_IMODE(target.stat().st_mode)
    assert mode & 0o044 == 0o044, oct(mode)  # under the usual umask 022: rw-r--r--
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "report.md"]


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("a cell that cannot be written")


def test_a_csv_that_fails_half_way_leaves_the_earlier_file(tmp_path: Path) -> None:
    import pandas as pd

    from winoscope.jsonio import write_csv

    target = tmp_path / "compare.csv"
    write_csv(target, pd.DataFrame({"metric": ["a", "b"], "value": [1.0, 2.0]}))
    before = target.read_bytes()
    rows = pd.DataFrame({"metric": ["a"] * 5000 + ["b"], "value": [1.0] * 5000 + [_Unprintable()]})
    with pytest.raises(RuntimeError, match="cannot be written"):
        write_csv(target, rows)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["compare.csv"]


#: where a file may be written in place: the writers themselves, and the lexicon build step
#: (a maintainer's script regenerating files shipped in the package)
IN_PLACE_ALLOWED = {"jsonio.py", "occupations/lexicons/__init__.py"}
WRITERS = {"write_text", "write_bytes", "to_csv", "to_parquet", "to_json", "savefig"}
#: the names a temporary file, a buffer or an open stream go by in the package
STAGED = {"tmp", "buf", "fh", "stream", "input_tmp", "key_tmp"}


def _in_place_writes(path: Path) -> list[str]:
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in WRITERS:
            if func.attr in {"to_csv", "to_json"} and not node.args:
                continue  # returns the text
            target = node.args[0] if node.args else func.value
            if isinstance(target, ast.Name) and target.id in STAGED:
                continue
            owner = func.value
            if func.attr in {"write_text", "write_bytes"} and (
                isinstance(owner, ast.Name) and owner.id in STAGED
            ):
                continue
            found.append(f"{path.name}:{node.lineno} {func.attr}")
        elif (isinstance(func, ast.Attribute) and func.attr == "open") or (
            isinstance(func, ast.Name) and func.id == "open"
        ):
            mode = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if any(isinstance(m, str) and ("w" in m or "a" in m) for m in mode):
                owner = func.value if isinstance(func, ast.Attribute) else node.args[0]
                if not (isinstance(owner, ast.Name) and owner.id in STAGED):
                    found.append(f"{path.name}:{node.lineno} open")
    return found


def test_every_output_file_goes_through_a_temporary_file() -> None:
    """No module writes an output file in place (a crash half-way would leave half of it):
    each write names a temporary path from :func:`atomic_path` or a buffer."""
    root = Path(__file__).resolve().parents[1] / "src" / "winoscope"
    found = [
        hit
        for path in sorted(root.rglob("*.py"))
        if path.relative_to(root).as_posix() not in IN_PLACE_ALLOWED
        for hit in _in_place_writes(path)
    ]
    assert found == []
