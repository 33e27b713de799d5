"""The SQLite response store, and resumable runs against a real local server."""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import time
from pathlib import Path

import pytest

import winoscope
from winoscope.backends import create_backend
from winoscope.backends.store import STORE_FILE, ResponseStore, plan_run
from winoscope.errors import BackendError
from winoscope.records import Item, Mention, Option, Request, Response
from winoscope.testing.openai_server import StubBehaviour, pick_letter, serve_in_thread

TEMPLATE = {"name": "t", "text": "{sentence}"}

# annotations a baseline may read: never part of what the model sees, nor of the content hash
ANNOTATED = Item(
    item_id="j",
    row_id="s",
    language="uk",
    sentence="Лікар найняв медсестру, бо він мав багато пацієнтів.",
    mentions=(Mention("Лікар", 0, 5, role="target", gender="male"),),
    pronoun=Mention("він", 27, 30, role="pronoun", gender="male"),
)


def req(i: int, prompt: str | None = None) -> Request:
    return Request(
        request_id=f"q{i}",
        kind="choice",
        prompt=prompt or f"prompt {i}",
        options=(Option("A", "лікар", "target"), Option("B", "медсестра", "distractor")),
        row_id=f"r{i}",
        item_id=f"i{i}",
    )


def test_scope_depends_on_every_setting() -> None:
    """The key the store itself gives (``ResponseStore.scope``, what ``plan_run`` asks for)."""
    st = ResponseStore(":memory:")
    base = st.scope("openai", "m", {"mode": "chat", "temperature": 0.0}, TEMPLATE)
    assert base == st.scope("openai", "m", {"temperature": 0.0, "mode": "chat"}, TEMPLATE)
    variants = [
        st.scope("hf", "m", {"mode": "chat", "temperature": 0.0}, TEMPLATE),
        st.scope("openai", "m2", {"mode": "chat", "temperature": 0.0}, TEMPLATE),
        st.scope("openai", "m", {"mode": "chat", "temperature": 0.5}, TEMPLATE),
        st.scope("openai", "m", {"mode": "letters", "temperature": 0.0}, TEMPLATE),
        st.scope("openai", "m", {"mode": "chat", "temperature": 0.0}, {"name": "u"}),
        st.scope("openai", "m", {"mode": "chat", "temperature": 0.0}, None),
    ]
    assert len({base, *variants}) == 7
    st.close()


def test_a_run_asks_under_its_backends_parameters(tmp_path: Path) -> None:
    """``plan_run``'s scope changes with the backend's parameters and the template (a stored
    answer is never served to other settings)."""
    reqs = [req(0)]
    st = ResponseStore(":memory:")
    url = {"base_url": "http://127.0.0.1:9/v1"}

    def scope(template: dict[str, str] | None = None, **options: object) -> str:
        b = create_backend("openai:m", **url, **options)
        return plan_run(b, reqs, st, template=template).scope

    base = scope(TEMPLATE, temperature=0.0)
    assert base == scope(TEMPLATE, temperature=0.0)
    assert len({base, scope(TEMPLATE, temperature=0.5), scope(None, temperature=0.0)}) == 3
    st.close()


def test_roundtrip_keeps_every_answer_field(tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "s.sqlite") as st:
        sc = st.scope("openai", "m", {"mode": "chat"}, TEMPLATE)
        other = st.scope("openai", "m2", {"mode": "chat"}, TEMPLATE)
        st.put(sc, "h1", Response("x", "openai", "m", text="B. медсестра", latency_s=0.5))
        st.put(sc, "h2", Response("y", "openai", "m", option_logprobs=(-0.25, -math.inf)))
        st.put(sc, "h4", Response("w", "openai", "m", error="HTTP 500"))  # never stored
        st.put(other, "h1", Response("x", "openai", "m2", text="A"))
        got = st.get_scope(sc)
        assert len(st) == 3
        assert st.get_scope(other)["h1"].text == "A"
        assert st.get_scope("no-such-scope") == {}
    assert set(got) == {"h1", "h2"}
    assert got["h1"].text == "B. медсестра" and got["h1"].cached and got["h1"].latency_s == 0.5
    assert got["h2"].option_logprobs == (-0.25, -math.inf)
    assert got["h2"].text is None and got["h2"].error is None


def test_roundtrip_keeps_resolver_clusters_as_tuples(tmp_path: Path) -> None:
    if "clusters" not in Response.__dataclass_fields__:
        pytest.skip("Response has no clusters field in this version")
    clusters = (((0, 5), (10, 12)), ((20, 22),))
    with ResponseStore(tmp_path / "s.sqlite") as st:
        st.put("s", "h", Response("z", "file", "m", clusters=clusters))  # type: ignore[call-arg]
        assert st.get_scope("s")["h"].clusters == clusters  # type: ignore[attr-defined]


def test_scopes_are_described_in_the_file(tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "s.sqlite") as st:
        sc = st.scope("openai", "m", {"mode": "chat", "temperature": 0.0}, TEMPLATE)
    con = sqlite3.connect(tmp_path / "s.sqlite")
    (text,) = con.execute("SELECT description FROM scopes WHERE scope = ?", (sc,)).fetchone()
    con.close()
    assert json.loads(text) == {
        "backend": "openai",
        "model": "m",
        "params": {"mode": "chat", "temperature": 0.0},
        "template": TEMPLATE,
    }
    assert sc == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_store_uses_wal_and_commits_an_answer_without_a_further_write(tmp_path: Path) -> None:
    """A quiet store's last answer is committed by its timer (within ``COMMIT_WITHIN_S``): a
    second connection sees it with no further write or close."""
    path = tmp_path / "s.sqlite"
    st = ResponseStore(path)
    st.put("s", "h1", Response("x", "openai", "m", text="A"))
    other = sqlite3.connect(path)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    deadline = time.monotonic() + 10
    while other.execute("SELECT count(*) FROM responses").fetchone()[0] == 0:
        assert time.monotonic() < deadline, "the answer was never committed"
        time.sleep(0.01)
    other.close()
    st.close()


def test_answers_that_arrive_together_share_a_commit(tmp_path: Path) -> None:
    """A burst of 3,000 answers takes a handful of commits, not one each; closing commits the
    rest, and every answer is in the file."""
    path = tmp_path / "s.sqlite"
    st = ResponseStore(path)
    statements: list[str] = []
    st._db.set_trace_callback(statements.append)
    for i in range(3000):
        st.put("s", f"h{i}", Response(f"r{i}", "openai", "m", option_logprobs=(-0.5, -1.5)))
    st.close()
    commits = sum(1 for s in statements if s.strip().upper() == "COMMIT")
    assert 3 <= commits <= 300, commits  # 1,024 at most in one commit
    other = sqlite3.connect(path)
    assert other.execute("SELECT count(*) FROM responses").fetchone()[0] == 3000
    other.close()


def test_a_file_that_is_not_a_store_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "responses.sqlite"
    bad.write_text("this is not a database " * 100)
    with pytest.raises(BackendError, match=r"responses\.sqlite"):
        ResponseStore(bad)


def test_plan_asks_duplicates_once_and_fans_the_answer_out(tmp_path: Path) -> None:
    reqs = [req(0), req(1, "same"), req(2, "same")]
    b = create_backend("openai:m", base_url="http://127.0.0.1:9/v1")
    without = plan_run(b, reqs, None, template=TEMPLATE)
    assert len(without.to_ask) == 3 and without.record(Response("q1", "openai", "m")) != []
    with ResponseStore(tmp_path / "s.sqlite") as st:
        plan = plan_run(b, reqs, st, template=TEMPLATE)
        assert [r.request_id for r in plan.to_ask] == ["q0", "q1"]
        fanned = plan.record(Response("q1", "openai", "m", text="A"))
        assert [r.request_id for r in fanned] == ["q1", "q2"]
        again = plan_run(b, reqs, st, template=TEMPLATE)
        assert set(again.cached) == {"q1", "q2"} and [r.request_id for r in again.to_ask] == ["q0"]
        assert again.cached["q2"].request_id == "q2" and again.cached["q2"].text == "A"
        fresh = plan_run(b, reqs, st, template=TEMPLATE, resume=False)
        assert fresh.cached == {} and len(fresh.to_ask) == 2


def test_baselines_bypass_the_store(tmp_path: Path) -> None:
    rr = winoscope.run("winobias-uk", "baseline:first", out=tmp_path / "run", n_boot=10)
    assert not (tmp_path / "run" / STORE_FILE).exists()
    assert rr.manifest["responses"]["store"] is None


# ------------------------------------------------------------------ resumable runs


def run_stub(url: str, out: Path, **options: object) -> winoscope.RunResult:
    resume = bool(options.pop("resume", True))
    model = str(options.pop("model", "openai:stub"))
    return winoscope.run(
        "winobias-uk",
        model,
        out=out,
        n_boot=20,
        resume=resume,
        backend_options={"base_url": url, "backoff": 0.01, **options},
    )


def test_a_finished_run_repeated_costs_zero_calls(tmp_path: Path) -> None:
    with serve_in_thread() as srv:
        first = run_stub(srv.url, tmp_path / "run")
        n_first = len(srv.calls)
        second = run_stub(srv.url, tmp_path / "run")
        assert len(srv.calls) == n_first
    n = first.manifest["requests"]
    assert first.manifest["responses"] == {
        "cached": 0,
        "asked": n,
        "errors": 0,
        "store": STORE_FILE,
    }
    assert second.manifest["responses"] == {
        "cached": n,
        "asked": 0,
        "errors": 0,
        "store": STORE_FILE,
    }
    cols = ["row_id", "prediction_role"]
    assert first.predictions[cols].equals(second.predictions[cols])
    assert first.metrics.equals(second.metrics)
    with ResponseStore(tmp_path / "run" / STORE_FILE) as st:
        assert len(st) == n


def collect(url: str, db: Path, model: str = "openai:stub", **options: object) -> dict:
    """The request phase of a run on the bundled sample, through the store at ``db``."""
    from winoscope.runs.runner import collect_responses
    from winoscope.tasks import get_task

    t = get_task("winobias-uk")
    template = options.pop("template", None) or t.primary.template
    reqs = t.primary.build_requests(t.data.load(None), template)
    resume = bool(options.pop("resume", True))
    b = create_backend(model, base_url=url, **options)
    counts: dict = {}
    with ResponseStore(db) as st:
        collect_responses(
            b,
            reqs,
            quiet=True,
            store=st,
            template={"name": template.name, "text": template.text},
            resume=resume,
            counts=counts,
        )
    return counts


def test_stored_answers_never_reach_another_model_or_parameter_set(tmp_path: Path) -> None:
    db = tmp_path / STORE_FILE
    with serve_in_thread() as srv:
        first = collect(srv.url, db)
        n = first["asked"]
        assert collect(srv.url, db)["cached"] == n  # same settings: all reused
        other_model = collect(srv.url, db, model="openai:other")
        warmer = collect(srv.url, db, temperature=0.3)
        letters = collect(srv.url, db, mode="letters")
        models = [c.model for c in srv.calls]
    assert other_model["cached"] == warmer["cached"] == letters["cached"] == 0
    assert other_model["asked"] == warmer["asked"] == letters["asked"] == n
    assert models.count("stub") == 3 * n and models.count("other") == n
    with ResponseStore(db) as st:
        assert len(st) == 4 * n


def test_another_template_misses_the_store(tmp_path: Path) -> None:
    from winoscope.protocols.forced_choice import PromptTemplate

    db = tmp_path / STORE_FILE
    text = "Речення: {sentence}\nХто «{pronoun}»?\nA. {option_a}\nB. {option_b}\nВідповідь:"
    with serve_in_thread() as srv:
        collect(srv.url, db)
        other = collect(srv.url, db, template=PromptTemplate(text, name="short"))
        # the same text under another name is another template too: never mixed
        renamed = collect(srv.url, db, template=PromptTemplate(text, name="short-v2"))
    assert other["cached"] == 0 and renamed["cached"] == 0


def test_failed_requests_are_asked_again_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    beh = StubBehaviour(faults=("500",), poison=("Лікар",))
    with serve_in_thread(beh) as srv:
        first = run_stub(srv.url, out, max_retries=0)
        failed = first.manifest["request_errors"]
        assert failed > 0
        assert first.predictions["prediction_role"].isna().sum() > 0
        beh.poison = ()  # the server recovers
        second = run_stub(srv.url, out)
    assert second.manifest["responses"]["asked"] == failed
    assert second.manifest["request_errors"] == 0
    assert second.manifest["responses"]["cached"] == first.manifest["requests"] - failed


def test_no_resume_asks_everything_again(tmp_path: Path) -> None:
    db = tmp_path / STORE_FILE
    with serve_in_thread() as srv:
        first = collect(srv.url, db)
        n = len(srv.calls)
        again = collect(srv.url, db, resume=False)
        assert len(srv.calls) == 2 * n
    assert again == {"cached": 0, "asked": first["asked"], "errors": 0}
    with ResponseStore(db) as st:
        assert len(st) == first["asked"]  # rows overwritten, not duplicated


def test_answers_match_the_server_and_are_in_the_predictions(tmp_path: Path) -> None:
    from winoscope.tasks import get_task

    t = get_task("winobias-uk")
    reqs = t.primary.build_requests(t.data.load(None), t.primary.template)
    with serve_in_thread() as srv:
        rr = run_stub(srv.url, tmp_path / "run")
    pred = rr.predictions.set_index("row_id")
    for r in reqs:
        assert pred.loc[r.row_id, f"answer_{r.order}"] == pick_letter(r.prompt), r.request_id
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["responses"]["asked"] == len(reqs)


def test_content_hash_is_pinned() -> None:
    """Stored answers are keyed by this hash: it must not change between versions, and it
    covers only what the model sees (kind, prompt, option labels and texts)."""
    from winoscope.records import Option, Request

    def make(**kw: object) -> Request:
        base: dict = dict(
            request_id="x",
            kind="choice",
            prompt="Хто «він»? A або B",
            options=(Option("A", "лікар", "target"), Option("B", "медсестра", "distractor")),
            row_id="r",
            item_id="i",
        )
        return Request(**{**base, **kw})

    pinned = "0481caa39b2f445d48ae79094bc4e236345edd4a39d4c65b3185e57176dadb23"
    assert make().content_hash == pinned
    same = make(request_id="y", row_id="s", item_id="j", order="BA", item=ANNOTATED)
    assert same.content_hash == pinned
    roles = (Option("A", "лікар", "distractor", ("лікарка",)), Option("B", "медсестра", "target"))
    assert make(options=roles).content_hash == pinned
    assert make(prompt="Хто «вона»? A або B").content_hash != pinned
    assert make(kind="nli").content_hash != pinned
