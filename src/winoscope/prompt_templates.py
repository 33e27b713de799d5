"""Named prompt templates: several wordings per language, so a bias measured through a prompt
can be checked against the prompt (``winoscope run --template A --template B ...``).

Every template has a stable name ending in a version (``uk-plain-v1``); a changed wording gets
a new version, never the old name, because the name and text key the stored answers and the
manifest. ``--template`` takes a registered name, a ``.txt``/``.tmpl``/``.prompt`` file, or the
template text itself; :func:`resolve` decides which, and a value that looks like a template name
but is not registered is an error naming the registered ones (a typo must not be sent to a
model as a one-line prompt).

The templates are the languages' (``Language.wordings``: :mod:`winoscope.languages.uk.prompts`
and the others), so every task in a language may be asked through them, and a new language
brings its own. Three kinds: ``choice`` (lettered forced choice with ``{sentence}``, ``{pronoun}``,
``{option_a}``, ``{option_b}``), ``nli`` (SweWinogender's premise/hypothesis question with
``{hypothesis}`` instead of ``{pronoun}``) and ``cloze`` (``protocols.cloze``: ending in
``{candidate}``). The task defaults keep their names (``uk-default-v1``, ``en-default-v1``,
``sv-resolution-v1``, ``sv-nli-v1``, the cloze ``*-cloze-v1``) and their texts; the others are
alternative wordings of the same question: a plain one without an instruction line and a
question-and-answer one with an explicit answer format. Cloze wordings keep the candidate in the
form the task supplies it: nominative in Ukrainian, definite in Swedish, after "the" in English.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import TaskError, read_utf8
from .languages import LANGUAGES, Wording
from .protocols.cloze import ClozeTemplate, cloze_from_wording
from .protocols.forced_choice import PromptTemplate, from_wording
from .registry import Registry

KINDS = ("choice", "nli", "cloze")
NLI_PLACEHOLDERS = frozenset({"sentence", "hypothesis", "option_a", "option_b"})
FILE_SUFFIXES = {".txt", ".tmpl", ".prompt"}
# what a template name looks like: lower-case words joined by '-', ending in a version
_NAME = re.compile(r"\A[a-z0-9]+(?:-[a-z0-9]+)*-v[0-9]+\Z")


@dataclass(frozen=True)
class NamedTemplate:
    """A registered template: its language (uk, en, sv), kind and a one-line description."""

    language: str
    kind: str
    template: PromptTemplate | ClozeTemplate
    description: str

    @property
    def name(self) -> str:
        return self.template.name


def _template(wording: Wording) -> PromptTemplate | ClozeTemplate:
    """The wording's template: the same object a task's default is (both are cached)."""
    if wording.kind == "cloze":
        return cloze_from_wording(wording)
    if wording.kind == "nli":
        return from_wording(wording, NLI_PLACEHOLDERS)
    return from_wording(wording)


def _register_wordings() -> None:
    for lang in LANGUAGES.values():
        for wording in lang.wordings:
            TEMPLATES.add(
                wording.name,
                NamedTemplate(lang.code, wording.kind, _template(wording), wording.description),
            )


#: the templates by name, in registration order: a view of the languages' wordings
TEMPLATES: Registry[NamedTemplate] = Registry(
    "prompt template",
    twice=lambda name, old: f"template name {name} registered twice",
    ordered=False,
)
TEMPLATES.discover_with(_register_wordings)
_BUILT_FOR: list[tuple[int, ...]] = []


def registry() -> Registry[NamedTemplate]:
    """Every registered template by name: each registered language's wordings, in the order
    the language lists them (rebuilt when a language is registered after the first use)."""
    key = tuple(id(lang) for lang in LANGUAGES.values())
    if [key] != _BUILT_FOR:
        TEMPLATES.rebuild()
        TEMPLATES.names()  # built now: a name two wordings share is reported here, every time
        _BUILT_FOR[:] = [key]
    return TEMPLATES


def names(language: str | None = None, kind: str | None = None) -> list[str]:
    """Registered names, optionally of one language and kind, in registration order."""
    return [
        n
        for n, e in registry().items()
        if (language is None or e.language == language) and (kind is None or e.kind == kind)
    ]


def get(name: str) -> NamedTemplate:
    reg = registry()
    if name not in reg:
        raise TaskError(f"unknown prompt template '{name}'; registered: {', '.join(reg)}")
    return reg.get(name)


def task_kind(task: Any, protocol: str | None = None) -> str:
    """The template kind a task asks for under ``protocol`` (default: its own): the kind its
    binding takes (cloze, nli for SweWinogender NLI, or choice)."""
    return str(task.protocols[protocol or task.protocol].template_kind)


#: the template class each kind takes, and what the kind's templates are called in errors
TEMPLATE_CLASS: dict[str, type[PromptTemplate] | type[ClozeTemplate]] = {
    "choice": PromptTemplate,
    "nli": PromptTemplate,
    "cloze": ClozeTemplate,
}


def template_noun(kind: str) -> str:
    """``cloze`` for the cloze kind, ``prompt`` for the lettered ones (choice, nli)."""
    return "cloze" if TEMPLATE_CLASS.get(kind) is ClozeTemplate else "prompt"


def check_kind(template: PromptTemplate | ClozeTemplate, kind: str, backend: str) -> None:
    """Refuse a template object of another class than ``kind`` takes (a cloze template for a
    lettered prompt, or the reverse); ``backend`` says which model and mode the run asks."""
    if isinstance(template, TEMPLATE_CLASS.get(kind, PromptTemplate)):
        return
    if isinstance(template, ClozeTemplate):
        raise TaskError(
            f"cloze template '{template.name}' needs a backend in mode=cloze ({backend})"
        )
    raise TaskError(
        f"prompt template '{template.name}' is a lettered prompt; mode=cloze takes a cloze "
        "template ending in {candidate}"
    )


def task_language(task: object) -> str:
    """The language whose templates a task may be asked through: the task's ``language``
    (a resolver-protocol task takes no prompt)."""
    code = str(getattr(task, "language", "") or "")
    if not code or getattr(task, "protocol", "") == "coref" or code not in LANGUAGES:
        with_prompts = sorted({e.language for e in registry().values()})
        raise TaskError(
            f"task {getattr(task, 'name', '?')} has no prompt templates to vary (it declares "
            f"{'language ' + repr(code) if code else 'no language'}; languages with templates: "
            f"{', '.join(with_prompts)})"
        )
    return code


def builtin_for(task: Any, protocol: str | None = None) -> list[PromptTemplate | ClozeTemplate]:
    """The default template of the task's ``protocol`` (default: its own) first, then the
    registered ones of its language and of the kind that protocol's binding takes.

    A default that is not registered comes first too: WinoPron-UK's ``dataset-prompts`` (each
    row's own prompt from the dataset), so its wording is compared with the others."""
    binding = task.protocols[protocol or task.protocol]
    found = [registry().get(n).template for n in names(task_language(task), binding.template_kind)]
    default = binding.template
    if default is not None:
        found = [default] + [t for t in found if t.name != default.name]
    return found


def looks_like_name(value: str) -> bool:
    return bool(_NAME.match(value))


def resolve(
    value: str | Path | PromptTemplate | ClozeTemplate, kind: str = "choice"
) -> PromptTemplate | ClozeTemplate:
    """A template from a registered name, a file or the literal text, checked against ``kind``.

    A registered template of another kind is an error that says which kind it is, and so is a
    name-shaped value that is not registered."""
    if kind not in KINDS:
        raise TaskError(f"unknown template kind {kind!r}; choose {', '.join(KINDS)}")
    if isinstance(value, PromptTemplate | ClozeTemplate):
        return value
    if isinstance(value, list | tuple):
        raise TaskError(
            "several templates are a prompt-sensitivity run: winoscope.run_templates(task, "
            "model, [...]) (on the command line: repeat --template)"
        )
    text = str(value)
    if text in registry():
        entry = registry().get(text)
        if entry.kind != kind:
            raise TaskError(
                f"prompt template '{text}' is a {entry.kind} template; this run needs a {kind} "
                f"template: {', '.join(names(kind=kind))}"
            )
        return entry.template
    path = Path(text)
    is_file = path.suffix in FILE_SUFFIXES and path.is_file()
    if not is_file and "{" not in text and not looks_like_name(text):
        # no placeholder: not template text, so a file that is not there or a mistyped name
        missing = path.suffix in FILE_SUFFIXES or "/" in text or path.exists()
        what = "no such template file" if missing else "not a registered template"
        raise TaskError(
            f"prompt template '{text}': {what}; registered {kind} templates: "
            f"{', '.join(names(kind=kind))} (or give a .txt file or the template text with "
            "its {placeholders})"
        )
    if not is_file and looks_like_name(text):
        raise TaskError(
            f"unknown prompt template '{text}'; registered {kind} templates: "
            f"{', '.join(names(kind=kind))} (or give a .txt file or the template text)"
        )
    if kind == "cloze":
        return ClozeTemplate.load(value)
    if kind == "nli":  # PromptTemplate.load's reading, with the NLI placeholders allowed
        body, name = (read_utf8(path), path.name) if is_file else (text, "custom")
        return PromptTemplate(body, name=name, allowed=NLI_PLACEHOLDERS)
    return PromptTemplate.load(value)


def from_directory(directory: str | Path) -> list[str]:
    """The template files of a directory (``*.txt``, ``*.tmpl``, ``*.prompt``), sorted by name;
    an empty or missing directory is an error."""
    d = Path(directory)
    if not d.is_dir():
        raise TaskError(f"--templates {d}: not a directory")
    files = sorted(p for p in d.iterdir() if p.suffix in FILE_SUFFIXES and p.is_file())
    if not files:
        raise TaskError(f"--templates {d}: no template files (*.txt, *.tmpl, *.prompt)")
    return [str(p) for p in files]


def describe(templates: Sequence[PromptTemplate | ClozeTemplate]) -> list[dict[str, str]]:
    """The manifest's ``prompt_templates``: name and text of each, in order."""
    return [{"name": t.name, "text": t.text} for t in templates]


def cli_templates(template: Sequence[str] | None, directory: str | None) -> tuple[list[str], bool]:
    """``--template`` (repeatable) and ``--templates DIR`` as one list, and whether the run asks
    several templates (more than one ``--template``, or ``--templates`` at all).
    ``--templates builtin`` adds the task's registered templates."""
    values = list(template or [])
    if directory is not None:
        values += (
            ["builtin"]
            if directory == "builtin" and not Path(directory).is_dir()
            else (from_directory(directory))
        )
    return values, directory is not None or len(values) > 1
