"""`winoscope sweep` on hostile inputs: requests that failed at some points, checkpoint and
adapter folders that give one value twice, and utility files that are empty, undecodable or
carry bad rows: each a clear exit status and message, never a traceback or a silent pick."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope as winoscope_package
from winoscope.cli import app
from winoscope.errors import TaskError
from winoscope.studies import load_study, plan_cells
from winoscope.studies.points import adapter_folder_points

ANSWER = {
    "id": "1",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "A"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


class _Disjoint(http.server.BaseHTTPRequestHandler):
    """Model ``x`` is answered on prompts of even checksum, ``y`` on the odd ones (HTTP 500
    otherwise): a row answered at one point is never answered at the other."""

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, code: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(200, {"data": [{"id": "x"}, {"id": "y"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        parity = zlib.crc32(json.dumps(body["messages"]).encode()) % 2
        if parity != (body["model"] == "y"):
            return self._send(500, {"error": {"message": "boom"}})
        self._send(200, ANSWER)


@contextmanager
def disjoint_server() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Disjoint)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    finally:
        srv.shutdown()
        srv.server_close()


def winoscope(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["OPENAI_API_KEY"] = "x"
    here = str(Path(winoscope_package.__file__).parents[1])  # this tree's code, from any cwd
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    cmd = [sys.executable, "-m", "winoscope.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def test_requests_failed_at_some_points_exit_3_with_the_page_written(tmp_path: Path) -> None:
    """No row answered at both points: the sweep still writes its page (the point's metrics,
    empty differences and why), keeps every run directory and exits 3 naming the points;
    it is not a scorer "without bootstrap replicates" (exit 2, no page)."""
    with disjoint_server() as url:
        proc = winoscope(
            "sweep", "winobias-uk", "-p", "0=openai:x", "-p", "1=openai:y",
            "-M", f"base_url={url}", "-M", "max_retries=0", "--bootstrap", "20", "-q",
            "--out", "so", cwd=tmp_path,
        )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr and "bootstrap replicates" not in proc.stderr
    assert "requests failed" in proc.stderr
    assert "winobias-uk alpha=0" in proc.stderr and "winobias-uk alpha=1" in proc.stderr
    assert "no row was answered in both runs" in proc.stderr
    out = tmp_path / "so"
    for v in (0, 1):
        assert (out / "winobias-uk" / f"alpha={v}" / "manifest.json").is_file()
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["points"] == [0, 1]
    why = meta["settings"]["no_difference"]["winobias-uk alpha=1"]
    assert why.startswith("no row was answered in both runs")
    tidy = pd.read_csv(out / "sweep.csv")
    point = tidy[tidy["point"] == 1]
    assert not point.empty and point["value"].notna().any() and point["diff"].isna().all()
    assert "No paired change at alpha = 1: no row was answered" in (out / "sweep.md").read_text()
    assert "no paired change at alpha = 1" in (out / "sweep.html").read_text()


def _folders(root: Path, names: tuple[str, ...], config: str) -> Path:
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / config).write_text('{"r": 8}', encoding="utf-8")
    return root


@pytest.mark.parametrize(
    "names", [("checkpoint-1", "checkpoint_1"), ("checkpoint_1", "checkpoint-01")]
)
def test_two_checkpoint_folders_of_one_value_are_refused_naming_both(
    tmp_path: Path, names: tuple[str, str]
) -> None:
    """Not one point from whichever folder sorts last: the sweep, a study's checkpoints and
    the folder reader all refuse, naming both folders."""
    folder = _folders(tmp_path / "ck", names, "config.json")
    result = CliRunner().invoke(
        app, ["sweep", "winobias-uk", "--checkpoints", str(folder), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert all(str(folder / n) in said for n in names) and "both give the value 1" in said
    study = tmp_path / "s.toml"
    study.write_text('name = "s"\ntasks = ["winobias-uk"]\n[[models]]\nname = "c"\n'
                     'checkpoints = "ck"\n', encoding="utf-8")  # fmt: skip
    with pytest.raises(TaskError, match="both give the value 1"):
        plan_cells(load_study(study))


def test_two_adapter_folders_of_one_value_are_refused_naming_both(tmp_path: Path) -> None:
    folder = _folders(tmp_path / "ad", ("5", "checkpoint-5", "lora"), "adapter_config.json")
    with pytest.raises(TaskError, match="both give the value 5") as err:
        adapter_folder_points(folder, "hf:base", {})
    assert str(folder / "5") in str(err.value) and str(folder / "checkpoint-5") in str(err.value)
    result = CliRunner().invoke(
        app,
        [
            "sweep",
            "winobias-uk",
            "--adapters",
            str(folder),
            "--base",
            "hf:base",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 2 and "both give the value 5" in result.output
    (folder / "5" / "adapter_config.json").unlink()
    assert list(adapter_folder_points(folder, "hf:base", {})) == ["0", "5", "lora"]


def _sweep_with_utility(tmp_path: Path, utility: Path) -> Any:
    args = ["sweep", "winobias-uk", "-p", "0=baseline:first", "-p", "1=baseline:random",
            "--utility", str(utility), "--out", str(tmp_path / "out"), "--bootstrap", "10", "-q"]  # fmt: skip
    return CliRunner().invoke(app, args)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"", ": the file is empty"),
        ("point,utility\n0,0.5\n1,0.6\n".encode("utf-16"), ", line 1: not UTF-8 text: byte 0xff"),
        (b"point,utility,ci_low\n0,0.5,x\n1,0.6,0.5\n", ", row 2, field 'ci_low': expected a number, got 'x'"),
        (b"point,utility,ci_high\n0,0.5,0.7\n1,0.6,hi\n", ", row 3, field 'ci_high': expected a number, got 'hi'"),
    ],
)  # fmt: skip
def test_an_unreadable_utility_file_is_one_line_naming_the_file(
    tmp_path: Path, content: bytes, said: str
) -> None:
    """Not pandas' EmptyDataError, a UnicodeDecodeError or a float() ValueError traceback."""
    utility = tmp_path / "u.csv"
    utility.write_bytes(content)
    result = _sweep_with_utility(tmp_path, utility)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert f"file {utility}{said}" in " ".join(result.output.split())
    assert not (tmp_path / "out").exists()  # refused before any point runs


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"point,utility\n0,0.5\n1,0.6\n1.0,0.9\n",
         ", row 4, field 'point': point '1.0' is the value of row 3 again"),
        (b"point,utility\n0,\n1,0.6\n", ", row 2, field 'utility': an empty cell; give a number"),
        (b"point,utility\n0,nan\n1,0.6\n", ", row 2, field 'utility': expected a number"),
        (b"point,utility\n0,0.5\n,0.6\n1,0.6\n", ", row 3, field 'point': an empty point"),
    ],
)  # fmt: skip
def test_bad_utility_rows_are_refused_not_picked_or_written_as_nan(
    tmp_path: Path, content: bytes, said: str
) -> None:
    """A value given twice (1 and 1.0 are one value) is not "the last row wins", and an empty
    utility is not a NaN on the page."""
    utility = tmp_path / "u.csv"
    utility.write_bytes(content)
    result = _sweep_with_utility(tmp_path, utility)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert f"file {utility}{said}" in " ".join(result.output.split())
    assert not (tmp_path / "out").exists()


def test_utility_numbers_given_twice_in_a_mapping_are_refused(tmp_path: Path) -> None:
    points = {0: "baseline:first", 1: "baseline:random"}
    with pytest.raises(TaskError, match=r"utility gives points 1 and '1\.0', one value"):
        winoscope_package.sweep(
            "winobias-uk", points, utility={0: 0.5, 1: 0.6, "1.0": 0.9}, out=tmp_path / "o"
        )


def test_an_empty_interval_bound_is_no_interval(tmp_path: Path) -> None:
    utility = tmp_path / "u.csv"
    utility.write_text("point,utility,ci_low,ci_high\n0,0.5,,\n1,0.6,0.5,0.7\n", encoding="utf-8")
    points = {0: "baseline:first", 1: "baseline:random"}
    s = winoscope_package.sweep(
        "winobias-uk", points, utility=utility, out=tmp_path / "o", n_boot=10
    )
    assert list(s.utility["utility"]) == [0.5, 0.6] and s.utility["ci_low"].isna().tolist() == [
        True,
        False,
    ]
