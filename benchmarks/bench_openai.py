"""Throughput of the openai backend against a local OpenAI-compatible server with 50 ms latency.

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_openai.py                   # our backend + resume figures
    .venv/bin/python benchmarks/bench_openai.py --lm-eval-python LM_EVAL_VENV/bin/python
    .venv/bin/python benchmarks/bench_openai.py --httpx            # httpx AsyncClient beside it

What it measures, all in one run against the same server process:

1. The WinoPron-UK-sized workload (4,320 prompts in the default forced-choice template) at
   concurrency 1, 8, 64 and 256: requests per second and the fraction of the ideal
   ``concurrency / latency`` (a server that answers in exactly ``latency`` seconds cannot be
   used faster than that). Concurrency 1 and 8 use a prefix of the workload (``--small``
   requests) so the run takes seconds, not minutes; the rate does not depend on the count.
2. With ``--httpx``: a bare ``httpx.AsyncClient`` (the ``openai`` SDK's default transport)
   posting the same bodies at the same concurrency, for the choice of HTTP library.
3. lm-eval's ``local-chat-completions`` model with ``num_concurrent`` on the same server and
   prompts (its own ``generate_until``), only when ``--lm-eval-python`` names a Python that can
   import lm_eval: the ratio of our throughput to lm-eval's at each concurrency.
4. A finished 10,000-request run (at the default concurrency, 32) repeated into the same
   store: the requests it sends (should be zero) and its time as a share of the first run's.

The server (``winoscope.testing.openai_server`` on aiohttp.web) runs in its own process so it
does not share the client's event loop. Objects alive before the measurements are moved out of
the garbage collector's way (``gc.freeze()``), as a long-running process would have them; the
backend itself does not do this. Timings on a shared or busy machine are noisy: run it more
than once and read the ratios, which are measured in the same run. Figures: see the README.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from winoscope.backends import create_backend
from winoscope.backends.store import ResponseStore
from winoscope.protocols.choice_rows import ChoiceRow
from winoscope.protocols.forced_choice import UK_DEFAULT, build_requests
from winoscope.records import Request
from winoscope.runs.runner import collect_responses

WINOPRON_UK_PROMPTS = 4320
OCCUPATIONS = [
    ("лікар", "медсестра"),
    ("програміст", "бухгалтерка"),
    ("водій", "секретарка"),
    ("будівельник", "перукарка"),
    ("юрист", "вихователька"),
    ("механік", "прибиральниця"),
]


def workload(n: int, tag: str = "") -> list[Request]:
    """``n`` forced-choice prompts (n/2 rows in both option orders), all distinct."""
    rows = []
    for i in range((n + 1) // 2):
        a, b = OCCUPATIONS[i % len(OCCUPATIONS)]
        rows.append(
            ChoiceRow(
                row_id=f"{tag}r{i}",
                item_id=f"{tag}i{i}",
                sentence=f"{a.capitalize()} ({tag}{i}) попросив {b}, бо він поспішав.",
                pronoun="він",
                options=((a, "target", ()), (b, "distractor", ())),
            )
        )
    return build_requests(rows, UK_DEFAULT)[:n]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVER_PID: list[int] = []


def server_cpu_seconds() -> float | None:
    """CPU time used so far by the server process (Linux /proc), else None."""
    if not SERVER_PID:
        return None
    try:
        fields = Path(f"/proc/{SERVER_PID[0]}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def server(latency: float) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "winoscope.testing.openai_server",
            "--port",
            str(port),
            "--latency",
            str(latency),
        ],
        stdout=subprocess.DEVNULL,
    )
    SERVER_PID[:] = [proc.pid]
    try:
        deadline = time.time() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if time.time() > deadline or proc.poll() is not None:
                raise RuntimeError("benchmark server did not start")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(10)


def time_backend(url: str, reqs: list[Request], concurrency: int) -> float:
    b = create_backend("openai:bench", base_url=url, concurrency=concurrency, max_retries=0)
    t0 = time.perf_counter()
    n = 0
    for resp in b.respond(reqs):
        if resp.error is not None:
            raise RuntimeError(resp.error)
        n += 1
    assert n == len(reqs)
    return time.perf_counter() - t0


def time_with_store(url: str, reqs: list[Request], concurrency: int, db: Path) -> float:
    b = create_backend("openai:bench", base_url=url, concurrency=concurrency, max_retries=0)
    template = {"name": UK_DEFAULT.name, "text": UK_DEFAULT.text}
    counts: dict[str, int] = {}
    with ResponseStore(db) as st:
        t0 = time.perf_counter()
        collect_responses(b, reqs, quiet=True, store=st, template=template, counts=counts)
        dt = time.perf_counter() - t0
    if counts["errors"]:
        raise RuntimeError(f"{counts['errors']} errors")
    return dt


LM_EVAL_SCRIPT = r"""
import json, sys, time
from lm_eval.api.instance import Instance
from lm_eval.models.openai_completions import LocalChatCompletion
from lm_eval.models.api_models import JsonChatStr
url, path, conc = sys.argv[1], sys.argv[2], int(sys.argv[3])
prompts = json.load(open(path))
lm = LocalChatCompletion(model="bench", base_url=url + "/chat/completions",
                         num_concurrent=conc, max_retries=1, tokenizer_backend=None,
                         tokenized_requests=False, timeout=60)
reqs = [Instance(request_type="generate_until", doc={}, idx=i,
                 arguments=(JsonChatStr(json.dumps([{"role": "user", "content": p}],
                                                   ensure_ascii=False)),
                            {"max_gen_toks": 16, "until": [], "do_sample": False}))
        for i, p in enumerate(prompts)]
t0 = time.perf_counter()
out = lm.generate_until(reqs, disable_tqdm=True)
dt = time.perf_counter() - t0
assert len(out) == len(prompts), len(out)
print(json.dumps({"seconds": dt, "n": len(out), "answers": sorted(set(out))[:5]}))
"""


def time_lm_eval(python: str, url: str, reqs: list[Request], concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        prompts = Path(tmp) / "prompts.json"
        prompts.write_text(json.dumps([r.prompt for r in reqs], ensure_ascii=False))
        script = Path(tmp) / "lm_eval_bench.py"
        script.write_text(LM_EVAL_SCRIPT)
        env = dict(os.environ, TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1")
        proc = subprocess.run(
            [python, str(script), url, str(prompts), str(concurrency)],
            capture_output=True,
            text=True,
            env=env,
            timeout=1800,
        )
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-2000:])
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        return float(result["seconds"])


def time_httpx(url: str, reqs: list[Request], concurrency: int) -> float | None:
    """Seconds for ``reqs`` through a bare httpx AsyncClient (None when httpx is missing)."""
    try:
        import httpx
    except ImportError:
        return None
    import asyncio

    b = create_backend("openai:bench", base_url=url)
    bodies = [b.encode(r) for r in reqs]  # type: ignore[attr-defined]
    target = url + "/chat/completions"

    async def go() -> float:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(limits=limits, timeout=60) as client:
            it = iter(bodies)

            async def worker() -> None:
                for body in it:
                    r = await client.post(
                        target, content=body, headers={"Content-Type": "application/json"}
                    )
                    r.raise_for_status()
                    json.loads(r.content)

            t0 = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return time.perf_counter() - t0

    return asyncio.run(go())


def lm_eval_importable(python: str | None) -> bool:
    if not python:
        return False
    probe = subprocess.run(
        [python, "-c", "import lm_eval, tenacity, aiohttp"], capture_output=True, timeout=120
    )
    if probe.returncode != 0:
        print(f"lm-eval[api] is not importable in {python}: its comparison is skipped")
    return probe.returncode == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--n", type=int, default=WINOPRON_UK_PROMPTS)
    ap.add_argument("--small", type=int, default=400, help="requests at concurrency 1 and 8")
    ap.add_argument("--levels", default="1,8,64,256")
    ap.add_argument("--lm-eval-python", default=None, help="a Python with lm-eval installed")
    ap.add_argument("--httpx", action="store_true", help="also time a bare httpx AsyncClient")
    ap.add_argument("--rerun-n", type=int, default=10_000)
    ap.add_argument(
        "--rerun-concurrency", type=int, default=32, help="the first 10k run's concurrency"
    )
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    lat = args.latency
    lm_eval = args.lm_eval_python if lm_eval_importable(args.lm_eval_python) else None
    print(
        f"server latency {lat * 1000:.0f} ms; workload {args.n} prompts; cores {os.cpu_count()}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    gc.collect()
    gc.freeze()
    with server(lat) as url:
        time_backend(url, workload(300, "warm"), 64)  # warm up both processes
        for c in levels:
            n = args.n if c >= 64 else min(args.n, args.small if c == 1 else 4 * args.small)
            reqs = workload(n)
            cpu0, srv0 = time.process_time(), server_cpu_seconds()
            dt = time_backend(url, reqs, c)
            client_us = 1e6 * (time.process_time() - cpu0) / n
            srv1 = server_cpu_seconds()
            server_us = None if srv0 is None or srv1 is None else 1e6 * (srv1 - srv0) / n
            ideal = c / lat
            rate = n / dt
            extra = ""
            if args.httpx:
                hx_reqs = reqs[:1000]  # httpx slows down at 64 and more: fewer requests
                hx = time_httpx(url, hx_reqs, c)
                if hx is not None:
                    extra += f"  httpx {len(hx_reqs) / hx / ideal:.3f} of ideal"
            if lm_eval:
                lm_rate = n / time_lm_eval(lm_eval, url, reqs, c)
                extra += (
                    f"  lm-eval {lm_rate / ideal:.3f} of ideal, ours/lm-eval {rate / lm_rate:.2f}x"
                )
            cpu = f"  CPU/request: client {client_us:.0f} us" + (
                "" if server_us is None else f", server {server_us:.0f} us"
            )
            print(
                f"concurrency {c:4d}: {n:5d} requests in {dt:7.2f} s = {rate:8.1f}/s, "
                f"ideal {ideal:7.0f}/s, fraction {rate / ideal:.3f}{extra}{cpu}",
                flush=True,
            )

        with tempfile.TemporaryDirectory() as tmp:
            c = max(levels)
            reqs = workload(args.n, "store")
            dt = time_with_store(url, reqs, c, Path(tmp) / "a.sqlite")
            rate = args.n / dt
            print(
                f"with the response store, concurrency {c}: {rate:8.1f}/s, "
                f"fraction {rate / (c / lat):.3f}",
                flush=True,
            )

            big = workload(args.rerun_n, "rerun")
            db = Path(tmp) / "rerun.sqlite"
            rc = args.rerun_concurrency
            first = time_with_store(url, big, rc, db)
            b = create_backend("openai:bench", base_url=url, concurrency=rc)
            counts: dict[str, int] = {}
            with ResponseStore(db) as st:
                t0 = time.perf_counter()
                collect_responses(
                    b,
                    big,
                    quiet=True,
                    store=st,
                    template={"name": UK_DEFAULT.name, "text": UK_DEFAULT.text},
                    counts=counts,
                )
                second = time.perf_counter() - t0
            print(
                f"rerun of a finished {args.rerun_n}-request run (concurrency {rc}): "
                f"{counts['asked']} requests "
                f"sent, {b.stats.get('http_calls', 0)} HTTP calls; {second:.3f} s vs {first:.2f} s "
                f"first = {100 * second / first:.1f}% of the first run's time",
                flush=True,
            )


if __name__ == "__main__":
    main()
