"""The openai backend against a real vLLM server, beside a bare aiohttp client on the same server.

Run on demand (not part of the test suite), with a Python that has vLLM (or point
``WINOSCOPE_VLLM_PYTHON`` at one)::

    .venv-vllm/bin/python benchmarks/bench_openai_vllm.py [--requests 512] [--concurrency 64]

It builds the tests' tiny GPT-2, serves it with vLLM (float32, eager, on the CPU) and, in one
run against that one server, sends the same requests at the same concurrency through

1. ``openai:`` (``create_backend(...).respond``): its own workers, retries, parsing;
2. a bare ``aiohttp`` client: the very bodies ``openai:`` sends (``backend.encode``), posted by
   ``concurrency`` workers, each answer read as JSON and nothing more;

for ``letters`` (text prompt, top-20 log-probabilities) and for ``cloze`` and ``letters`` with
``tokenizer=`` (token-id prompts, echoed log-probabilities; the tokenisation is part of the
backend's time). Each pair runs three times, alternating which goes first; the best rate of each is kept. The figure
is the ratio of the backend's requests per second to the bare client's (the target: 0.9 or more
at 64 in flight). ``run_pair`` is importable for other benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from tiny_lm import build_tiny_gpt2
from vllm_server import vllm_server
from winoscope.backends import create_backend
from winoscope.records import Option, Request

PAIRS = [("лікар", "медсестра"), ("водій", "секретарка"), ("юрист", "вихователька"),
         ("механік", "прибиральниця"), ("програміст", "бухгалтерка")]  # fmt: skip


def workload(n: int, cloze: bool) -> list[Request]:
    out = []
    for i in range(n):
        a, b = PAIRS[i % len(PAIRS)]
        if cloze:
            prompt = f"{a.capitalize()} {i} подякував, бо він допоміг. «Він» — це"
            opts = (Option("A", " " + a, "target"), Option("B", " " + b, "distractor"))
        else:
            prompt = f"Речення {i}: {a} і {b}.\nA. {a}\nB. {b}\nВідповідь (A або B):"
            opts = (Option("A", a, "target"), Option("B", b, "distractor"))
        kind = "cloze" if cloze else "choice"
        out.append(Request(f"q{i}", kind, prompt, opts, row_id=f"r{i}", item_id=f"i{i}"))
    return out


def backend_rate(backend: Any, reqs: list[Request]) -> float:
    started = time.perf_counter()
    answers = list(backend.respond(reqs))
    elapsed = time.perf_counter() - started
    failed = [r.error for r in answers if not r.ok]
    if failed:
        raise RuntimeError(f"{len(failed)} failed: {failed[0]}")
    return len(reqs) / elapsed


def raw_rate(url: str, bodies: list[bytes], concurrency: int) -> float:
    import aiohttp

    async def main() -> float:
        it = iter(bodies)
        conn = aiohttp.TCPConnector(limit=concurrency)
        headers = {"Content-Type": "application/json"}
        async with aiohttp.ClientSession(connector=conn, headers=headers) as session:

            async def worker() -> None:
                for body in it:
                    async with session.post(url, data=body) as r:
                        assert r.status == 200, await r.text()
                        json.loads(await r.read())

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return len(bodies) / (time.perf_counter() - started)

    return asyncio.run(main())


def run_pair(
    base_url: str,
    model: str,
    reqs: list[Request],
    concurrency: int,
    rounds: int = 3,
    **options: Any,
) -> dict[str, float]:
    """Requests per second of ``openai:`` and of a bare aiohttp client on the same bodies."""
    backend = create_backend(f"openai:{model}", base_url=base_url, concurrency=concurrency,
                             **options)  # fmt: skip
    bodies = [backend.encode(r, backend.plan(r)) for r in reqs]  # type: ignore[attr-defined]
    url = base_url + backend.endpoint()  # type: ignore[attr-defined]
    ours, raw = 0.0, 0.0
    for i in range(rounds):  # alternating which goes first (the server's caches warm up)
        if i % 2:
            ours = max(ours, backend_rate(backend, reqs))
        raw = max(raw, raw_rate(url, bodies, concurrency))
        if not i % 2:
            ours = max(ours, backend_rate(backend, reqs))
    return {"openai_rps": ours, "aiohttp_rps": raw, "ratio": ours / raw}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=512)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--model", type=Path, default=None, help="a model folder (default: tiny)")
    ap.add_argument("--only", default="", help="run the cases whose label contains this")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or build_tiny_gpt2(Path(tmp) / "tiny", n_positions=1024, n_head=1)
        with vllm_server(model, name="m", max_model_len=1024) as server:
            warm = workload(64, cloze=False)
            run_pair(server.base_url, "m", warm, args.concurrency, rounds=1, mode="letters")
            cases = [
                ("letters, text prompt", False, {"mode": "letters"}),
                ("letters, token ids", False, {"mode": "letters", "tokenizer": str(model)}),
                ("cloze, token ids", True, {"mode": "cloze", "tokenizer": str(model)}),
            ]
            for label, cloze, options in cases:
                if args.only not in label:
                    continue
                reqs = workload(args.requests, cloze)
                fig = run_pair(server.base_url, "m", reqs, args.concurrency, args.rounds, **options)
                print(
                    f"{label:22s} {args.concurrency} in flight: openai {fig['openai_rps']:7.1f}"
                    f" req/s, aiohttp {fig['aiohttp_rps']:7.1f} req/s, ratio {fig['ratio']:.3f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
