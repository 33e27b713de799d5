"""Studies without a cluster: the study file (TOML and YAML, every mistake named by file and
key), the plan (cells, jobs, run directories, what is finished), the Slurm options as submitit
writes them into the job script, and the local executor: one process per model, the merged
sweep equal to ``winoscope.sweep`` over the same points, reruns that skip finished cells."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from study_helpers import build_tiny_models, cell_metrics
from winoscope.cli import app
from winoscope.studies import StudyFileError, load_study, plan_cells, plan_text, run_study
from winoscope.studies.load import with_slurm_overrides

FULL_TOML = """\
name = "grid"
key = "alpha"
tasks = ["winobias-uk", {name = "winopron-uk", scorer_options = {}}]
templates = ["default", "terse"]
tags = {method = "steer"}
bootstrap = 100
limit = 2

[[models]]
name = "base"
points = {0 = "hf:./m0", 4 = "hf:./m4"}
model_args = {mode = "texts"}

[[models]]
name = "ckpt"
checkpoints = "./ckpts"

[[models]]
name = "lora"
base = "hf:./m0"
adapters = {1 = "./a1", 2 = "./a2"}
reference = 2

[[models]]
name = "hook"
factory = "mymod:make"
values = [0, 0.5, 8]

[[models]]
name = "agree"
spec = "baseline:agreement"

[slurm]
partition = "gpu"
gpus = 1
cpus = 8
time = 120
mem = "64G"
account = "proj"
array_parallelism = 3
extra = ["--qos=high", "--exclusive"]
setup = ["module load cuda"]
wait = 30
"""

FULL_YAML = """\
name: grid
key: alpha
tasks: [winobias-uk, {name: winopron-uk, scorer_options: {}}]
templates: [default, terse]
tags: {method: steer}
bootstrap: 100
limit: 2
models:
  - {name: base, points: {0: "hf:./m0", 4: "hf:./m4"}, model_args: {mode: texts}}
  - {name: ckpt, checkpoints: ./ckpts}
  - {name: lora, base: "hf:./m0", adapters: {1: ./a1, 2: ./a2}, reference: 2}
  - {name: hook, factory: "mymod:make", values: [0, 0.5, 8]}
  - {name: agree, spec: "baseline:agreement"}
slurm:
  partition: gpu
  gpus: 1
  cpus: 8
  time: 120
  mem: 64G
  account: proj
  array_parallelism: 3
  extra: ["--qos=high", "--exclusive"]
  setup: ["module load cuda"]
  wait: 30
"""


def grid(tmp_path: Path) -> Path:
    for n in (800, 1600):
        (tmp_path / "ckpts" / f"checkpoint-{n}").mkdir(parents=True)
        (tmp_path / "ckpts" / f"checkpoint-{n}" / "config.json").write_text("{}")
    path = tmp_path / "grid.toml"
    path.write_text(FULL_TOML, encoding="utf-8")
    return path


def test_a_toml_and_a_yaml_study_file_read_into_the_same_study(tmp_path: Path) -> None:
    toml = load_study(grid(tmp_path))
    (tmp_path / "grid.yaml").write_text(FULL_YAML, encoding="utf-8")
    yaml = load_study(tmp_path / "grid.yaml")
    assert dataclasses.replace(yaml, source=None) == dataclasses.replace(toml, source=None)
    base = toml.model("base")
    assert base.kind == "points" and base.points == {0: f"hf:{tmp_path}/m0", 4: f"hf:{tmp_path}/m4"}
    assert toml.model("lora").adapters == {1: str(tmp_path / "a1"), 2: str(tmp_path / "a2")}
    assert toml.model("hook").values == [0, 0.5, 8]
    assert toml.out == tmp_path / "grid-study" and toml.n_boot == 100 and toml.limit == 2
    assert toml.slurm.extra == ["--qos=high", "--exclusive"] and toml.slurm.wait == 30.0


def test_a_template_file_is_found_beside_the_study_file_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paths are relative to the study file: its template files too, whatever the folder the
    command runs in; a registered template's name stays a name."""
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "x.txt").write_text("{sentence} {pronoun} {a} {b}", encoding="utf-8")
    path = tmp_path / "s.toml"
    path.write_text(
        'tasks = ["winobias-uk"]\ntemplates = ["t/x.txt", "./t/x.txt"]\n'
        '[[models]]\nname = "m"\nspec = "baseline:random"\n',
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with pytest.raises(StudyFileError, match=r"templates\[1\]: the template .* given twice"):
        load_study(path)  # one file under two spellings
    path.write_text(
        path.read_text(encoding="utf-8").replace(', "./t/x.txt"', ', "uk-plain-v1"'),
        encoding="utf-8",
    )
    assert load_study(path).templates == [str(tmp_path / "t" / "x.txt"), "uk-plain-v1"]


def test_the_plan_has_one_job_per_model_and_a_run_directory_per_cell(tmp_path: Path) -> None:
    study = load_study(grid(tmp_path))
    jobs = plan_cells(study)
    assert [j.model.name for j in jobs] == ["base", "ckpt", "lora", "hook", "agree"]
    points = [len(j.points) for j in jobs]
    assert points == [2, 2, 2, 3, 1]
    assert [len(j.cells) for j in jobs] == [p * 2 * 2 for p in points]  # x 2 tasks x 2 templates
    assert jobs[1].points == {
        800: f"hf:{tmp_path}/ckpts/checkpoint-800",
        1600: f"hf:{tmp_path}/ckpts/checkpoint-1600",
    }
    assert [j.reference for j in jobs] == [0, 800, 2, 0, 0]
    dirs = [c.run_dir for j in jobs for c in j.cells]
    assert len(set(dirs)) == len(dirs)
    assert jobs[3].cells[-1].run_dir == (
        tmp_path / "grid-study/runs/hook/template=terse/winopron-uk/alpha=8"
    )
    lines = plan_text(study)
    assert lines[0].startswith("study grid: 40 cells in 5 jobs (one per model), 40 to run")
    assert "job 2 lora (adapters): alpha = 1, 2 (reference 2); 8 cells, 8 to run" in lines
    cell = jobs[0].cells[0]
    cell.run_dir.mkdir(parents=True)
    (cell.run_dir / "study-cell.json").write_text(json.dumps(cell.identity))
    assert not cell.finished()  # a marker without a run that answered and has metrics
    (cell.run_dir / "manifest.json").write_text('{"outcome": {"success": true}}')
    (cell.run_dir / "metrics.csv").write_text("metric,value\npro_accuracy,0.5\n")
    assert cell.finished() and "8 cells, 7 to run" in plan_text(study)[1]
    changed = plan_cells(dataclasses.replace(study, n_boot=50))[0].cells[0]
    assert not changed.finished()  # another setting: the cell runs again


@pytest.mark.parametrize(
    ("edit", "key", "says"),
    [
        (
            ('[[models]]\nname = "base"', '[[models]]\nname = "agree"'),
            "models[4].name",
            "earlier model",
        ),
        (("bootstrap = 100", "bootstrap = 100\nbootstrp = 3"), "bootstrp", "unknown setting"),
        (
            ('factory = "mymod:make"', 'factory = "mymod.make"'),
            "models[3].factory",
            "module:function",
        ),
        (("values = [0, 0.5, 8]\n", ""), "models[3].values", "needs the values"),
        (('spec = "baseline:agreement"', 'spec = "agreement"'), "models[4].spec", "KIND:NAME"),
        (
            ('spec = "baseline:agreement"', 'spec = "baseline:agreement"\nvalues = [1]'),
            "models[4].values",
            "factory only",
        ),
        (
            ('spec = "baseline:agreement"', 'spec = "baseline:agreement"\npoints = {0 = "hf:x"}'),
            "models[4]",
            "exactly one",
        ),
        (("time = 120", 'time = "2h"'), "slurm.time", "whole number"),
        (("gpus = 1", "gpu = 1"), "slurm.gpu", "unknown setting"),
        (('extra = ["--qos=high", ', 'extra = ["qos=high", '), "slurm.extra", "sbatch options"),
        (
            ('adapters = {1 = "./a1", 2 = "./a2"}\n', "adapters = {}\n"),
            "models[2].adapters",
            "table of VALUE",
        ),
        (('name = "lora"\nbase = "hf:./m0"\n', 'name = "lora"\n'), "models[2].base", "base model"),
        (('tags = {method = "steer"}', "tags = {alpha = 1}"), "tags", "set per cell"),
        (("limit = 2", "limit = 0"), "limit", ">= 1"),
        (('tasks = ["winobias-uk", ', "tasks = [3, "), "tasks[0]", "a task name"),
        (("[slurm]", "[slurm\n"), None, "not valid TOML"),
    ],
)
def test_a_mistake_in_the_study_file_names_the_file_and_the_key(
    tmp_path: Path, edit: tuple[str, str], key: str | None, says: str | None
) -> None:
    path = grid(tmp_path)
    text = path.read_text()
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(StudyFileError) as info:
        load_study(path)
    message = str(info.value)
    assert message.startswith(str(path))
    if key is not None:
        assert f"{path}: {key}:" in message
    if says is not None:
        assert says in message


def test_a_missing_or_unreadable_study_file_is_a_usage_error(tmp_path: Path) -> None:
    runner = CliRunner()
    got = runner.invoke(app, ["study", "plan", str(tmp_path / "none.toml")])
    assert got.exit_code == 2 and "none.toml" in got.output and "no such study file" in got.output
    (tmp_path / "s.json").write_text("{}")
    got = runner.invoke(app, ["study", "plan", str(tmp_path / "s.json")])
    assert got.exit_code == 2 and ".toml, .yaml or .yml" in got.output
    bad = grid(tmp_path)
    got = runner.invoke(app, ["study", "run", str(bad), "-S", "time=soon"])
    assert got.exit_code == 2 and "time=soon" in got.output and "a number" in got.output


def test_the_slurm_options_reach_the_job_script_as_sbatch_lines(tmp_path: Path) -> None:
    submitit = pytest.importorskip("submitit")
    from winoscope.studies.slurm import submitit_parameters

    study = with_slurm_overrides(
        load_study(grid(tmp_path)), ["partition=h100", "extra=--constraint=gh200", "wait=1"]
    )
    assert study.slurm.partition == "h100" and study.slurm.wait == 1.0
    params = submitit_parameters(study.slurm, "winoscope-grid")
    from submitit.slurm.slurm import _make_sbatch_string

    script = _make_sbatch_string(
        command="python -m x", folder=tmp_path / "logs", map_count=5, **params
    )
    for line in (
        "#SBATCH --partition=h100",
        "#SBATCH --gpus-per-node=1",
        "#SBATCH --cpus-per-task=8",
        "#SBATCH --time=120",
        "#SBATCH --mem=64G",
        "#SBATCH --account=proj",
        "#SBATCH --array=0-4%3",
        "#SBATCH --qos=high",
        "#SBATCH --exclusive",
        "#SBATCH --constraint=gh200",
        "#SBATCH --job-name=winoscope-grid",
        "module load cuda",
    ):
        assert line in script.splitlines(), line
    assert submitit.__version__ >= "1.5"


STUDY_POINTS = """\
name = "seeds"
key = "seed"
tasks = ["winobias-uk"]
bootstrap = 60
seed = 3

[[models]]
name = "tiny"
points = {{0 = "hf:{tiny}/seed-0", 1 = "hf:{tiny}/seed-1", 5 = "hf:{tiny}/seed-5"}}
model_args = {{mode = "texts"}}

[[models]]
name = "agree"
spec = "baseline:agreement"
value = 0
"""


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    return build_tiny_models(tmp_path_factory.mktemp("study-tiny"))


def test_the_local_executor_runs_each_model_in_a_process_and_merges_a_sweep_equal_to_sweeps(
    tmp_path: Path, tiny_dir: Path
) -> None:
    import winoscope

    text = STUDY_POINTS.format(tiny=tiny_dir)
    path = tmp_path / "seeds.toml"
    path.write_text(text)
    got = CliRunner().invoke(app, ["study", "run", str(path), "--parallelism", "2"])
    assert got.exit_code == 0, got.output
    assert "study seeds: 4 of 4 cells finished in 2 jobs (2 run now)" in got.output
    study = load_study(path)
    reports = [
        json.loads((study.out / "jobs" / f"{m}.json").read_text()) for m in ("tiny", "agree")
    ]
    assert reports[0]["pid"] != reports[1]["pid"]  # one process per model
    assert [len(r["done"]) for r in reports] == [3, 1]
    # the same points through winoscope.sweep, in this process: the same sweep table
    winoscope.sweep(
        "winobias-uk",
        {0: f"hf:{tiny_dir}/seed-0", 1: f"hf:{tiny_dir}/seed-1", 5: f"hf:{tiny_dir}/seed-5"},
        key="seed",
        out=tmp_path / "sweep",
        n_boot=60,
        seed=3,
        backend_options={"mode": "texts"},
    )
    merged = pd.read_csv(study.out / "sweeps" / "tiny" / "sweep.csv")
    direct = pd.read_csv(tmp_path / "sweep" / "sweep.csv")
    pd.testing.assert_frame_equal(merged, direct)
    assert not (study.out / "sweeps" / "agree" / "sweep.csv").read_text().count("point - reference")
    board = pd.read_csv(study.out / "leaderboard" / "leaderboard.csv")
    assert board.groupby(["model", "tags"]).ngroups == 4
    tags = json.loads((study.out / "runs/tiny/winobias-uk/seed=5/manifest.json").read_text())[
        "tags"
    ]
    assert tags == {"seed": 5, "model": "tiny"}
    before = cell_metrics(study.out)
    again = run_study(study, "local")
    assert again.ok and again.outcomes == []  # every cell finished: no job starts
    after = cell_metrics(study.out)
    for cell, frame in before.items():
        pd.testing.assert_frame_equal(after[cell], frame)


def test_a_cell_that_fails_is_reported_and_the_others_finish(
    tmp_path: Path, tiny_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken.py").write_text(
        "import winoscope\n"
        "def make(value):\n"
        "    if value == 2:\n"
        "        raise RuntimeError('no weights for 2')\n"
        "    return 'baseline:agreement'\n"
    )
    path = tmp_path / "b.toml"
    path.write_text(
        'name = "b"\ntasks = ["winobias-uk"]\nbootstrap = 50\npythonpath = ["."]\n'
        '[[models]]\nname = "m"\nfactory = "broken:make"\nvalues = [0, 2, 3]\n'
    )
    got = CliRunner().invoke(app, ["study", "run", str(path)])
    assert got.exit_code == 3
    assert "cell failed: m alpha=2 winobias-uk: RuntimeError: no weights for 2" in got.output
    assert "2 of 3 cells finished" in got.output and "1 cells unfinished" in got.output
    summary = json.loads((tmp_path / "b-study" / "study.json").read_text())
    assert summary["unfinished"] == ["m alpha=2 winobias-uk"]
    assert summary["submitted"][0]["state"] == "COMPLETED"
    (tmp_path / "broken.py").write_text("def make(value):\n    return 'baseline:agreement'\n")
    got = CliRunner().invoke(app, ["study", "run", str(path)])
    assert got.exit_code == 0, got.output
    assert "3 of 3 cells finished in 1 jobs (1 run now)" in got.output
    report = json.loads((tmp_path / "b-study" / "jobs" / "m.json").read_text())
    assert len(report["skipped"]) == 2 and len(report["done"]) == 1


def test_a_studys_seed_reaches_the_backend_it_makes_as_runs_does(tmp_path: Path) -> None:
    """A point given as a spec is made with the study's seed, as ``run`` makes it: a study's
    seeded baseline answers as ``winoscope run --seed`` does (it used the backend's own seed 0)."""
    import winoscope
    from winoscope.studies.job import run_job

    path = tmp_path / "s.toml"
    path.write_text(
        'name = "s"\ntasks = ["winobias-uk"]\nbootstrap = 50\nseed = 7\n'
        '[[models]]\nname = "r"\nspec = "baseline:random"\n'
    )
    report = run_job(str(path), "r")
    assert not report["failed"] and len(report["done"]) == 1
    cell = Path(report["done"][0]["run_dir"])
    alone = winoscope.run("winobias-uk", "baseline:random", seed=7, n_boot=50, out=tmp_path / "r")
    study_predictions = pd.read_csv(cell / "predictions.csv")
    run_predictions = pd.read_csv(tmp_path / "r" / "predictions.csv")
    assert (
        study_predictions["prediction_role"].tolist() == run_predictions["prediction_role"].tolist()
    )
    pd.testing.assert_frame_equal(pd.read_csv(cell / "metrics.csv"), alone.metrics)


def test_a_plugin_backends_declared_options_check_a_studys_model_args(tmp_path: Path) -> None:
    """The options a backend kind declares when it registers are what a study's ``model_args``
    are checked against before any job starts, a plugin's kind as a built-in one."""
    from winoscope.backends import BACKENDS, backend
    from winoscope.backends.base import BACKEND_OPTIONS
    from winoscope.studies.checks import check_study

    @backend("optdemo", ("alpha",))
    def make(name: str, **options: object) -> object:
        raise AssertionError("a study's check makes no backend")

    try:
        path = tmp_path / "s.toml"
        path.write_text(
            'name = "s"\ntasks = ["winobias-uk"]\n[[models]]\nname = "m"\n'
            'spec = "optdemo:x"\nmodel_args = {beta = 1}\n'
        )
        with pytest.raises(StudyFileError, match=r"models\[0\]\.model_args\.beta: optdemo backend"):
            check_study(load_study(path))
        path.write_text(path.read_text().replace("beta", "alpha"))
        check_study(load_study(path))
    finally:
        BACKENDS.remove("optdemo")
        BACKEND_OPTIONS.pop("optdemo", None)


def _answering_study(tmp_path: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [k for k in os.environ if "proxy" in k.lower()]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    path = tmp_path / "s.toml"
    path.write_text(
        'name = "s"\ntasks = ["winobias-uk"]\nbootstrap = 20\nlimit = 1\n[[models]]\nname = "m"\n'
        f'spec = "openai:stub"\nmodel_args = {{base_url = "{url}", max_retries = 0}}\n'
    )
    return path


def test_a_cell_whose_requests_failed_stays_unfinished_and_its_rerun_asks_only_those(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell with failed requests exits 3 and is not finished (it was marked finished, exit 0,
    and never asked again); one without metrics is left out of the merge (it broke every merge);
    the rerun asks only what failed and finishes the cell."""
    from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

    beh = StubBehaviour(faults=("500",), poison=("",))  # every request fails
    with serve_in_thread(beh) as srv:
        path = _answering_study(tmp_path, srv.url, monkeypatch)
        cell = tmp_path / "s-study" / "runs" / "m" / "winobias-uk" / "alpha=0"
        got = CliRunner().invoke(app, ["study", "run", str(path)])
        assert got.exit_code == 3, got.output
        assert "cell failed: m alpha=0 winobias-uk: TaskError:" in got.output
        assert "0 of 1 cells finished" in got.output and "1 cells unfinished" in got.output
        merged = CliRunner().invoke(app, ["study", "merge", str(path)])
        assert merged.exit_code == 2 and "none of the 1 cells is finished" in merged.output

        beh.poison = ("дизайнерк",)  # some requests fail
        got = CliRunner().invoke(app, ["study", "run", str(path)])
        assert got.exit_code == 3, got.output
        outcome = json.loads((cell / "manifest.json").read_text())["outcome"]
        assert 0 < outcome["failed"] < outcome["requests"]
        assert f"{outcome['failed']} of {outcome['requests']} requests failed" in got.output
        report = json.loads((tmp_path / "s-study" / "jobs" / "m.json").read_text())
        assert report["done"] == [] and len(report["failed"]) == 1
        plan = CliRunner().invoke(app, ["study", "plan", str(path)])
        assert "[to run]" in plan.output and "[finished]" not in plan.output

        beh.faults, beh.poison = (), ()
        asked = len(srv.calls)
        got = CliRunner().invoke(app, ["study", "run", str(path)])
        assert got.exit_code == 0, got.output
        assert len(srv.calls) - asked == outcome["failed"]
    plan = CliRunner().invoke(app, ["study", "plan", str(path)])
    assert "[finished]" in plan.output
    assert (tmp_path / "s-study" / "sweeps" / "m" / "sweep.csv").is_file()


@pytest.mark.parametrize(
    ("lines", "key", "what"),
    [
        (
            'templates = ["ta/x.txt", "tb/x.txt"]\n[[models]]\nname = "m"\nspec = "baseline:random"\n',
            "templates[1]",
            "the templates ta/x.txt and tb/x.txt",
        ),
        (
            '[[models]]\nname = "m"\npoints = {"a b" = "baseline:random", "a_b" = "baseline:first"}\n',
            "models[0].points",
            "the values 'a b' and 'a_b'",
        ),
    ],
)
def test_two_cells_sharing_a_run_folder_are_refused_before_any_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: str, key: str, what: str
) -> None:
    """A template file's name or a value made into a folder name can come out the same for two
    cells; the plan accepted them and the run failed with exit 3 on every rerun."""
    from winoscope.prompt_templates import get

    monkeypatch.chdir(tmp_path)
    text = get("uk-plain-v1").template.text
    for folder, body in (("ta", text), ("tb", text.replace("Відповідь:", "Відповідь (A чи B):"))):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.txt").write_text(body, encoding="utf-8")
    path = tmp_path / "s.toml"
    path.write_text(f'name = "s"\ntasks = ["winobias-uk"]\nbootstrap = 20\n{lines}')
    for command in ("plan", "run"):
        got = CliRunner().invoke(app, ["study", command, str(path)])
        assert got.exit_code == 2, got.output
        assert f"s.toml: {key}: {what} share one run folder" in " ".join(got.output.split())
    assert not (tmp_path / "s-study" / "runs").exists()


def test_a_cell_whose_model_spec_changed_replaces_its_own_run_folder_only(tmp_path: Path) -> None:
    """The study owns its cells' folders: a changed point runs again into its folder (every
    rerun was refused, exit 3, and study run has no --overwrite), a folder the study did not
    mark is still refused, and a sweep whose reference is unfinished keeps no stale page."""
    path = tmp_path / "s.toml"
    study = (
        'name = "s"\ntasks = ["winobias-uk"]\nbootstrap = 20\nlimit = 1\n[[models]]\nname = "m1"\n'
    )
    path.write_text(study + 'points = {0 = "baseline:random", 1 = "baseline:first"}\n')
    runs, sweep = (
        tmp_path / "s-study" / "runs" / "m1" / "winobias-uk",
        tmp_path / "s-study" / "sweeps" / "m1",
    )
    got = CliRunner().invoke(app, ["study", "run", str(path)])
    assert got.exit_code == 0, got.output
    assert (sweep / "sweep.csv").is_file() and (sweep / "plots").is_dir()

    path.write_text(study + 'points = {0 = "baseline:random", 1 = "baseline:stereotype"}\n')
    got = CliRunner().invoke(app, ["study", "run", str(path)])
    assert got.exit_code == 0, got.output
    assert "2 of 2 cells finished in 1 jobs (1 run now)" in got.output
    manifest = json.loads((runs / "alpha=1" / "manifest.json").read_text())
    assert "stereotype" in json.dumps(manifest["model"])

    path.write_text(study + 'points = {0 = "baseline:first", 1 = "baseline:stereotype"}\n')
    merged = CliRunner().invoke(app, ["study", "merge", str(path)])
    assert merged.exit_code == 0, merged.output
    assert sweep.is_dir() and not [p.name for p in sweep.iterdir()]  # the reference is unfinished
    assert "merged 1 of 2 cells: 0 sweep pages" in merged.output
    got = CliRunner().invoke(app, ["study", "run", str(path)])
    assert got.exit_code == 0, got.output
    assert (sweep / "sweep.csv").is_file()
    summary = json.loads((tmp_path / "s-study" / "study.json").read_text())
    assert summary["merged"]["sweeps"] == [str(sweep)] and summary["merged"]["removed"] == []

    (runs / "alpha=1" / "study-cell.json").unlink()  # not a cell the study marked
    path.write_text(study + 'points = {0 = "baseline:first", 1 = "baseline:random"}\n')
    got = CliRunner().invoke(app, ["study", "run", str(path)])
    assert got.exit_code == 3
    assert "refusing to overwrite it" in " ".join(got.output.split())
