"""The prompt template registry: three named templates per language and kind, the task
defaults under their names, resolving names, files and texts, and every template rendering for
every task it serves."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from winoscope import prompt_templates as reg
from winoscope.errors import TaskError
from winoscope.protocols.cloze import ClozeTemplate
from winoscope.protocols.forced_choice import PromptTemplate
from winoscope.studies.sensitivity import unique_names
from winoscope.tasks import TASKS


def placeholders(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}


@pytest.mark.parametrize("language", ["uk", "en", "sv"])
@pytest.mark.parametrize("kind", ["choice", "cloze"])
def test_three_named_templates_per_language_and_kind(language: str, kind: str) -> None:
    names = reg.names(language, kind)
    assert len(names) >= 3
    assert len(set(names)) == len(names)
    texts = [reg.get(n).template.text for n in names]
    assert len(set(texts)) == len(texts)  # different wordings, not copies
    for n in names:
        assert reg.looks_like_name(n)


def test_swedish_nli_has_three_templates_with_its_placeholders() -> None:
    names = reg.names("sv", "nli")
    assert len(names) >= 3
    for n in names:
        assert placeholders(reg.get(n).template.text) == set(reg.NLI_PLACEHOLDERS)


def test_task_defaults_keep_their_names_and_texts() -> None:
    from winoscope.protocols import cloze
    from winoscope.protocols.forced_choice import EN_DEFAULT, UK_DEFAULT

    assert reg.get("uk-default-v1").template is UK_DEFAULT
    assert reg.get("en-default-v1").template is EN_DEFAULT
    assert reg.get("uk-cloze-v1").template is cloze.UK_CLOZE
    assert TASKS.get("winobias-uk").protocols["cloze"].template is cloze.UK_CLOZE


def test_resolve_by_name_file_and_text(tmp_path: Path) -> None:
    assert reg.resolve("uk-plain-v1").name == "uk-plain-v1"
    f = tmp_path / "mine.txt"
    f.write_text("{sentence} {pronoun}?\nA. {option_a}\nB. {option_b}\n", encoding="utf-8")
    assert reg.resolve(str(f)).name == "mine.txt"
    literal = reg.resolve("{sentence}\nA. {option_a}\nB. {option_b}")
    assert literal.name == "custom"
    assert isinstance(reg.resolve("sv-cloze-who-v1", "cloze"), ClozeTemplate)
    nli = reg.resolve("Premiss: {sentence}\n{hypothesis}\nA. {option_a}\nB. {option_b}", "nli")
    assert isinstance(nli, PromptTemplate) and "hypothesis" in nli.allowed


def test_resolve_refuses_typos_and_wrong_kinds() -> None:
    with pytest.raises(TaskError, match=r"unknown prompt template 'uk-plan-v1'.*uk-plain-v1"):
        reg.resolve("uk-plan-v1")
    with pytest.raises(TaskError, match="is a cloze template"):
        reg.resolve("uk-cloze-v1", "choice")
    with pytest.raises(TaskError, match="is a choice template"):
        reg.resolve("uk-plain-v1", "cloze")


def test_same_name_twice_is_refused_or_renamed() -> None:
    a = PromptTemplate("{sentence}\nA. {option_a}\nB. {option_b}", name="x")
    b = PromptTemplate("{sentence}\nA. {option_a}\nB. {option_b}\nAnswer:", name="x")
    with pytest.raises(TaskError, match="given twice"):
        unique_names([a, a])
    renamed = unique_names([a, b])
    assert renamed[0].name == "x" and renamed[1].name.startswith("x-") and renamed[1].text == b.text


def prompt_tasks() -> list[str]:
    """Every task with prompts: it declares a language and is not a resolver task."""
    return [n for n in TASKS.names() if TASKS.get(n).language and TASKS.get(n).protocol != "coref"]


def test_the_tasks_with_prompts_are_the_nine_built_in_ones() -> None:
    """The parametrised tests below run on these (an empty list would skip them silently)."""
    assert prompt_tasks() == [
        "swewinogender",
        "swewinogender/nli",
        "swewinogender/resolution",
        "winobias-en",
        "winobias-uk",
        "winobias-uk-controlled",
        "winogender-en",
        "winopron-en",
        "winopron-uk",
    ]


@pytest.mark.parametrize("name", prompt_tasks())
def test_every_builtin_template_renders_for_every_task(name: str, shared_data: Path) -> None:
    t = TASKS.get(name)
    english = reg.task_language(t) == "en"
    ds = t.data.load(shared_data / t.family if english else None)
    choice = reg.builtin_for(t)
    assert len(choice) >= 3 and choice[0] is t.primary.template
    for tmpl in choice:
        assert isinstance(tmpl, PromptTemplate)
        reqs = t.primary.build_requests(ds, tmpl)
        assert reqs, tmpl.name
        for r in reqs:
            assert "{" not in r.prompt.replace("{{", "") and r.prompt.strip()
            for opt in r.options:
                assert opt.text in r.prompt
    if "cloze" in t.protocols:
        cloze = reg.builtin_for(t, "cloze")
        assert len(cloze) >= 3 and cloze[0] is t.protocols["cloze"].template  # the default first
        for tmpl in cloze:
            assert isinstance(tmpl, ClozeTemplate)
            reqs = t.protocols["cloze"].build_requests(ds, tmpl)
            assert len(reqs) == len({r.row_id for r in reqs}) > 0
            for r in reqs:
                assert "{" not in r.prompt and all(o.text.startswith(" ") for o in r.options)


def test_coref_tasks_have_no_templates_to_vary() -> None:
    with pytest.raises(TaskError, match="no prompt templates to vary"):
        reg.builtin_for(TASKS.get("winobias-uk/coref"))


@pytest.mark.parametrize("kind", ["choice", "cloze", "nli"])
def test_a_template_file_not_in_utf8_is_one_clear_error(tmp_path: Path, kind: str) -> None:
    """A Latin-1 file is not a UnicodeDecodeError traceback: the file and its line, as for a
    data or study file; through --template, --templates DIR and a study's templates."""
    from typer.testing import CliRunner

    from winoscope.cli import app
    from winoscope.errors import DatasetError
    from winoscope.studies import StudyFileError, load_study
    from winoscope.studies.checks import check_study

    bad = tmp_path / "t" / "bad.txt"
    bad.parent.mkdir()
    bad.write_bytes("{sentence}\nSch\xf6n {option_a} {option_b}\n".encode("latin-1"))
    with pytest.raises(DatasetError, match="line 2: not UTF-8 text: byte 0xf6") as err:
        reg.resolve(str(bad), kind)
    assert err.value.file == str(bad)
    if kind != "choice":
        return
    out = str(tmp_path / "run")
    for given in (["--template", str(bad)], ["--templates", str(bad.parent)]):
        args = ["run", "winobias-uk", "--model", "baseline:first", "--out", out, "-q", *given]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
        said = " ".join(result.output.split())
        assert f"file {bad}, line 2: not UTF-8 text" in said, said
    study = tmp_path / "s.toml"
    study.write_text(
        f'name = "s"\ntasks = ["winobias-uk"]\ntemplates = ["{bad}"]\n'
        '[[models]]\nname = "b"\nspec = "baseline:first"\n',
        encoding="utf-8",
    )
    with pytest.raises(
        StudyFileError,
        match=r"templates\[0\]: for task winobias-uk: file .*bad\.txt, line 2: not UTF-8",
    ):
        check_study(load_study(study))
