"""A study file (TOML, or YAML with PyYAML installed) read into a :class:`~.spec.Study`.

Every mistake is a :class:`StudyFileError` naming the file and the key (``models[2].points``),
raised before anything runs. The format is in docs/cluster.md.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import WinoscopeError, not_utf8
from ..tags import TagError, check_key, normalize_tags, tag_value
from .spec import SLURM_KEYS, ModelSpec, SlurmOptions, Study, TaskSpec

TOP_KEYS = (
    "name",
    "out",
    "key",
    "models",
    "tasks",
    "templates",
    "tags",
    "seed",
    "bootstrap",
    "limit",
    "pythonpath",
    "slurm",
)
MODEL_KINDS = ("points", "checkpoints", "adapters", "factory", "spec")
MODEL_KEYS = (*MODEL_KINDS, "name", "base", "values", "value", "reference", "model_args")


class StudyFileError(WinoscopeError):
    """A study file that cannot be read: the message names the file and the key."""

    def __init__(self, message: str, *, file: str, key: str | None = None) -> None:
        self.file, self.key = file, key
        where = f"{file}: {key}" if key else file
        super().__init__(f"{where}: {message}")


def read_study_file(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise StudyFileError("no such study file", file=str(p))
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        bad = not_utf8(str(p), data)
        raise StudyFileError(f"line {bad.line}: {bad.detail}", file=str(p)) from None
    if p.suffix in (".yaml", ".yml"):
        from ..extras import require

        yaml = require("yaml", "a YAML study file")
        try:
            raw = yaml.load(text, Loader=_unique_keys_loader(yaml))  # a SafeLoader
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}: " if mark is not None else ""
            what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise StudyFileError(f"{where}not valid YAML: {what}", file=str(p)) from None
    elif p.suffix == ".toml":
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise StudyFileError(f"not valid TOML: {exc}", file=str(p)) from None
    else:
        raise StudyFileError("expected a .toml, .yaml or .yml study file", file=str(p))
    if not isinstance(raw, dict):
        raise StudyFileError("expected a table of settings at the top", file=str(p))
    return raw


def _unique_keys_loader(yaml: Any) -> Any:
    """PyYAML's safe loader, refusing a key given twice in one table (PyYAML keeps the last
    silently; TOML refuses it already)."""

    class UniqueKeys(yaml.SafeLoader):  # type: ignore[misc,name-defined]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} is given twice", key_node.start_mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return UniqueKeys


class _Reader:
    """Typed look-ups that name the file and key when a value is wrong."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.folder = file.resolve().parent

    def fail(self, key: str, message: str) -> StudyFileError:
        return StudyFileError(message, file=str(self.file), key=key)

    def unknown(self, table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
        extra = sorted(set(table) - set(allowed))
        if extra:
            prefix = f"{where}." if where else ""
            raise self.fail(
                prefix + extra[0], f"unknown setting; expected one of {', '.join(allowed)}"
            )

    def typed(self, value: Any, kind: Any, key: str, what: str) -> Any:
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            raise self.fail(key, f"expected {what}, got {value!r}")
        return value

    def once(self, values: list[Any], key: str, what: str) -> None:
        """Each of ``values`` given once (compared as values: ``1`` and ``1.0`` are one)."""
        for j, v in enumerate(values):
            if v in values[:j]:
                first = values.index(v)
                raise self.fail(
                    f"{key}[{j}]", f"the {what} {v!r} is given twice ({key}[{first}] too)"
                )

    def at_least(self, value: Any, low: int, key: str) -> int:
        n: int = self.typed(value, int, key, "a whole number")
        if n < low:
            raise self.fail(key, f"expected a whole number >= {low}, got {n}")
        return n

    def path(self, value: Any, key: str) -> Path:
        text = self.typed(value, str, key, "a path")
        p = Path(text).expanduser()
        return p if p.is_absolute() else self.folder / p

    def spec(self, value: Any, key: str) -> str:
        """A model spec; a relative path after ``hf:`` is resolved against the study file."""
        text = self.typed(value, str, key, "a model spec KIND:NAME (hf:./model)")
        kind, sep, name = text.partition(":")
        if not sep or not kind or not name:
            raise self.fail(key, f"expected a model spec KIND:NAME (hf:./model), got {text!r}")
        if kind == "hf" and name.startswith((".", "~")):
            return f"hf:{self.path(name, key)}"
        return text

    def template(self, value: Any, key: str) -> str:
        """A template name, or a file: a relative one that exists beside the study file is
        that file (as a task's data is), else the name or path as given."""
        text: str = self.typed(value, str, key, "a template name or file")
        local = self.path(text, key)
        return str(local) if local.is_file() else text

    def value(self, raw: Any, key: str) -> Any:
        try:
            return tag_value(raw)
        except TagError as exc:
            raise self.fail(key, str(exc)) from None


def _points(r: _Reader, table: Any, key: str, convert: Any) -> dict[Any, str]:
    if not isinstance(table, dict) or not table:
        raise r.fail(key, 'expected a table of VALUE = ... entries, e.g. {0 = "hf:./base"}')
    got: dict[Any, str] = {}
    given: dict[Any, str] = {}
    for v, s in table.items():
        value = r.value(v, f"{key}.{v}")
        if value in got:  # "1", "01" and "1.0" are one value: one run folder, one cell
            raise r.fail(f"{key}.{v}", f"the same value as {key}.{given[value]} ({value!r})")
        got[value], given[value] = convert(s, f"{key}.{v}"), str(v)
    return got


def _model(r: _Reader, raw: Any, i: int) -> ModelSpec:
    where = f"models[{i}]"
    if not isinstance(raw, dict):
        raise r.fail(where, "expected a table with a name and its points")
    r.unknown(raw, MODEL_KEYS, where)
    name = r.typed(raw.get("name"), str, f"{where}.name", "a name for the model")
    try:
        check_key(name)
    except TagError:
        raise r.fail(f"{where}.name", "expected letters, digits, _, - and . only") from None
    kinds = [k for k in MODEL_KINDS if k in raw]
    if len(kinds) != 1:
        raise r.fail(where, f"give exactly one of {', '.join(MODEL_KINDS)} (got {len(kinds)})")
    kind = kinds[0]
    got: dict[str, Any] = {"name": name}
    at = f"{where}.{kind}"
    if kind == "points":
        got["points"] = _points(r, raw["points"], at, r.spec)
    elif kind == "checkpoints":
        got["checkpoints"] = r.path(raw["checkpoints"], at)
    elif kind == "adapters":
        if "base" not in raw:
            raise r.fail(f"{where}.base", 'adapters need the base model\'s spec (base = "hf:...")')
        got["base"] = r.spec(raw["base"], f"{where}.base")
        got["adapters"] = {v: str(p) for v, p in _points(r, raw["adapters"], at, r.path).items()}
    elif kind == "factory":
        text = r.typed(raw["factory"], str, at, "module:function")
        if text.count(":") != 1 or not all(text.split(":")):
            raise r.fail(at, f"expected module:function, got {text!r}")
        got["factory"] = text
        values = raw.get("values")
        if not isinstance(values, list) or not values:
            raise r.fail(f"{where}.values", "a factory needs the values to call it with")
        got["values"] = [r.value(v, f"{where}.values[{j}]") for j, v in enumerate(values)]
        r.once(got["values"], f"{where}.values", "value")
    else:
        got["spec"] = r.spec(raw["spec"], at)
        got["value"] = r.value(raw.get("value", 0), f"{where}.value")
    if "base" in raw and kind != "adapters":
        raise r.fail(f"{where}.base", "base goes with adapters only")
    if "values" in raw and kind != "factory":
        raise r.fail(f"{where}.values", "values go with a factory only")
    if "reference" in raw:
        got["reference"] = r.value(raw["reference"], f"{where}.reference")
    args = raw.get("model_args", {})
    got["model_args"] = dict(r.typed(args, dict, f"{where}.model_args", "a table"))
    return ModelSpec(**got)


def _task(r: _Reader, raw: Any, i: int) -> TaskSpec:
    where = f"tasks[{i}]"
    if isinstance(raw, str):
        return TaskSpec(raw)
    if not isinstance(raw, dict):
        raise r.fail(where, "expected a task name or a table with name, data, scorer_options")
    r.unknown(raw, ("name", "data", "scorer_options"), where)
    name = r.typed(raw.get("name"), str, f"{where}.name", "a task name")
    data = raw.get("data")
    if data is not None:
        text = r.typed(data, str, f"{where}.data", "a file or hub id")
        local = r.path(text, f"{where}.data")
        data = str(local) if local.exists() else text
    options = r.typed(raw.get("scorer_options", {}), dict, f"{where}.scorer_options", "a table")
    return TaskSpec(name, data, dict(options))


def slurm_options(r: _Reader, raw: Any, key: str = "slurm") -> SlurmOptions:
    table = r.typed(raw, dict, key, "a table")
    r.unknown(table, SLURM_KEYS, key)
    got: dict[str, Any] = {}
    for name in ("partition", "mem", "account"):
        if name in table:
            got[name] = str(r.typed(table[name], str | int, f"{key}.{name}", "text"))
    for name in ("gpus", "cpus", "time", "array_parallelism"):
        if name in table:
            n = r.typed(table[name], int, f"{key}.{name}", "a whole number")
            if n < (0 if name == "gpus" else 1):
                raise r.fail(f"{key}.{name}", f"expected a positive number, got {n}")
            got[name] = n
    if "wait" in table:
        w = r.typed(table["wait"], int | float, f"{key}.wait", "minutes")
        if w < 0:
            raise r.fail(f"{key}.wait", "expected minutes >= 0")
        got["wait"] = float(w)
    for name in ("extra", "setup"):
        if name in table:
            items = r.typed(table[name], list, f"{key}.{name}", "a list of lines")
            got[name] = [r.typed(x, str, f"{key}.{name}", "a line") for x in items]
    for line in got.get("extra", []):
        if not line.startswith("--"):
            raise r.fail(f"{key}.extra", f"expected sbatch options like --qos=high, got {line!r}")
    return SlurmOptions(**got)


def study_from_dict(raw: Mapping[str, Any], file: str | Path) -> Study:
    """The study in ``raw`` (a parsed study file); paths resolve against ``file``'s folder."""
    r = _Reader(Path(file))
    r.unknown(raw, TOP_KEYS, "")
    models_raw = raw.get("models")
    if not isinstance(models_raw, list) or not models_raw:
        raise r.fail("models", "expected a list of models ([[models]] tables)")
    models = [_model(r, m, i) for i, m in enumerate(models_raw)]
    seen: set[str] = set()
    for i, m in enumerate(models):
        if m.name in seen:
            raise r.fail(f"models[{i}].name", f"{m.name} is the name of an earlier model")
        seen.add(m.name)
    tasks_raw = raw.get("tasks")
    if isinstance(tasks_raw, str):
        tasks_raw = [tasks_raw]
    if not isinstance(tasks_raw, list) or not tasks_raw:
        raise r.fail("tasks", "expected a list of task names")
    tasks = [_task(r, t, i) for i, t in enumerate(tasks_raw)]
    r.once([t.name for t in tasks], "tasks", "task")
    templates_raw = raw.get("templates", [])
    r.typed(templates_raw, list, "templates", "a list of template names or files")
    templates: list[str | None] = [
        r.template(t, f"templates[{i}]") for i, t in enumerate(templates_raw)
    ] or [None]
    r.once(templates, "templates", "template")
    key = r.typed(raw.get("key", "alpha"), str, "key", "the swept value's name")
    try:
        check_key(key)
    except TagError as exc:
        raise r.fail("key", str(exc)) from None
    if key == "model":
        raise r.fail("key", "model is the tag naming each cell's model; name the value otherwise")
    try:
        tags = normalize_tags(r.typed(raw.get("tags", {}), dict, "tags", "a table"))
    except TagError as exc:
        raise r.fail("tags", str(exc)) from None
    if key in tags or "model" in tags:
        raise r.fail("tags", f"{key} and model are set per cell; leave them out of tags")
    limit = raw.get("limit")
    if limit is not None and (r.typed(limit, int, "limit", "a whole number") < 1):
        raise r.fail("limit", "expected a number >= 1")
    name = r.typed(raw.get("name", r.file.stem), str, "name", "a name")
    return Study(
        name=name,
        models=models,
        tasks=tasks,
        out=r.path(raw.get("out", f"{name}-study"), "out"),
        key=key,
        templates=templates,
        tags=tags,
        seed=r.at_least(raw.get("seed", 0), 0, "seed"),
        n_boot=r.at_least(raw.get("bootstrap", 2000), 0, "bootstrap"),
        limit=limit,
        pythonpath=[
            r.path(p, "pythonpath")
            for p in r.typed(raw.get("pythonpath", []), list, "pythonpath", "a list of folders")
        ],
        slurm=slurm_options(r, raw.get("slurm", {})),
        source=Path(file).resolve(),
    )


def load_study(path: str | Path) -> Study:
    """Read and check a study file (``.toml``, ``.yaml``/``.yml``)."""
    return study_from_dict(read_study_file(path), path)


def with_slurm_overrides(study: Study, items: list[str] | None) -> Study:
    """The study with ``KEY=VALUE`` Slurm settings (``-S partition=gpu -S time=120``) applied
    over the file's; ``extra`` and ``setup`` add a line each."""
    from dataclasses import asdict, replace

    if not items:
        return study
    # the file's settings, without those it leaves unset (None is no value to check again)
    raw: dict[str, Any] = {k: v for k, v in asdict(study.slurm).items() if v is not None}
    r = _Reader(Path("-S"))
    for item in items:
        k, sep, v = item.partition("=")
        k = k.strip()
        if not sep or k not in SLURM_KEYS:
            raise r.fail(item, f"expected KEY=VALUE with KEY one of {', '.join(SLURM_KEYS)}")
        if k in ("extra", "setup"):
            raw[k] = [*raw[k], v]
        elif k in ("gpus", "cpus", "time", "array_parallelism") or k == "wait":
            try:
                raw[k] = float(v) if k == "wait" else int(v)
            except ValueError:
                raise r.fail(item, "expected a number") from None
        else:
            raw[k] = v
    return replace(study, slurm=slurm_options(r, raw, "-S"))
