"""Every command shown in the README and in docs/ is run, in the order shown.

The convention (docs/development.md, "The commands in the documentation"): a fenced block marked
``console`` holds commands on lines starting with ``$ `` (a trailing backslash continues one);
the other lines of the block are what the commands print, for reading, except that a line
starting with ``error:`` must be the start of what the command above it prints. A command whose
comment ends in ``(exit status N)`` must exit with N, every other one with 0. Output on its own is
a ``text`` block; the few commands that are not run are ``sh`` blocks, each one of NOT_RUN; an
indented code block is not allowed. ``python`` blocks run too, in page
order with the commands (see PYTHON_RUN_ELSEWHERE).

Each page runs in a fresh working directory, with ``../shared/data`` beside it pointing at the
real releases (``tests/shared_paths.py``); a page that reads them is skipped without them (and
fails in CI). Everything the test does besides running the commands as written is listed here:
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from shared_paths import AS_THE_DOCS_WRITE_IT, ROOT, SHARED_DATA, in_ci, link_beside

# Commands that are not run, shown in `sh` blocks (without a prompt, to be copied exactly), and
# only these: the two setup commands of the README and the home page (a fresh venv and an
# install of the project; `.ci/run` does exactly that, and the demo has its own tests) and the
# development check, which runs the whole suite and is what `.ci/run` ends with; and a study
# submitted to Slurm.
NOT_RUN = (
    re.compile(r"^python3 -m venv \.venv && \.venv/bin/pip install "),
    # a study submitted to a Slurm cluster (docs/cluster.md): tests/test_study_slurm.py runs
    # studies on a real one in CI's slurm environment
    re.compile(r"^winoscope study run \S+ --executor slurm\b"),
    re.compile(r"^\.venv/bin/ruff check \. && \.venv/bin/mypy src && \.venv/bin/pytest$"),
    # vLLM runs in an environment of its own: its tests (tests/backends/test_vllm_*.py) run
    # these commands' equivalents there
    re.compile(r"\bvllm\b"),
)

# Stand-ins, substituted in the command before it runs: the models that need a download or a
# GPU run as the tiny test model (`tests/tiny_lm.py`, made as ./my-lm), and the servers of
# port 8000 are the stand-in OpenAI-compatible server the page starts, on a free port.
STANDINS = (
    (re.compile(r"\bgemma:270m\b"), "hf:./my-lm"),
    (re.compile(r"\bhf:google/gemma-3-12b-it\b"), "hf:./my-lm"),
    (re.compile(r"\bgpu1:8000\b"), "127.0.0.1:{port}"),
    (re.compile(r"\bgpu2:8000\b"), "localhost:{port}"),
    (re.compile(r"\b127\.0\.0\.1:8000\b"), "127.0.0.1:{port}"),
    (re.compile(r"--port 8000\b"), "--port {port}"),
)

# The files a reader brings, made in the working directory before a page runs (only those the
# page names): name -> what it is.
READERS_FILES = {
    "rows.csv": "the bundled WinoBias-UK sample",
    "my-lm": "the tiny test model",
    "my-causal-lm": "the tiny test model",
    "my-base-lm": "the tiny test model",
    "models/base": "the tiny test model",
    "models/steer-4": "another tiny test model (another seed)",
    "out/lora-debias": "a LoRA adapter on models/base, made with peft",
    "out/trainer": "two trainer checkpoints (checkpoint-1, checkpoint-2): tiny test models",
    "resolver_output.jsonl": "a resolver's output: the gold key of winobias-uk/coref",
    "system_conll_dir": "a resolver's CoNLL output: the gold key of English winobias-en/coref",
    "submission.jsonl": "SuperLim's format: the SweWinogender release with prediction 'entailment'",
}

# The python blocks run too, in page order with the commands, in one namespace per page (the
# same stand-ins apply), except on the pages whose code other tests run as written.
PYTHON_RUN_ELSEWHERE = {
    "mitigation.md": "tests/test_docs_mitigation.py",
    "plugins.md": "tests/test_plugins.py, tests/scoring/test_metric_specs.py",
    "adding-a-dataset.md": "tests/families/winobias/test_danish_adaptation.py, tests/languages/test_languages.py",
}

# docs/plugins.md installs its plugin with pip; the test puts the package that page shows on
# the path instead (its files from the page's code blocks, its entry points from its toml).
PLUGIN_PAGE = "plugins.md"

# A plain `winoscope ...` command runs in this process, through the typer app the console script
# runs, and there its figures are built but not rendered: matplotlib's savefig writes an empty
# file. Rendering is two thirds of a small run's time and is what the report tests check (they
# render every figure and open the pages in a browser); every other command runs in bash.
SHELL_CHARS = set("|&;<>*?$`()")
TIMEOUT = 600


@dataclass
class Command:
    page: str
    line: int
    text: str
    output: list[str] = field(default_factory=list)

    @property
    def expected_status(self) -> int:
        found = re.search(r"\(exit status (\d+)\)\s*$", self.text)
        return int(found.group(1)) if found else 0

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def pages() -> list[Path]:
    """The README, then the site's pages in the order of mkdocs.yml's nav."""
    nav = re.findall(r":\s*([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text("utf-8"), re.M)
    return [ROOT / "README.md", *(ROOT / "docs" / name for name in nav)]


def fenced_blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """(language, line number of the first line, lines) of every fenced block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opening = re.match(r"^(`{3,})(\S*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        fence, lang = opening.groups()
        start = i + 1
        i = start
        while i < len(lines) and lines[i].rstrip() != fence:
            i += 1
        yield lang, start + 1, lines[start:i]
        i += 1


@dataclass
class Code:
    page: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: the python block"


def steps(path: Path) -> list[Command | Code]:
    """The commands and, where no other test runs them, the python blocks, in page order."""
    found: list[Command | Code] = []
    for lang, first, lines in fenced_blocks(path.read_text("utf-8")):
        if lang == "python" and path.name not in PYTHON_RUN_ELSEWHERE:
            found.append(Code(path.name, first, "\n".join(lines)))
    found.extend(commands(path))
    return sorted(found, key=lambda step: step.line)


def commands(path: Path) -> list[Command]:
    found: list[Command] = []
    for lang, first, lines in fenced_blocks(path.read_text("utf-8")):
        if lang != "console":
            continue
        current: Command | None = None
        continued = False
        for n, line in enumerate(lines, first):
            if continued and current is not None:
                current.text = current.text[:-1].rstrip() + " " + line.strip()
            elif line.startswith("$ "):
                current = Command(path.name, n, line[2:].strip())
                found.append(current)
            elif current is not None and line.strip():
                current.output.append(line)
            continued = current is not None and current.text.endswith("\\")
    return found


def without_comment(text: str) -> str:
    """The command line up to its comment (a ``#`` after a blank, outside quotes)."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip()
    return text


def substitute(text: str, port: int) -> str:
    for pattern, standin in STANDINS:
        text = pattern.sub(standin.format(port=port), text)
    return text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the background command exited with status {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


def squash(text: str) -> str:
    return " ".join(text.split())


# --- the reader's files -------------------------------------------------------------------


class Fixtures:
    """Made once per test session, on first use, and linked into each page's directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.made: dict[str, Path] = {}

    def tiny_model(self, seed: int) -> Path:
        key = f"tiny-{seed}"
        if key not in self.made:
            pytest.importorskip("torch")
            from tiny_lm import build_tiny_gpt2

            self.made[key] = build_tiny_gpt2(self.root / key, seed=seed)
        return self.made[key]

    def lora(self) -> Path:
        if "lora" not in self.made:
            torch = pytest.importorskip("torch")
            peft = pytest.importorskip("peft")
            from transformers import AutoModelForCausalLM

            torch.manual_seed(0)
            model = peft.get_peft_model(
                AutoModelForCausalLM.from_pretrained(self.tiny_model(0)),
                peft.LoraConfig(
                    r=4, lora_alpha=32, target_modules=["c_attn"], init_lora_weights=False
                ),
            )
            model.save_pretrained(self.root / "lora")
            self.made["lora"] = self.root / "lora"
        return self.made["lora"]

    def trainer(self) -> Path:
        if "trainer" not in self.made:
            out = self.root / "trainer"
            for step, seed in ((1, 2), (2, 3)):
                shutil.copytree(self.tiny_model(seed), out / f"checkpoint-{step}")
            self.made["trainer"] = out
        return self.made["trainer"]

    def coref_key(self, task: str, data: str | None, name: str) -> Path:
        if name not in self.made:
            from typer.testing import CliRunner

            from winoscope.cli import app

            out = self.root / f"export-{name}"
            args = ["coref-export", task, "--out", str(out)]
            if data:
                args += ["--data", data]
            done = CliRunner().invoke(app, args)
            assert done.exit_code == 0, done.output
            self.made[name] = out
        return self.made[name]

    def make(self, name: str, work: Path) -> None:
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name == "rows.csv":
            shutil.copy(
                ROOT / "src/winoscope/families/winobias/samples/winobias_uk_natural_sample.csv",
                target,
            )
        elif name in {"my-lm", "my-causal-lm", "my-base-lm", "models/base"}:
            target.symlink_to(self.tiny_model(0), target_is_directory=True)
        elif name == "models/steer-4":
            target.symlink_to(self.tiny_model(1), target_is_directory=True)
        elif name == "out/lora-debias":
            target.symlink_to(self.lora(), target_is_directory=True)
        elif name == "out/trainer":
            target.symlink_to(self.trainer(), target_is_directory=True)
        elif name == "resolver_output.jsonl":
            shutil.copy(self.coref_key("winobias-uk/coref", None, "uk") / "key.jsonl", target)
        elif name == "system_conll_dir":
            data = str(SHARED_DATA / "winobias-en" / "conll_format")
            target.mkdir()
            shutil.copy(self.coref_key("winobias-en/coref", data, "en") / "key.conll", target)
        elif name == "submission.jsonl":
            import json

            release = SHARED_DATA / "swewinogender-v2" / "swewinogender_test.jsonl"
            with release.open(encoding="utf-8") as rows, target.open("w", encoding="utf-8") as f:
                for line in rows:
                    if line.strip():
                        row = json.loads(line)
                        f.write(json.dumps({**row, "prediction": "entailment"}) + "\n")
        else:  # pragma: no cover - READERS_FILES and this function go together
            raise KeyError(name)


def install_plugin(page: Path, site: Path) -> Path:
    """The package docs/plugins.md shows, laid out as an installer leaves it."""
    text = page.read_text("utf-8")
    lines = text.split("\n")
    project: dict[str, object] = {}
    for lang, first, block in fenced_blocks(text):
        before = next(ln for ln in reversed(lines[: first - 2]) if ln.strip())
        named = re.match(r"^`(src/[\w/]+\.py)`:$", before.strip())
        if lang == "toml" and "entry-points" in "\n".join(block):
            project = tomllib.loads("\n".join(block))["project"]  # type: ignore[assignment]
        elif lang == "python" and named:
            path = site / Path(named.group(1)).relative_to("src")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(block) + "\n", encoding="utf-8")
    assert project, f"{page.name}: no pyproject.toml with entry points"
    info = site / f"{str(project['name']).replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
        encoding="utf-8",
    )
    groups = project["entry-points"]
    assert isinstance(groups, dict)
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()) + "\n"
            for group, points in groups.items()
        ),
        encoding="utf-8",
    )
    return site


# --- running a page -----------------------------------------------------------------------


@dataclass
class Outcome:
    command: Command
    ran: str
    status: int
    output: str
    seconds: float


def run_page(
    page: Path, work: Path, fixtures: Fixtures | None, *, in_process: bool = True
) -> tuple[list[Outcome], list[str]]:
    """Run every command of ``page`` in ``work``; the outcomes and the failures."""
    port = free_port()
    text = substitute(page.read_text("utf-8"), port)
    if fixtures is not None:
        for name in READERS_FILES:
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text):
                fixtures.make(name, work)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["COLUMNS"] = "200"
    env["HF_HUB_OFFLINE"] = "1"
    if page.name == PLUGIN_PAGE:
        site = install_plugin(page, work.parent / f"{work.name}-site")
        env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
        in_process = False  # the plugin is found by a fresh process's discovery
    background: list[subprocess.Popen[bytes]] = []
    outcomes: list[Outcome] = []
    failures: list[str] = []
    try:
        namespace: dict[str, object] = {}
        for cmd in steps(page):
            if isinstance(cmd, Code):
                error = run_python(substitute(cmd.text, port), work, env, namespace)
                if error:
                    failures.append(f"{cmd}\n    {error}")
                continue
            if any(rule.search(cmd.text) for rule in NOT_RUN):
                continue
            ran = substitute(cmd.text, port)
            started = time.monotonic()
            if ran.endswith("&"):
                proc = subprocess.Popen(
                    ["bash", "-c", "exec " + ran[:-1].strip()],
                    cwd=work,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
                background.append(proc)
                listens = re.search(r"--port (\d+)", ran)
                try:
                    if listens:
                        wait_for_port(int(listens.group(1)), proc)
                except RuntimeError as e:
                    failures.append(f"{cmd}\n  {e}")
                continue
            if ran.startswith("export "):
                for word in shlex.split(without_comment(ran))[1:]:
                    name, _, value = word.partition("=")
                    env[name] = value
                continue
            status, output = execute(ran, work, env, in_process)
            outcomes.append(Outcome(cmd, ran, status, output, time.monotonic() - started))
            problems = []
            if status != cmd.expected_status:
                problems.append(f"exit status {status}, expected {cmd.expected_status}")
            for shown in cmd.output:
                if shown.startswith("error:") and squash(shown)[:80] not in squash(output):
                    problems.append(f"does not print {shown[:80]!r}")
            if problems:
                tail = "\n    ".join(output.strip().split("\n")[-15:])
                failures.append(f"{cmd}\n  " + "; ".join(problems) + f"\n    {tail}")
    finally:
        for proc in background:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    return outcomes, failures


@contextlib.contextmanager
def inside(work: Path, env: dict[str, str], code: str) -> Iterator[None]:
    """In ``work`` with ``env``, figures unrendered, as a command or a block runs here."""
    threads = None
    if "hf:" in code:  # one thread: two cores are shared with the other tests' processes
        torch = pytest.importorskip("torch")
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
    here = Path.cwd()
    saved = dict(os.environ)
    os.chdir(work)
    os.environ.clear()
    os.environ.update(env)
    try:
        with unrendered_figures():
            yield
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(saved)
        if threads is not None:
            torch.set_num_threads(threads)


def run_python(code: str, work: Path, env: dict[str, str], namespace: dict[str, object]) -> str:
    """Run a python block; the end of its traceback if it raises, else ''."""
    import traceback

    with inside(work, env, code):
        try:
            exec(compile(code, "<python block>", "exec"), namespace)
        except Exception as e:
            return "\n    ".join(traceback.format_exception(e)[-4:]).strip()
    return ""


@contextlib.contextmanager
def unrendered_figures() -> Iterator[None]:
    """Figures are made as usual; saving one writes an empty file (see SHELL_CHARS)."""
    from unittest import mock

    from matplotlib.figure import Figure

    def save(self: Figure, fname: object, *args: object, **kwargs: object) -> None:
        if isinstance(fname, str | os.PathLike):
            Path(fname).write_bytes(b"")

    with mock.patch.object(Figure, "savefig", save):
        yield


def execute(command: str, work: Path, env: dict[str, str], in_process: bool) -> tuple[int, str]:
    """Run one command line: a plain ``winoscope ...`` in this process through the same typer
    app the console script runs (it saves a second of start-up per command), anything else
    (pipes, globs, ``python ...``) through bash."""
    words = shlex.split(command, comments=True)
    bare = re.sub(
        r"'[^']*'|\"[^\"]*\"", "", without_comment(command)
    )  # quoted parts go as they are
    plain = words and words[0] == "winoscope" and not (SHELL_CHARS & set(bare))
    if in_process and plain:
        from typer.testing import CliRunner

        from winoscope.cli import app

        with inside(work, env, command):
            done = CliRunner().invoke(app, words[1:])
        output = done.output
        if done.exception is not None and not isinstance(done.exception, SystemExit):
            import traceback

            output += "".join(traceback.format_exception(done.exception))
        return done.exit_code, output
    shell = subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    return shell.returncode, shell.stdout + shell.stderr


# --- the tests ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Fixtures:
    return Fixtures(tmp_path_factory.mktemp("readers-files"))


def workspace(tmp_path: Path) -> Path:
    """``project/`` to run in, with ``../shared/data`` beside it."""
    work = tmp_path / "project"
    work.mkdir()
    if SHARED_DATA.is_dir():
        link_beside(tmp_path)
    return work


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_command_of_the_page_runs(page: Path, tmp_path: Path, fixtures: Fixtures) -> None:
    if AS_THE_DOCS_WRITE_IT in page.read_text("utf-8") and not SHARED_DATA.is_dir():
        if in_ci():
            pytest.fail(f"{page.name} reads {SHARED_DATA}, which is missing")
        pytest.skip(f"{page.name} reads the real releases ({SHARED_DATA} is missing)")
    _, failures = run_page(page, workspace(tmp_path), fixtures)
    assert not failures, "\n\n".join(failures)


def test_the_pages_follow_the_convention() -> None:
    """Every fenced block names its kind; no indented code block (which the test would not
    see); every command block holds at least one command."""
    markdown = pytest.importorskip("markdown")
    known = {"console", "sh", "text", "python", "toml"}
    problems = []
    for page in pages():
        text = page.read_text("utf-8")
        for lang, line, lines in fenced_blocks(text):
            if lang not in known:
                problems.append(f"{page.name}:{line}: a block marked {lang or 'nothing'!r}")
            if lang == "console" and not any(ln.startswith("$ ") for ln in lines):
                problems.append(f"{page.name}:{line}: a console block without a command")
            for n, shown in enumerate(lines, line):
                if lang == "sh" and not any(rule.search(shown) for rule in NOT_RUN):
                    problems.append(f"{page.name}:{n}: {shown!r} in an sh block is not run")
        html = markdown.markdown(text, extensions=["fenced_code", "tables"])
        if re.search(r"<pre><code>(?!</code>)", html):
            problems.append(f"{page.name}: an indented code block")
    assert not problems, "\n".join(problems)


def test_every_page_of_docs_is_in_the_nav() -> None:
    listed = {p.name for p in pages()}
    assert {p.name for p in (ROOT / "docs").glob("*.md")} <= listed


# --- the harness itself can fail ----------------------------------------------------------

PLANTED = """# A page

```console
$ winoscope tasks
$ winoscope run no-such-task --model baseline:first
$ winoscope run also-missing --model baseline:first   # refused (exit status 2)
error: unknown task 'also-missing'
$ winoscope run winobias-uk --model baseline:frist   # refused (exit status 2)
error: a message the command never prints
$ python -c "import sys; sys.exit(3)"
$ bash -c 'exit 4'   # (exit status 4)
$ winoscope tasks \\
    --json | grep -q no-such-task
```

```python
import winoscope

winoscope.validate("no-such-task")
```
"""


def test_a_broken_command_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "broken.md"
    page.write_text(PLANTED, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    outcomes, failures = run_page(page, work, None)
    assert [o.command.line for o in outcomes] == [4, 5, 6, 8, 10, 11, 12]
    assert len(failures) == 5, "\n\n".join(failures)
    assert "broken.md:5: winoscope run no-such-task" in failures[0]
    assert "exit status 2, expected 0" in failures[0]
    assert "broken.md:8:" in failures[1] and "does not print" in failures[1]
    assert "broken.md:10:" in failures[2] and "exit status 3, expected 0" in failures[2]
    assert "broken.md:12:" in failures[3] and "exit status 1, expected 0" in failures[3]
    assert "broken.md:17: the python block" in failures[4] and "no-such-task" in failures[4]
    # the continued line is one command
    assert outcomes[-1].ran == "winoscope tasks --json | grep -q no-such-task"


def test_an_indented_block_breaks_the_convention(tmp_path: Path) -> None:
    markdown = pytest.importorskip("markdown")
    text = "Text.\n\n    winoscope tasks\n\nMore.\n"
    html = markdown.markdown(text, extensions=["fenced_code", "tables"])
    assert re.search(r"<pre><code>(?!</code>)", html)
    fenced = "Text.\n\n```console\n$ winoscope tasks\n```\n"
    assert not re.search(
        r"<pre><code>(?!</code>)", markdown.markdown(fenced, extensions=["fenced_code"])
    )


def test_the_standins_and_exemptions() -> None:
    assert substitute("winoscope run t -m gemma:270m --base-url http://gpu1:8000/v1", 5) == (
        "winoscope run t -m hf:./my-lm --base-url http://127.0.0.1:5/v1"
    )
    setup = "python3 -m venv .venv && .venv/bin/pip install -q -c constraints/cpu.txt -e '.[dev,gemma]' && .venv/bin/pytest"
    assert any(rule.search(setup) for rule in NOT_RUN)
    assert not any(rule.search("winoscope demo") for rule in NOT_RUN)
    # exactly the sh blocks of the pages are not run, and every NOT_RUN rule is used
    shown = [
        ln
        for page in pages()
        for lang, _, lines in fenced_blocks(page.read_text("utf-8"))
        if lang == "sh"
        for ln in lines
    ]
    assert len(shown) == 11
    assert all(any(rule.search(ln) for ln in shown) for rule in NOT_RUN)
