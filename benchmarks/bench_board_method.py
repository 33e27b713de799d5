"""One forward pass per question against the evaluators' two, for the leaderboard's methods.

The authors' evaluators send each letter as its own prompt (prompt + "A", prompt + "B"): two
forward passes per question. Where every letter is one token after the same context, winoscope
reads both letters' log-probabilities from one pass. Both request patterns run here on the same
backend and model, over the same questions (WinoBias-UK's bundled sample by
``counterbalanced_ab_mean_token_logprob_v1``), and the benchmark prints each pattern's time, the
ratio, and the largest difference between their option scores (and whether every prediction
agrees). Unbatched (``--batch-size 1``) both patterns compute each score from the same pass
shape and agree exactly; batched, float32 sums over other batch shapes differ in the last
digits.

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_board_method.py [--model gemma:270m] [--repeats 3]
        [--batch-size auto|N] [--questions N]

``--model`` is any ``hf:`` spec or ``gemma:270m`` (default; the gemma extra); ``vllm:DIR`` runs
the same comparison in the vLLM environment, where both patterns cost the same: the in-process
``vllm:`` backend hands vLLM one sequence per option either way, and vLLM's prefix cache computes
the shared prompt once (Gemma 3 270M, 40 questions: 70.4 s against 69.3 s, identical scores).
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from typing import Any


def questions() -> list[Any]:
    from winoscope.tasks import get_task

    task = get_task("winobias-uk")
    ds = task.data.load()
    binding = task.protocols["counterbalanced_ab_mean_token_logprob_v1"]
    return binding.build_requests(ds, binding.template)


def per_letter(requests: list[Any]) -> list[Any]:
    """The evaluators' pattern: one request per letter."""
    return [
        replace(r, request_id=f"{r.request_id}#{o.label}", options=(o,))
        for r in requests
        for o in r.options
    ]


def timed(backend: Any, requests: list[Any]) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    got = {r.request_id: r for r in backend.respond(requests)}
    return time.perf_counter() - start, got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="gemma:270m")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", default="auto", help="the backend's batch_size")
    parser.add_argument("--questions", type=int, default=0, help="the first N (0: all)")
    args = parser.parse_args()
    import torch

    from winoscope.backends import close_backend, create_backend

    torch.set_num_threads(args.threads)
    options = {} if args.model.startswith("vllm:") else {"batch_size": args.batch_size}
    backend = create_backend(args.model, **options)
    whole = questions()[: args.questions or None]
    split = per_letter(whole)
    timed(backend, whole[:4])  # load the model and warm up
    ours, theirs = [], []
    try:
        for _ in range(args.repeats):
            t, one = timed(backend, whole)
            ours.append(t)
            t, two = timed(backend, split)
            theirs.append(t)
    finally:
        close_backend(backend)  # a vllm: engine is shut down in order, not left to exit
    worst, same = 0.0, 0
    for r in whole:
        a = one[r.request_id].option_logprobs
        b = tuple(two[f"{r.request_id}#{o.label}"].option_logprobs[0] for o in r.options)
        worst = max(worst, *(abs(x - y) for x, y in zip(a, b, strict=True)))
        same += (a[0] > a[1]) == (b[0] > b[1])
    o, t = statistics.median(ours), statistics.median(theirs)
    print(f"model {args.model}, {len(whole)} questions, {len(split)} letter prompts")
    print(f"one pass per question: {o:.2f} s; one prompt per letter: {t:.2f} s; ratio {t / o:.2f}x")
    print(f"largest option-score difference {worst:.2e}; predictions equal {same}/{len(whole)}")


if __name__ == "__main__":
    main()
