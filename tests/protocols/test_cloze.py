"""The cloze protocol: templates, one request per row, answer combination, full runs.

The runs use a small deterministic backend defined here (a real backend registered under
``cloze-test``): each option's "log-probability" is minus the length of its continuation in
characters, so the shorter candidate wins and equal lengths tie; requests whose context
contains the ``fail_on`` text fail. Expected predictions are worked out from the dataset rows
independently of the protocol code.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest

from winoscope.backends import backend
from winoscope.errors import TaskError
from winoscope.protocols import cloze
from winoscope.protocols.choice_rows import ChoiceRow
from winoscope.protocols.forced_choice import PromptTemplate
from winoscope.records import NO_MODES, Description, Option, Request, Response
from winoscope.runs.runner import run, score
from winoscope.tasks import get_task

CLOZE_TASKS = (
    "winobias-uk",
    "winobias-en",
    "winopron-uk",
    "winopron-en",
    "winogender-en",
    "swewinogender/resolution",
)
NOTE = "order consistency is 1 by construction under cloze"


@dataclass
class ShortestWins:
    model: str
    params: dict[str, Any]
    kind: str = "cloze-test"
    cacheable: bool = False
    fail_on: str = ""
    protocols: frozenset[str] = frozenset({"cloze"})
    mode = None  # no mode option
    modes = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        for req in requests:
            if req.kind != "cloze":
                raise AssertionError(f"{req.request_id} is not a cloze request")
            if self.fail_on and self.fail_on in req.prompt:
                yield Response(req.request_id, self.kind, self.model, error="refused")
                continue
            yield Response(
                req.request_id,
                self.kind,
                self.model,
                option_logprobs=tuple(-float(len(o.text)) for o in req.options),
                option_token_counts=tuple(len(o.text.split()) for o in req.options),
            )


@backend("cloze-test")
def _make(name: str, *, mode: str = "cloze", fail_on: str = "", seed: int = 0) -> ShortestWins:
    del seed
    return ShortestWins(model=name, params={"mode": mode}, fail_on=fail_on)


def _shortest(texts: dict[str, str]) -> str:
    lengths = {role: len(" " + t) for role, t in texts.items()}
    best = min(lengths.values())
    winners = [r for r, n in lengths.items() if n == best]
    return winners[0] if len(winners) == 1 else "invalid"


# --- templates ---------------------------------------------------------------------------


def test_english_template_is_lm_evals_winogender_prompt():
    t = cloze.EN_CLOZE
    assert t.context_text == "{sentence} \u2018{Pronoun}\u2019 refers to the"
    assert t.continuation_text == " {candidate}"
    ctx = t.context("The nurse notified the patient that his shift would be ending.", "his")
    assert ctx == (
        "The nurse notified the patient that his shift would be ending. \u2018His\u2019 refers to the"
    )
    assert t.continuation("nurse") == " nurse"
    # str.capitalize, as lm-eval's Jinja pronoun.capitalize(): first letter up, the rest down
    assert t.context("x.", "THEY").endswith("\u2018They\u2019 refers to the")


def test_ukrainian_and_swedish_templates_end_before_a_nominative_candidate():
    uk = cloze.UK_CLOZE
    assert uk.context("Лікар прийшов, бо він хотів.", "він") == (
        "Лікар прийшов, бо він хотів. Тут «він» — це"
    )
    assert uk.continuation("лікар") == " лікар"
    sv = cloze.SV_CLOZE
    assert sv.context("Teknikern sa att han kom.", "han") == (
        "Teknikern sa att han kom. Här syftar \u201dhan\u201d på"
    )
    assert sv.continuation("teknikern") == " teknikern"


def test_template_describes_itself_for_the_manifest():
    d = cloze.EN_CLOZE.describe()
    assert d == {
        "name": "en-cloze-v1",
        "text": "{sentence} ‘{Pronoun}’ refers to the {candidate}",
        "context": "{sentence} ‘{Pronoun}’ refers to the",
        "continuation": " {candidate}",
    }


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{sentence} refers to", "must end with {candidate}"),
        ("{sentence} {candidate} is meant", "must end with {candidate}"),
        ("{sentence} {candidate} or {candidate}", "must end with {candidate}"),
        ("{pronoun} means {candidate}", r"must contain \{sentence\}"),
        ("{sentence} {option_a} {candidate}", "unknown placeholder"),
    ],
)
def test_bad_cloze_templates_are_clear_errors(text, match):
    with pytest.raises(TaskError, match=match):
        cloze.ClozeTemplate(text, name="bad")


def test_template_from_a_file(tmp_path):
    f = tmp_path / "mine.txt"
    f.write_text("{sentence} The word ‘{pronoun}’ means the {candidate}\n", encoding="utf-8")
    t = cloze.ClozeTemplate.load(f)
    assert t.name == "mine.txt"
    assert t.context("S.", "he") == "S. The word ‘he’ means the"


# --- requests ----------------------------------------------------------------------------


def _row(options, row_id="r1"):
    return ChoiceRow(row_id, "i1", "The cook thanked the maid because she helped.", "she", options)


def test_one_request_per_row_with_the_role_as_label_and_no_order():
    (req,) = cloze.build_requests(
        [_row((("the cook", "target", ("cook",)), ("the maid", "distractor", ())))],
        cloze.EN_CLOZE,
        {"r1": {"target": "cook", "distractor": "maid"}},
    )
    assert req.kind == "cloze" and req.order == "cloze" and req.request_id == "r1|cloze"
    assert req.prompt == "The cook thanked the maid because she helped. ‘She’ refers to the"
    assert req.options == (
        Option("target", " cook", "target", ("cook",)),
        Option("distractor", " maid", "distractor", ()),
    )


def test_every_forced_choice_task_has_cloze_and_nli_and_coref_do_not():
    for name in CLOZE_TASKS:
        t = get_task(name)
        assert "cloze" in t.protocols and t.protocols["cloze"].template is not None, name
    for name in ("swewinogender/nli", "winobias-uk/coref"):
        assert "cloze" not in get_task(name).protocols


def test_winogender_requests_match_lm_eval_format(shared_data):
    t = get_task("winogender-en")
    ds = t.data.load(shared_data / "winogender-en")
    reqs = t.protocols["cloze"].build_requests(ds, t.protocols["cloze"].template)
    assert len(reqs) == len(ds.table) == 720
    assert len({r.row_id for r in reqs}) == 720
    by = {r.row_id: r for r in reqs}
    r = by["double/technician.customer.1.male"]
    assert r.prompt == (
        "The technician told the customer that he could pay with cash. \u2018He\u2019 refers to the"
    )
    assert [(o.role, o.text) for o in r.options] == [
        ("occupation", " technician"),
        ("participant", " customer"),
    ]
    # lm-eval continues with the participant as given, "someone" included
    s = by["double/technician.someone.1.female"]
    assert s.prompt.endswith("\u2018She\u2019 refers to the")
    assert [o.text for o in s.options] == [" technician", " someone"]
    # every context is the published sentence + the fixed tail (as lm-eval's doc_to_text)
    table = ds.table.set_index("row_key")
    for req in reqs:
        row = table.loc[req.row_id]
        assert req.prompt == (
            f"{row['sentence_en']} \u2018{row['pronoun_en'].capitalize()}\u2019 refers to the"
        )
        assert req.options[0].text == " " + row["occupation_en"]
        assert req.options[1].text == " " + row["participant_en"]


def test_winobias_en_candidates_are_the_bare_occupations(shared_data):
    t = get_task("winobias-en")
    ds = t.data.load(shared_data / "winobias-en")
    reqs = t.protocols["cloze"].build_requests(ds, t.protocols["cloze"].template)
    assert len(reqs) == len(ds.table)
    first = reqs[0]
    assert first.prompt == (
        "The developer argued with the designer because he did not like the design. "
        "‘He’ refers to the"
    )
    assert [(o.role, o.text) for o in first.options] == [
        ("target", " developer"),
        ("distractor", " designer"),
    ]
    assert not any(o.text.startswith(" the ") for r in reqs for o in r.options)


def test_winopron_en_candidates_are_the_bare_nouns(shared_data):
    t = get_task("winopron-en")
    ds = t.data.load(shared_data / "winopron-en")
    reqs = t.protocols["cloze"].build_requests(ds, t.protocols["cloze"].template)
    assert len(reqs) == len(ds.table)
    table = ds.table.set_index("row_key")
    for req in reqs[:50]:
        row = table.loc[req.row_id]
        assert [o.text for o in req.options] == [
            " " + row["occupation_en"],
            " " + row["participant_en"],
        ]
        assert req.prompt.startswith(row["sentence_en"] + " ‘")


def test_winobias_uk_candidates_are_nominative():
    t = get_task("winobias-uk")
    ds = t.data.load(None)
    reqs = {
        r.row_id: r for r in t.protocols["cloze"].build_requests(ds, t.protocols["cloze"].template)
    }
    assert len(reqs) == len(ds.table)
    r = reqs["validation/type1/1/ff"]
    # the sentence has "з дизайнеркою" (instrumental); the candidate is the nominative
    assert "дизайнеркою" in r.prompt
    assert r.prompt.endswith("бо вона не вподобала новий макет. Тут «вона» — це")
    assert [(o.role, o.text) for o in r.options] == [
        ("target", " розробниця"),
        ("distractor", " дизайнерка"),
    ]


def test_winopron_uk_candidates_are_the_nominative_fields():
    t = get_task("winopron-uk")
    ds = t.data.load(None)
    reqs = t.protocols["cloze"].build_requests(ds, t.protocols["cloze"].template)
    assert len(reqs) == len(ds.table)  # sentences, not the dataset's lettered prompts
    by = {r.row_id: r for r in reqs}
    r = by["double/double-001-occupation-female"]
    assert r.prompt == (
        "Технікиня повідомила клієнтці, що вона вже завершила ремонт. Тут «вона» — це"
    )
    assert [o.text for o in r.options] == [" технікиня", " клієнтка"]


def test_swedish_candidates_are_the_premise_forms():
    t = get_task("swewinogender/resolution")
    ds = t.data.load(None)
    reqs = t.protocols["cloze"].build_requests(ds, t.protocols["cloze"].template)
    assert len(reqs) == len(ds.table)
    r = reqs[0]
    assert r.prompt == (
        "Snickaren lovade grannen att han skulle bygga klart staketet före helgen. "
        "Här syftar \u201dhan\u201d på"
    )
    assert [(o.role, o.text) for o in r.options] == [
        ("occupation", " snickaren"),
        ("participant", " grannen"),
    ]


# --- combining answers -------------------------------------------------------------------


def _req(row_id: str, roles=("occupation", "participant")) -> Request:
    return Request(
        f"{row_id}|cloze",
        "cloze",
        "ctx",
        tuple(Option(r, f" {r}", r) for r in roles),
        row_id,
        row_id,
        "cloze",
    )


def _resp(row_id: str, lp=None, counts=None, error=None, choice=None) -> Response:
    return Response(
        f"{row_id}|cloze",
        "x",
        "m",
        option_logprobs=lp,
        option_token_counts=counts,
        error=error,
        choice=choice,
    )


def test_combine_argmax_tie_error_and_columns():
    ids = ["a", "b", "c", "d", "e", "f", "g", "h"]
    reqs = [_req(i) for i in ids]
    responses = {
        r.request_id: r
        for r in (
            _resp("a", (-1.5, -2.25), (1, 2)),
            _resp("b", (-3.0, -0.5), (2, 1)),
            _resp("c", (-1.0, -1.0), (1, 1)),  # tie: invalid
            _resp("d", error="timeout"),  # error: unscored, NA
            _resp("e", (float("nan"), -1.0), (1, 1)),  # NaN: invalid
            _resp("f", (-1.0,), (1,)),  # wrong number of values: invalid
            _resp("g", choice="participant"),  # a backend that picks directly
            # "h": no response at all
        )
    }
    out = cloze.combine(reqs, responses).set_index("row_id")
    roles = out["prediction_role"]
    assert roles["a"] == "occupation" and roles["b"] == "participant"
    assert roles["c"] == "invalid" and roles["e"] == "invalid" and roles["f"] == "invalid"
    assert roles["g"] == "participant"
    assert pd.isna(roles["d"]) and pd.isna(roles["h"])
    oc = out["order_consistent"]
    assert all(oc[i] is True for i in "abcefg")
    assert pd.isna(oc["d"]) and pd.isna(oc["h"])
    assert out.loc["a", "logprob_occupation"] == -1.5
    assert out.loc["a", "logprob_participant"] == -2.25
    assert out.loc["b", "tokens_occupation"] == 2 and out.loc["b", "tokens_participant"] == 1
    assert pd.isna(out.loc["d", "logprob_occupation"]) and pd.isna(
        out.loc["d", "tokens_occupation"]
    )
    assert pd.isna(out.loc["f", "logprob_occupation"])
    assert str(out["logprob_occupation"].dtype) == "Float64"
    assert str(out["tokens_participant"].dtype) == "Int64"
    assert out.loc["d", "answer_cloze"] == "<error: timeout>"
    assert out.loc["a", "answer_cloze"] == "logprobs -1.5000 -2.2500"


def test_combine_names_columns_by_role():
    reqs = [_req("a", ("target", "distractor"))]
    out = cloze.combine(reqs, {"a|cloze": _resp("a", (-2.0, -1.0), (3, 4))})
    assert list(out.columns) == [
        "row_id",
        "logprob_target",
        "tokens_target",
        "logprob_distractor",
        "tokens_distractor",
        "prediction_role",
        "order_consistent",
        "answer_cloze",
        "orders_asked",
        "failed_requests",
    ]
    assert out["prediction_role"].iloc[0] == "distractor"


def test_a_row_with_two_cloze_requests_or_mixed_kinds_is_an_error():
    with pytest.raises(TaskError, match="more than one cloze request"):
        cloze.combine([_req("a"), _req("a")], {})
    letter = Request("a|x", "choice", "p", (), "a", "a", "x")
    with pytest.raises(TaskError, match="mixed"):
        cloze.is_cloze([_req("b"), letter])


# --- full runs ---------------------------------------------------------------------------


def _expected(t_name: str, rr) -> pd.Series:
    """Shortest continuation wins, per row, from the request-independent dataset fields."""
    table = rr.predictions
    if t_name == "swewinogender/resolution":
        cand = table.apply(
            lambda r: {"occupation": r["occupation_form"], "participant": r["participant_form"]},
            axis=1,
        )
    elif t_name == "winopron-uk":
        cand = table.apply(
            lambda r: {"occupation": r["occupation_uk"], "participant": r["participant_uk"]},
            axis=1,
        )
    else:
        raise AssertionError(t_name)
    return cand.map(_shortest)


@pytest.mark.parametrize("task_name", ["swewinogender/resolution", "winopron-uk"])
def test_full_run_scores_cloze_answers_with_the_task_scorer(task_name, tmp_path):
    rr = run(task_name, "cloze-test:short", n_boot=30, out=tmp_path / "run")
    pred = rr.predictions
    assert len(pred) == len(rr.dataset.table)
    want = _expected(task_name, rr)
    assert (pred["prediction_role"] == want).all()
    assert (pred["order_consistent"] == True).all()  # noqa: E712
    oc = rr.metrics.query("metric == 'option_order_consistency'")
    assert not oc.empty and (oc["value"] == 1.0).all()
    for role in ("occupation", "participant"):
        texts = pred[f"{role}_form" if task_name.startswith("swe") else f"{role}_uk"]
        assert (pred[f"logprob_{role}"] == -(texts.str.len() + 1)).all()
        assert (pred[f"tokens_{role}"] == 1).all()
    man = json.loads((tmp_path / "run" / "manifest.json").read_text(encoding="utf-8"))
    assert man["protocol"] == "cloze"
    assert any(NOTE in n for n in man["protocol_notes"])
    assert man["prompt_template"]["name"] == get_task(task_name).protocols["cloze"].template.name
    assert man["prompt_template"]["continuation"] == " {candidate}"
    assert man["requests"] == len(pred)
    md = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert NOTE in md and "cloze" in md
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert NOTE in html
    saved = pd.read_csv(tmp_path / "run" / "predictions.csv")
    assert {"logprob_occupation", "tokens_participant"} <= set(saved.columns)


def test_swedish_accuracy_follows_from_the_cloze_predictions():
    rr = run("swewinogender/resolution", "cloze-test:short", n_boot=20)
    pred = rr.predictions
    correct = (pred["prediction_role"] == pred["gold_referent"]).mean()
    acc = rr.metrics.query("metric == 'accuracy' and split == 'all'")["value"].iloc[0]
    assert math.isclose(acc, correct)


def test_failed_requests_are_excluded_and_counted():
    rr = run(
        "swewinogender/resolution",
        "cloze-test:short",
        n_boot=20,
        backend_options={"fail_on": "Snickaren"},
    )
    pred = rr.predictions
    failed = pred["premise"].str.contains("Snickaren")
    assert failed.sum() == 6
    assert pred.loc[failed, "prediction_role"].isna().all()
    assert pred.loc[failed, "logprob_occupation"].isna().all()
    assert rr.manifest["request_errors"] == 6
    acc = rr.metrics.query("metric == 'accuracy' and split == 'all'")
    assert int(acc["n"].iloc[0]) == len(pred) - 6
    kept = pred[~failed]
    assert math.isclose(
        acc["value"].iloc[0], (kept["prediction_role"] == kept["gold_referent"]).mean()
    )


def test_winobias_uk_cloze_run_has_one_request_per_row_and_order_consistency_one():
    rr = run("winobias-uk", "cloze-test:short", n_boot=20)
    assert rr.manifest["requests"] == len(rr.dataset.table)
    oc = rr.metrics.query("metric == 'option_order_consistency'")
    assert not oc.empty and (oc["value"].dropna() == 1.0).all()
    assert {"logprob_target", "logprob_distractor", "tokens_target"} <= set(rr.predictions)


def test_winogender_cloze_run(shared_data):
    rr = run("winogender-en", "cloze-test:short", data=shared_data / "winogender-en", n_boot=20)
    pred = rr.predictions
    want = pred.apply(
        lambda r: _shortest({"occupation": r["occupation_en"], "participant": r["participant_en"]}),
        axis=1,
    )
    assert (pred["prediction_role"] == want).all()
    acc = rr.metrics.query("metric == 'double_accuracy' and split == 'macro'")
    assert math.isclose(acc["value"].iloc[0], (want == pred["gold_role"]).mean())


def test_a_custom_cloze_template_text_is_used_and_recorded():
    text = "{sentence} Отже, «{pronoun}» — це {candidate}"
    rr = run("winobias-uk", "cloze-test:short", n_boot=10, template=text)
    assert rr.manifest["prompt_template"]["text"] == text
    assert rr.manifest["prompt_template"]["name"] == "custom-cloze"


def test_cloze_mode_errors_name_the_problem():
    with pytest.raises(TaskError, match=r"no cloze protocol.*winogender-en"):
        run("swewinogender/nli", "cloze-test:short", n_boot=10)
    with pytest.raises(TaskError, match="lettered prompt"):
        run(
            "winobias-uk",
            "cloze-test:short",
            template=PromptTemplate("{sentence}{option_a}{option_b}"),
        )
    with pytest.raises(TaskError, match=r"cloze template .* unknown placeholder"):
        run("winobias-uk", "cloze-test:short", template="{sentence} {option_a} {option_b}")
    with pytest.raises(TaskError, match="must end with"):
        run("winobias-uk", "cloze-test:short", template="{sentence} means")


def test_other_modes_keep_the_two_order_protocol():
    rr = run("winobias-uk", "baseline:first", n_boot=10)
    assert rr.manifest["protocol"] == "forced_choice"
    assert "protocol_notes" not in rr.manifest
    assert rr.manifest["requests"] == 2 * len(rr.dataset.table)


def test_a_cloze_template_with_a_lettered_backend_is_an_error():
    with pytest.raises(TaskError, match="needs a backend in mode=cloze"):
        run("winobias-uk", "baseline:first", template=cloze.UK_CLOZE)


def test_demo_table_says_how_each_row_was_asked():
    from winoscope.studies.demo import GEMMA_SPEC, model_options, summary_table

    assert model_options("winobias-uk", GEMMA_SPEC) == {"mode": "cloze"}
    assert model_options("swewinogender/resolution", GEMMA_SPEC) == {"mode": "cloze"}
    assert model_options("swewinogender/nli", GEMMA_SPEC) == {}
    assert model_options("winobias-uk", "baseline:first") == {}
    results = [
        run("winobias-uk", "baseline:first", n_boot=10),
        run("winobias-uk", "cloze-test:short", n_boot=10),
    ]
    rows = {
        cells[0]: cells
        for line in summary_table(results).splitlines()
        if line.startswith("| ")
        for cells in [[c.strip() for c in line.strip().strip("|").split(" | ")]]
    }
    assert rows["model"][1] == "mode"
    assert rows["baseline:first"][1] == "reference"
    assert rows["cloze-test:short"][1] == "cloze"
    oc = rows["model"].index("option_order_consistency")
    assert rows["cloze-test:short"][oc] == "1.000 (by construction)"
    assert rows["baseline:first"][oc].startswith("1.000 [")


# --- a real model: English Winogender against a plain unbatched reference ------------------


def test_winogender_cloze_loglikelihoods_equal_an_unbatched_lm_eval_style_reference(
    shared_data, tmp_path
):
    """Every row's two summed log-probabilities from ``winoscope.run`` in ``mode=cloze`` equal
    a reference written here: lm-eval's pair tokenisation (the continuation is what encoding
    context + continuation adds after the context's tokens), one full forward pass per pair,
    no batching, no cache; the context is lm-eval's winogender ``doc_to_text`` built from the
    published sentence and pronoun, the continuations " " + occupation / participant."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tiny_lm import build_tiny_gpt2

    torch.set_num_threads(1)
    model_dir = build_tiny_gpt2(tmp_path / "tiny", seed=3)
    data = shared_data / "winogender-en"
    rr = run(
        "winogender-en",
        f"hf:{model_dir}",
        data=data,
        n_boot=10,
        backend_options={"mode": "cloze", "batch_size": 16},
    )
    assert rr.manifest["protocol"] == "cloze" and rr.manifest["request_errors"] == 0
    pred = rr.predictions.set_index("row_key")
    assert len(pred) == 720

    tok = transformers.AutoTokenizer.from_pretrained(model_dir)
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir).eval()

    def loglikelihood(context: str, continuation: str) -> tuple[float, int]:
        ctx = tok(context)["input_ids"]
        cont = tok(context + continuation)["input_ids"][len(ctx) :]
        ids = torch.tensor([ctx + cont])
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1)
        return sum(float(logp[len(ctx) + k - 1, t]) for k, t in enumerate(cont)), len(cont)

    sentences = {}
    with (data / "all_sentences.tsv").open(encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            sentid, sentence = line.rstrip("\n").split("\t")[:2]
            sentences[sentid.removesuffix(".txt")] = sentence
    worst = 0.0
    for key, row in pred.iterrows():
        sentid = key.split("/", 1)[1]
        occupation, participant = sentid.split(".")[:2]
        context = f"{sentences[sentid]} \u2018{row['pronoun_en'].capitalize()}\u2019 refers to the"
        ref = {
            "occupation": loglikelihood(context, " " + occupation),
            "participant": loglikelihood(context, " " + participant),
        }
        for role, (value, n_tokens) in ref.items():
            worst = max(worst, abs(row[f"logprob_{role}"] - value))
            assert row[f"tokens_{role}"] == n_tokens, (key, role)
        a, b = ref["occupation"][0], ref["participant"][0]
        assert row["prediction_role"] == ("occupation" if a > b else "participant"), key
    print(f"largest |difference| {worst:.2e}")
    assert worst < 1e-4, worst


def test_a_cloze_predictions_file_rescores_to_the_same_metrics(tmp_path):
    out = tmp_path / "run"
    rr = run("winobias-uk", "cloze-test:short", n_boot=20, out=out)
    again = score("winobias-uk", out / "predictions.csv", n_boot=20)
    key = ["metric", "split", "type"]
    a = rr.metrics.set_index(key)["value"]
    b = again.metrics.set_index(key)["value"]
    pd.testing.assert_series_equal(a, b.loc[a.index])


def test_cli_mode_cloze_reaches_the_hf_backend(tmp_path):
    pytest.importorskip("torch")
    from typer.testing import CliRunner

    from tiny_lm import build_tiny_gpt2
    from winoscope.cli import app

    model_dir = build_tiny_gpt2(tmp_path / "tiny", seed=5)
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        [
            *("run", "winobias-uk", "--model", f"hf:{model_dir}", "--mode", "cloze"),
            *("--out", str(out), "-q", "--bootstrap", "20"),
        ],
    )
    assert res.exit_code == 0, res.output
    man = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert man["protocol"] == "cloze" and man["model"]["params"]["mode"] == "cloze"
    assert man["prompt_template"]["name"] == "uk-cloze-v1"
    pred = pd.read_csv(out / "predictions.csv")
    assert man["requests"] == len(pred)
    assert pred["logprob_target"].notna().all() and (pred["tokens_target"] >= 1).all()
    picked = (pred["logprob_target"] > pred["logprob_distractor"]).map(
        {True: "target", False: "distractor"}
    )
    assert (picked == pred["prediction_role"]).all()


def test_the_task_listing_names_cloze_where_it_is_available() -> None:
    from winoscope.api import list_tasks

    protocols = {r["task"]: r["protocols"] for r in list_tasks()}
    for name in (
        "winobias-uk",
        "winobias-en",
        "winopron-uk",
        "winopron-en",
        "winogender-en",
        "swewinogender/resolution",
    ):
        # the task's own protocols first; the leaderboard's published methods follow them
        assert protocols[name][:2] == ["forced_choice", "cloze"], name
        assert all("mean_token_logprob" in p for p in protocols[name][2:]), name
    assert protocols["winobias-en"] == ["forced_choice", "cloze"]
    assert "cloze" not in protocols["swewinogender/nli"]
    assert protocols["winobias-uk/coref"] == ["coref"]
