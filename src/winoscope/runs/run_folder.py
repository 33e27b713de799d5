"""The run directory is checked before the first request: a run never replaces what it should
not, and never asks a model for answers it then cannot write.

Refused, in one line naming the folder and the way out (exit status 2 on the command line):

- a path that is a file, lies under a file or in a folder this process cannot write
  (:func:`winoscope.outputs.check_out_folder`; ``--overwrite`` does not change that);
- a folder holding files a run writes (``report.md``, ``metrics.csv`` ...) without the
  ``manifest.json`` winoscope writes with them: the user's own files;
- a folder whose ``manifest.json`` cannot be read: its run cannot be told apart from this one;
- a folder holding a run of another task or model, of other data, another protocol or another
  template, or a full run (or one of a larger ``--limit``) that a partial run would replace.

A prompt-sensitivity run's folder (:func:`check_sensitivity_folder`) is refused when it holds a
single run, the user's own files, or a prompt-sensitivity run of another task or model: its
report and tables would replace theirs.

``winoscope score --out`` (:func:`check_score_folder`) writes ``metrics.*`` and
``validation.json`` only; it is refused where they would replace a run's (its manifest.json)
or files that are not its own scores of the same predictions file for the same task.

Rerunning the same run resumes (its answers come from the store); ``overwrite=True``
(``--overwrite``) replaces the folder's run. Settings that only change the scoring (seed,
bootstrap, scorer options) do not refuse: the answers stay in the store, so the earlier
numbers are one rerun away and no request is asked again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import TaskError
from ..outputs import check_out_folder

#: what a run writes beside its manifest (``responses.sqlite`` is the store: a run's own)
RUN_FILES = (
    "metrics.csv",
    "metrics.json",
    "predictions.parquet",
    "predictions.csv",
    "report.md",
    "report.html",
    "validation.json",
)

WAY_OUT = "give another --out (out=...), or --overwrite (overwrite=True) to replace it"


def refused(what: str, way_out: str = WAY_OUT) -> TaskError:
    """The refusal of a folder that holds ``what``, with the way out as its own sentence."""
    return TaskError(f"{what}: refusing to overwrite it. {way_out[0].upper()}{way_out[1:]}")


def run_identity(task: str, model: Mapping[str, Any]) -> dict[str, str]:
    """What makes a run directory another run: the task and the model as pages name it, its
    spec with the PEFT adapter's folder put on a path model (``hf:base + peft:out/lora``).
    The weights, hooks and adapters under the same label, path or adapter folder may change
    between runs into one directory (the store asks again, as the documentation of live
    models describes): the spec and the folders are the user's names for the model."""
    from ..backends.base import model_display

    return {"task": task, "model": model_display(model)}


def data_identity(source: Mapping[str, Any]) -> tuple[Any, ...]:
    """The data a run read: its content hash where it has one (a file and the bundled sample
    with the same bytes are the same data), else its kind and location; revision and split."""
    what = ("sha256", source["sha256"]) if source.get("sha256") else (
        source.get("kind"), source.get("location"))  # fmt: skip
    return (*what, source.get("revision"), source.get("config"), source.get("split"))


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The folder's manifest (None without one); refused when it cannot be read or holds no
    run, since then the folder's run cannot be told apart from this one."""
    path = out / "manifest.json"
    if not path.exists():
        return None
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or "not valid JSON: cut short or damaged"
        raise TaskError(
            f"{path} cannot be read ({why}): the run in {out} cannot be told apart from this "
            f"one; {WAY_OUT}"
        ) from None
    if not isinstance(old, dict) or "task" not in old:
        raise TaskError(f"{path} holds no run (no 'task' key): {WAY_OUT}")
    return old


def check_run_folder(
    out: str | Path,
    *,
    task: str,
    model: Mapping[str, Any],
    source: Mapping[str, Any] | None = None,
    protocol: str | None = None,
    template_text: str | None = None,
    partial: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> None:
    """Refuse (:class:`TaskError`) to write this run into ``out`` where the module docstring
    says; return when it may."""
    folder = check_out_folder(out)
    if overwrite or not folder.is_dir():
        return
    old = read_manifest(folder)
    if old is None:
        theirs = [n for n in RUN_FILES if (folder / n).exists()]
        if theirs:
            raise TaskError(
                f"{folder} holds {', '.join(theirs)} but no manifest.json: not a run winoscope "
                f"wrote, and this run would replace them; {WAY_OUT}"
            )
        return
    before = run_identity(str(old.get("task")), old.get("model") or {})
    now = run_identity(task, model)
    if before != now:
        raise refused(
            f"{folder} holds a run of {before['task']} with {before['model']}; this run is "
            f"{now['task']} with {now['model']}"
        )
    differs = _other_settings(old, source, protocol, template_text, partial)
    if differs:
        raise refused(f"{folder} holds a run of {now['task']} with {now['model']} on {differs}")


def _other_settings(
    old: Mapping[str, Any],
    source: Mapping[str, Any] | None,
    protocol: str | None,
    template_text: str | None,
    partial: Mapping[str, Any] | None,
) -> str | None:
    """What of the folder's run differs from this one (as a phrase), None when nothing that
    changes the answers does."""
    old_source = (old.get("dataset") or {}).get("source") or {}
    if source is not None and old_source and data_identity(old_source) != data_identity(source):
        return (
            f"other data ({old_source.get('location', '?')}; this run reads "
            f"{source.get('location', '?')})"
        )
    if protocol is not None and old.get("protocol") not in (None, protocol):
        return f"another protocol ({old.get('protocol')}; this run asks {protocol})"
    old_text = (old.get("prompt_template") or {}).get("text")
    if template_text is not None and old_text is not None and old_text != template_text:
        name = (old.get("prompt_template") or {}).get("name", "?")
        return f"another template ({name}); this run's text differs"
    old_limit = (old.get("partial") or {}).get("limit")
    new_limit = None if partial is None else partial.get("limit")
    if new_limit is not None and (old_limit is None or new_limit < old_limit):
        was = "all the data" if old_limit is None else f"--limit {old_limit}"
        return f"{was}, and this one is partial (--limit {new_limit})"
    return None


#: what a prompt-sensitivity run writes at the top of its folder besides its report
SENSITIVITY_FILES = ("sensitivity.json", "template_metrics.csv", "template_summary.csv")


def check_sensitivity_folder(
    out: str | Path, *, task: str, model: Mapping[str, Any], overwrite: bool = False
) -> None:
    """Refuse (:class:`TaskError`) to write a prompt-sensitivity run into ``out`` where it
    would replace another run's report: a single run (its ``manifest.json``), files winoscope
    did not write, or a prompt-sensitivity run of another task or model. With ``overwrite`` a
    single run's files are removed, so the folder holds one run's report and tables, not two.
    Each template's own folder is checked by its run."""
    folder = check_out_folder(out)
    if not folder.is_dir():
        return
    if overwrite:
        remove_run(folder)
        return
    single = read_manifest(folder)
    if single is not None:
        raise refused(
            f"{folder} holds a single run of {single.get('task')} (its manifest.json); a "
            "prompt-sensitivity run writes its own report there"
        )
    path = folder / "sensitivity.json"
    if not path.exists():
        theirs = [n for n in (*RUN_FILES, *SENSITIVITY_FILES) if (folder / n).exists()]
        if theirs:
            raise TaskError(
                f"{folder} holds {', '.join(theirs)} but no sensitivity.json: not a run "
                f"winoscope wrote, and this run would replace them; {WAY_OUT}"
            )
        return
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        before = run_identity(str(old["task"]), old.get("model") or {})
    except (OSError, ValueError, KeyError, TypeError):
        raise TaskError(
            f"{path} cannot be read: the run in {folder} cannot be told apart from this one; "
            f"{WAY_OUT}"
        ) from None
    now = run_identity(task, model)
    if before != now:
        raise refused(
            f"{folder} holds a prompt-sensitivity run of {before['task']} with "
            f"{before['model']}; this run is {now['task']} with {now['model']}"
        )


#: what ``winoscope score --out`` writes; its metrics.json names the task and the predictions
SCORE_FILES = ("metrics.csv", "metrics.json", "validation.json")

SCORE_WAY_OUT = "give another --out, or --overwrite to replace it"


def check_score_folder(
    out: str | Path, *, task: str, predictions: Path, overwrite: bool = False
) -> None:
    """Refuse (:class:`TaskError`) to write ``winoscope score``'s files into ``out`` where they
    would replace what score did not write there: a run (its ``manifest.json``, whose report
    would then show other numbers), or ``metrics.*``/``validation.json`` that are not the
    scores of the same predictions file for the same task. Scoring the same file again
    replaces its scores; so does ``overwrite`` any other (:func:`remove_run` then removes a
    run's files once the scores are ready to be written)."""
    folder = check_out_folder(out)
    if overwrite or not folder.is_dir():
        return
    run = read_manifest(folder)
    if run is not None:
        held = run_identity(str(run.get("task")), run.get("model") or {})
        raise refused(
            f"{folder} holds a run of {held['task']} with {held['model']} (its manifest.json); "
            "score would replace its metrics",
            SCORE_WAY_OUT,
        )
    theirs = [n for n in SCORE_FILES if (folder / n).exists()]
    if not theirs:
        return
    try:
        old = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
        old_task, old_file = str(old["task"]), Path(str(old["predictions"]))
    except (OSError, ValueError, KeyError, TypeError):
        raise TaskError(
            f"{folder} holds {', '.join(theirs)} that winoscope score did not write, and this "
            f"score would replace them; {SCORE_WAY_OUT}"
        ) from None
    if old_task != task or old_file.resolve() != predictions.resolve():
        raise refused(
            f"{folder} holds the scores of {old_file} ({old_task}); this score is of "
            f"{predictions} ({task})",
            SCORE_WAY_OUT,
        )


def remove_run(out: Path, *, keep: Path | None = None) -> None:
    """Remove the run in ``out`` (its ``manifest.json`` and :data:`RUN_FILES`; ``keep``, a
    predictions file being scored, stays), so that an ``--overwrite`` of a prompt-sensitivity
    run or of ``score --out`` leaves its own files in the folder, not a run's manifest and
    report beside other numbers."""
    if not (out / "manifest.json").is_file():
        return
    for name in ("manifest.json", *RUN_FILES):
        path = out / name
        if keep is None or path.resolve() != keep.resolve():
            path.unlink(missing_ok=True)
