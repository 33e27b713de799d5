"""A hostile user's mistakes through every command: each ends in the right exit status (2 bad
options or files before anything runs, 1 data findings, 3 failed requests) with one line
naming what is wrong, never in a traceback, and nothing the user had is lost or overwritten.

The corpus (:mod:`hostile_corpus`) is generated from the bundled sample and from baseline runs
made here; every probe runs in this process with ``catch_exceptions=False``, so an exception
that escapes the command line fails it with its traceback. The "not writable" folder is a
real one (``/sys/kernel``, which refuses even root); the probes that need it are skipped where
it can be written.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from hostile_corpus import ERROR_LINE, Corpus, build_corpus, cli, study_text, unrendered_figures


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    with unrendered_figures():
        return build_corpus(tmp_path_factory.mktemp("hostile"))


B = "run winobias-uk -m baseline:random --bootstrap 20 -q"
OUT = "--out {root}/out/x"
STUDIES = (
    "task_twice", "task_twice_data", "template_twice", "unknown_task", "unknown_template",
    "scorer_option", "missing_data", "model_args", "reference", "bootstrap", "seed",
    "key_model", "equal_points", "factory_twice", "adapters_on_baseline", "missing_hf",
    "missing_checkpoints", "cp1251", "yaml_key_twice",
)  # fmt: skip

#: name -> (command line, its exit statuses, the words of its error line, files kept as they
#: were); ``{name}`` is a path of the corpus (:func:`paths`), B a baseline run
PROBES: dict[str, tuple[str, tuple[int, ...], tuple[str, ...], tuple[str, ...]]] = {
    # results lost or overwritten
    "run into the user's own files": (
        f"{B} --out {{foreign}}",
        (2,),
        ("foreign", "no manifest.json", "--out"),
        ("{foreign}/report.md", "{foreign}/metrics.csv"),
    ),
    "run --limit over a full run": (
        f"{B} --limit 1 --out {{full}}",
        (2,),
        ("full", "partial", "--limit 1"),
        ("{full}/manifest.json", "{full}/metrics.csv"),
    ),
    "run of another template over a run": (
        f"{B} --template uk-plain-v1 --out {{full}}",
        (2,),
        ("full", "another template"),
        ("{full}/manifest.json",),
    ),
    "run on other data over a run": (
        f"{B} --data {{array}} --out {{full}}",
        (2,),
        ("full", "other data", "array.json"),
        ("{full}/manifest.json",),
    ),
    "run of another task over a cut manifest": (
        "run winopron-uk -m baseline:random --bootstrap 20 -q --out {cut_manifest}",
        (2,),
        ("manifest.json", "cannot be read"),
        ("{cut_manifest}/manifest.json",),
    ),
    "run into an unwritable folder": (f"{B} --out {{unwritable}}/w", (2,), ("cannot",), ()),
    "run --out a file": (f"{B} --out {{afile}}", (2,), ("a-file", "a file"), ()),
    "run --out under a file": (f"{B} --out {{afile}}/sub", (2,), ("a-file", "is a file"), ()),
    # options out of range
    "run --bootstrap -5": (f"{B} --bootstrap -5 {OUT}", (2,), ("--bootstrap",), ()),
    "run --limit 0": (f"{B} --limit 0 {OUT}", (2,), ("--limit", "1"), ()),
    "run with an unknown option": (f"{B} --bogus {OUT}", (2,), ("--bogus", "run --help'"), ()),
    "run with no task": ("run -m baseline:random", (2,), ("TASK", "run --help'"), ()),
    "study plan with no file": ("study plan", (2,), ("file", "study plan --help'"), ()),
    "run --seed -1": (f"{B} --seed -1 {OUT}", (2,), ("--seed",), ()),
    # data files
    "run on Windows-1251": (
        f"{B} --data {{cp1251}} {OUT}",
        (2,),
        ("cp1251.csv", "line 2", "UTF-8"),
        (),
    ),
    "validate Windows-1251 JSONL": (
        "validate winobias-uk --data {cp1251_jsonl}",
        (2,),
        ("cp1251.jsonl", "line 1"),
        (),
    ),
    "run on a byte-order mark": (f"{B} --data {{bom}} --out {{root}}/out/bom", (0,), (), ()),
    "validate JSONL with blank lines": (
        "validate winobias-uk --data {blank_lines}",
        (2,),
        ("blank_lines.jsonl", "line 11"),
        (),
    ),
    "run on a JSON array": (f"{B} --data {{array}} --out {{root}}/out/array", (0,), (), ()),
    "run on a list cell": (
        f"{B} --data {{list_cells}} {OUT}",
        (2,),
        ("row 1", "sentence_uk", "list"),
        (),
    ),
    "validate a true in a number field": (
        "validate winobias-uk --data {bool_number}",
        (2,),
        ("row 1", "item_number", "true"),
        (),
    ),
    "validate a cut file": ("validate winobias-uk --data {truncated}", (1, 2), ("truncated",), ()),
    "run --revision on a file": (
        f"{B} --data {{bom}} --revision abc {OUT}",
        (2,),
        ("--revision",),
        (),
    ),
    "run on a path that is not there": (
        f"{B} --data /nonexistent/dir/ {OUT}",
        (2,),
        ("/nonexistent/dir/", "no such"),
        (),
    ),
    "run on a named pipe": (f"{B} --data {{pipe}} {OUT}", (2,), ("pipe.csv", "not a file"), ()),
    "run on /dev/null": (f"{B} --data /dev/null {OUT}", (2,), ("/dev/null", "not a file"), ()),
    "run --template of a missing file": (
        f"{B} --template nosuch.txt {OUT}",
        (2,),
        ("nosuch.txt", "no such template file"),
        (),
    ),
    "run --template default": (f"{B} --template default --out {{root}}/out/d", (0,), (), ()),
    # score
    "score Windows-1251 predictions": (
        "score --task winobias-uk -p {cp1251} --bootstrap 20",
        (2,),
        ("cp1251.csv", "line 2"),
        (),
    ),
    "score --out a file": (
        "score -p {good}/predictions.csv --bootstrap 20 --out {afile}",
        (2,),
        ("a-file",),
        (),
    ),
    "score into an unwritable folder": (
        "score -p {good}/predictions.csv --out {unwritable}/x",
        (2,),
        ("cannot",),
        (),
    ),
    # sweeps
    "sweep points 1 and 1.0": (
        "sweep winobias-uk -p 1=baseline:random -p 1.0=baseline:agreement -q --out {root}/sw",
        (2,),
        ("'1'", "'1.0'", "same value"),
        (),
    ),
    "sweep points 01 and 1": (
        "sweep winobias-uk -p 01=baseline:random -p 1=baseline:agreement -q --out {root}/sw",
        (2,),
        ("share a value",),
        (),
    ),
    "sweep --out a file": (
        "sweep winobias-uk -p 0=baseline:random -q --out {afile}",
        (2,),
        ("a-file",),
        (),
    ),
    "sweep --bootstrap -1": (
        "sweep winobias-uk -p 0=baseline:random --bootstrap -1",
        (2,),
        ("--bootstrap",),
        (),
    ),
    "sweep --limit over a full sweep": (
        "sweep winobias-uk -p 0=baseline:random --limit 1 -q --out {sweep_full}",
        (2,),
        ("alpha=0", "partial", "--overwrite"),
        ("{sweep_full}/winobias-uk/alpha=0/manifest.json",),
    ),
    "sweep --limit over a full sweep --overwrite": (
        "sweep winobias-uk -p 0=baseline:random --limit 1 -q --overwrite --out {sweep_copy}",
        (0,),
        (),
        (),
    ),
    # the commands that read run directories
    "show a cut manifest": ("show {cut_manifest}", (2,), ("manifest.json",), ()),
    "show Windows-1251 metrics": ("show {cp1251_metrics}", (2,), ("metrics.csv", "line"), ()),
    "show an empty folder": ("show {empty_folder}", (2,), ("empty_folder",), ()),
    "show the user's folder": ("show {foreign}", (2,), ("foreign", "manifest.json"), ()),
    "diff A A": ("diff {good} {good}", (2,), ("same run directory",), ()),
    "diff --bootstrap 0": ("diff {good} {full} --bootstrap 0", (2,), ("--bootstrap",), ()),
    "diff on a run of 0 replicates": (
        "diff {no_boot} {full}",
        (2,),
        ("bootstrap 0", "--bootstrap"),
        (),
    ),
    "diff --seed -1": ("diff {good} {full} --seed -1", (2,), ("--seed",), ()),
    "diff Windows-1251 metrics": ("diff {good} {cp1251_metrics}", (2,), ("metrics.csv",), ()),
    "diff cut predictions": (
        "diff {full} {cut_predictions}",
        (2,),
        ("predictions.csv", "cut short"),
        (),
    ),
    "diff predictions cut at a line": (
        "diff {full} {short_predictions}",
        (2,),
        ("predictions.csv", "5 rows", "wrote 76"),
        (),
    ),
    "diff --out a file": ("diff {good} {full} --out {afile}", (2,), ("a-file",), ()),
    "compare Windows-1251 metrics": (
        "compare {cp1251_metrics} --out {root}/cmp",
        (2,),
        ("metrics.csv", "UTF-8"),
        (),
    ),
    "compare --out a file": ("compare {good} --out {afile}", (2,), ("a-file",), ()),
    "compare into an unwritable folder": (
        "compare {good} --out {unwritable}/x",
        (2,),
        ("cannot",),
        (),
    ),
    "leaderboard Windows-1251 metrics": (
        "leaderboard {cp1251_metrics} --out {root}/lb",
        (2,),
        ("metrics.csv", "UTF-8"),
        (),
    ),
    "leaderboard --out a file": ("leaderboard {good} --out {afile}", (2,), ("a-file",), ()),
    "crosslingual --out a file": ("crosslingual {good} {en} --out {afile}", (2,), ("a-file",), ()),
    "crosslingual --bootstrap -1": (
        "crosslingual {good} {en} --bootstrap -1",
        (2,),
        ("--bootstrap",),
        (),
    ),
    "crosslingual Windows-1251 metrics": (
        "crosslingual {cp1251_metrics} {en}",
        (2,),
        ("metrics.csv", "UTF-8"),
        (),
    ),
    "env": ("env", (0,), (), ()),
    # studies: every mistake is refused by `study plan`, naming the file and the key
    **{f"study plan: {n}": (f"study plan {{study_{n}}}", (2,), (), ()) for n in STUDIES},
    "study merge with no finished cell": (
        "study merge {fresh_unrun}",
        (2,),
        ("none of the 2 cells is finished",),
        (),
    ),
    "study run into a file": ("study run {study_out_file}", (2,), ("a-file",), ()),
}
NEEDS_UNWRITABLE = [n for n in PROBES if "unwritable" in n]


def paths(c: Corpus) -> dict[str, str]:
    """Every path a probe names, by name."""
    named = {**c.data, **c.runs, **{f"study_{k}": v[0] for k, v in c.studies.items()}}
    named.update(root=c.root, afile=c.afile, unwritable=c.unwritable or Path("/nonexistent"))
    for name, settings in (
        ("fresh", {"out": f'"{c.root / "fresh-study"}"'}),
        ("fresh_unrun", {"out": f'"{c.root / "unrun-study"}"'}),
        ("study_out_file", {"out": f'"{c.afile}"'}),
    ):
        path = c.root / "studies" / f"{name}.toml"
        path.write_text(study_text(settings), encoding="utf-8")
        named[name] = path
    return {k: str(v) for k, v in named.items()}


@pytest.mark.parametrize("name", list(PROBES))
def test_a_mistake_ends_in_its_exit_status_and_one_line(corpus: Corpus, name: str) -> None:
    if name in NEEDS_UNWRITABLE and corpus.unwritable is None:
        pytest.skip(f"{corpus.root}: no folder here refuses this process's writes")
    line, exits, says, unchanged = PROBES[name]
    where = paths(corpus)
    if name.startswith("study plan: "):
        says = corpus.studies[name.removeprefix("study plan: ")][1]
    kept = [Path(p.format(**where)) for p in unchanged]
    before = {p: p.read_bytes() for p in kept}
    code, text = cli(tuple(shlex.split(line.format(**where))))
    assert "Traceback" not in text, text
    assert code in exits, f"exit {code}, expected {exits}:\n{text}"
    if code != 0:
        assert len(ERROR_LINE.findall(text)) == 1, text
        flat = " ".join(text.split()).replace("│ ", "")
        for word in says:
            assert word in flat, f"{word!r} not in:\n{text}"
    for p, content in before.items():
        assert p.read_bytes() == content, f"{p} was changed"


def test_the_corpus_covers_every_command() -> None:
    """Every command is probed, and the corpus keeps its size."""
    words = {tuple(line.split()[:2]) for line, *_ in PROBES.values()}
    commands = {w[0] if w[0] != "study" else " ".join(w) for w in words}
    assert commands == {
        "run", "validate", "score", "sweep", "show", "diff", "compare", "leaderboard",
        "crosslingual", "env", "study plan", "study run", "study merge",
    }  # fmt: skip
    assert len(PROBES) == 79


def test_slurm_overrides_merge_with_the_files_settings(tmp_path: Path) -> None:
    """``-S cpus=2`` over a file that sets only ``time``: both kept, nothing else asked for."""
    from winoscope.studies.load import load_study, with_slurm_overrides

    path = tmp_path / "s.toml"
    path.write_text(study_text() + "\n[slurm]\ntime = 10\n", encoding="utf-8")
    study = with_slurm_overrides(load_study(path), ["cpus=2", "partition=gpu"])
    assert (study.slurm.cpus, study.slurm.time, study.slurm.partition) == (2, 10, "gpu")
    assert (study.slurm.mem, study.slurm.account, study.slurm.gpus) == (None, None, None)


def test_a_sweep_with_no_answered_request_exits_3(tmp_path: Path) -> None:
    """Every request of every point fails (a server answering 500 to all): exit status 3 and
    one line naming the points, not a complaint about an empty metrics table."""
    from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

    with serve_in_thread(StubBehaviour(faults=("500",), poison=("",))) as srv:
        argv = (
            "sweep winobias-uk -p 0=openai:stub -p 1=openai:stub2 --limit 1 --bootstrap 20 -q "
            f"-M base_url={srv.url} -M max_retries=0 --out {tmp_path / 'sw'}"
        )
        code, text = cli(tuple(argv.split()), OPENAI_API_KEY="sk-none")
    assert code == 3, text
    assert len(ERROR_LINE.findall(text)) == 1 and "no request was answered" in text, text
    assert "alpha=0" in text and "alpha=1" in text, text


def test_a_run_with_no_answered_request_is_said_so_by_every_reader(corpus: Corpus) -> None:
    """A run directory winoscope wrote while every request failed: ``run`` exits 3, and
    ``show``, ``compare`` and ``diff`` say that no request was answered (exit 3), not that its
    metrics table is empty."""
    from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

    out = corpus.root / "no_answer"
    with serve_in_thread(StubBehaviour(faults=("500",), poison=("",))) as srv:
        line = f"run winobias-uk -m openai:stub --base-url {srv.url} --max-retries 0 --limit 1"
        code, text = cli((*line.split(), "-q", "--out", str(out)), OPENAI_API_KEY="k")
    assert code == 3 and (out / "manifest.json").is_file(), text
    for argv in (("show", out), ("compare", out, "--out", corpus.root / "c"),
                 ("diff", out, corpus.runs["full"]), ("diff", corpus.runs["full"], out)):  # fmt: skip
        code, text = cli(tuple(map(str, argv)))
        assert code == 3, text
        assert len(ERROR_LINE.findall(text)) == 1 and "no request of this run" in text, text
