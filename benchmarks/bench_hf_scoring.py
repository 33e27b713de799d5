"""Forward passes and wall time of the ``hf`` backend against lm-evaluation-harness's ``hf``.

    python benchmarks/bench_hf_scoring.py --tiny                       # tiny GPT-2, built here
    python benchmarks/bench_hf_scoring.py                              # Gemma 3 270M (gemma extra)
    python benchmarks/bench_hf_scoring.py --model DIR --lm-eval-python /path/to/venv/bin/python

Two workloads, the same requests for both sides:

- **letters**: the first ``--requests`` WinoBias-UK sample prompts (the lettered forced-choice
  prompt, raw, no chat template), options ``A``/``B``. lm-eval asks two log-likelihood
  requests per prompt, ``(prompt, " A")`` and ``(prompt, " B")``; winoscope reads both letters
  from one next-token distribution. lm-eval's ``HFLM`` does too by default: its
  ``logits_cache`` groups one-token continuations of one context into one row. The run
  therefore shows lm-eval with its default and with ``logits_cache=False`` (``lm-eval-nc``:
  one row per letter).
- **cloze**: English Winogender sentences (``../shared/data/winogender-en`` when present,
  else a few built in), lm-eval's ``winogender`` context ``{sentence} ‘{Pronoun}’ refers to the``
  with the two candidates as continuations; two log-likelihood requests per sentence.

A forward hook on the model counts forward calls and the sequences (batch rows) they carry.
lm-eval runs in another Python (``--lm-eval-python``, an environment with ``lm_eval``
installed, e.g. one made with ``pip install torch==<site version> lm-eval``), on the CPU in
float32 with the same batch size, and sends back its log-likelihoods, counts and time as
JSON; for cloze the largest difference between its per-continuation log-likelihoods and ours
is printed (they must agree: the same tokenisation, the same model). Timings on a shared
machine are noisy: compare ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WINOGENDER = ROOT.parent / "shared" / "data" / "winogender-en" / "all_sentences.tsv"
FALLBACK = [
    ("technician.customer.1.male", "The technician told the customer that he could pay with cash."),
    ("nurse.patient.0.female", "The nurse notified the patient that her shift would be ending."),
    ("chef.guest.1.neutral", "The chef cooked for the guest because they were hungry."),
]
PRONOUN = re.compile(r"\b(he|she|they|his|her|their|him|them)\b")

LM_EVAL_WORKER = r"""
import json, sys, time
import torch
cfg = json.load(sys.stdin)
torch.set_num_threads(cfg["threads"])
from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM
lm = HFLM(pretrained=cfg["model"], batch_size=cfg["batch_size"], device="cpu", dtype="float32",
          logits_cache=cfg["logits_cache"])
counts = {"calls": 0, "rows": 0, "tokens": 0}
def hook(module, args, kwargs):
    ids = kwargs.get("input_ids", args[0] if args else None)
    counts["calls"] += 1
    counts["rows"] += int(ids.shape[0])
    counts["tokens"] += int(ids.numel())
lm.model.register_forward_pre_hook(hook, with_kwargs=True)
reqs = [Instance("loglikelihood", {}, (c, x), i) for i, (c, x) in enumerate(cfg["requests"])]
lm.loglikelihood(reqs[:2], disable_tqdm=True)  # warm-up
counts.update(calls=0, rows=0, tokens=0)
start = time.perf_counter()
out = lm.loglikelihood(reqs, disable_tqdm=True)
seconds = time.perf_counter() - start
json.dump({"loglikelihoods": [float(ll) for ll, _ in out], "seconds": seconds, **counts},
          sys.stdout)
"""


def winogender_pairs(n: int) -> list[tuple[str, str, str, str]]:
    """(id, context, occupation continuation, participant continuation)."""
    rows: list[tuple[str, str]] = FALLBACK
    if WINOGENDER.is_file():
        with WINOGENDER.open(encoding="utf-8") as fh:
            rows = [(r["sentid"], r["sentence"]) for r in csv.DictReader(fh, delimiter="\t")]
    out = []
    for sentid, sentence in rows[:n]:
        occupation, participant = sentid.split(".")[:2]
        m = PRONOUN.search(sentence)
        if m is None:
            continue
        context = f"{sentence} ‘{m.group(1).capitalize()}’ refers to the"
        out.append((sentid, context, " " + occupation, " " + participant))
    return out


def cloze_requests(n: int) -> list[Any]:
    """The first ``n`` Winogender sentences as cloze requests, occupation (A) against
    participant (B) as continuations of lm-eval's context."""
    from winoscope.records import Option, Request

    return [
        Request(
            sid,
            "cloze",
            ctx,
            (Option("A", a, "occupation"), Option("B", b, "participant")),
            sid,
            sid,
        )
        for sid, ctx, a, b in winogender_pairs(n)
    ]


class Counter:
    """Counts forward calls, batch rows and input tokens through a pre-forward hook."""

    def __init__(self, model: Any) -> None:
        self.calls = self.rows = self.tokens = 0
        self.handle = model.register_forward_pre_hook(self._hook, with_kwargs=True)

    def _hook(self, _module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        self.calls += 1
        self.rows += int(ids.shape[0])
        self.tokens += int(ids.numel())

    def reset(self) -> None:
        self.calls = self.rows = self.tokens = 0


def run_ours(backend: Any, requests: list[Any]) -> dict[str, Any]:
    lm = backend.load()
    list(backend.respond(requests[:2]))  # warm-up
    counter = Counter(lm.model)
    try:
        start = time.perf_counter()
        got = {r.request_id: r for r in backend.respond(requests)}
        seconds = time.perf_counter() - start
    finally:
        counter.handle.remove()
    errors = [r.error for r in got.values() if r.error]
    if errors:
        raise SystemExit(f"winoscope answered {len(errors)} request(s) with errors: {errors[0]}")
    lls = [v for req in requests for v in (got[req.request_id].option_logprobs or ())]
    return {
        "loglikelihoods": lls,
        "seconds": seconds,
        "calls": counter.calls,
        "rows": counter.rows,
        "tokens": counter.tokens,
    }


def run_lm_eval(
    python: str, model_dir: Path, pairs: list[tuple[str, str]], args: Any, logits_cache: bool
) -> Any:
    cfg = {
        "logits_cache": logits_cache,
        "model": str(model_dir),
        "batch_size": args.batch_size,
        "threads": args.threads,
        "requests": pairs,
    }
    proc = subprocess.run(
        [python, "-c", LM_EVAL_WORKER],
        input=json.dumps(cfg),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"lm-eval worker failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="local model directory (default: the Gemma 3 270M copy)")
    parser.add_argument("--tiny", action="store_true", help="build and use the tiny GPT-2")
    parser.add_argument("--requests", type=int, default=32, help="prompts per workload")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lm-eval-python", help="a Python with lm_eval installed")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--only", choices=("letters", "cloze"), help="run one workload")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from winoscope.backends import create_backend
    from winoscope.tasks import get_task

    if args.tiny:
        sys.path.insert(0, str(ROOT / "tests"))
        import tempfile

        from tiny_lm import build_tiny_gpt2

        model_dir = build_tiny_gpt2(Path(tempfile.mkdtemp()) / "tiny", seed=1)
    elif args.model:
        model_dir = Path(args.model)
    else:
        from winoscope.backends.hf.gemma import ensure_float_model

        model_dir = ensure_float_model()

    task = get_task("winobias-uk")
    letters = task.primary.build_requests(task.data.load(None), task.primary.template)[
        : args.requests
    ]
    cloze = cloze_requests(args.requests)
    workloads = {
        "letters": (letters, [(r.prompt, " " + o.label) for r in letters for o in r.options]),
        "cloze": (cloze, [(r.prompt, o.text) for r in cloze for o in r.options]),
    }
    print(
        f"model {model_dir.name}, batch size {args.batch_size}, {args.threads} thread(s), "
        f"torch {torch.__version__}"
    )
    figures: dict[str, Any] = {}
    header = f"{'workload':9s} {'side':10s} {'prompts':>7s} {'calls':>6s} {'rows':>6s} "
    print(header + f"{'tokens':>8s} {'seconds':>8s}")
    for name, (reqs, pairs) in workloads.items():
        if args.only and name != args.only:
            continue
        mode = "letters" if name == "letters" else "cloze"
        backend = create_backend(
            f"hf:{model_dir}", mode=mode, batch_size=args.batch_size, chat=False, device="cpu"
        )
        ours = run_ours(backend, reqs)
        sides = {"winoscope": ours}
        if args.lm_eval_python:
            sides["lm-eval"] = run_lm_eval(args.lm_eval_python, model_dir, pairs, args, True)
            if name == "letters":  # without its one-token cache lm-eval runs each letter
                sides["lm-eval-nc"] = run_lm_eval(
                    args.lm_eval_python, model_dir, pairs, args, False
                )
        for side, fig in sides.items():
            print(
                f"{name:9s} {side:10s} {len(reqs):7d} {fig['calls']:6d} {fig['rows']:6d} "
                f"{fig['tokens']:8d} {fig['seconds']:8.2f}"
            )
        entry: dict[str, Any] = {
            side: {k: v for k, v in fig.items() if k != "loglikelihoods"}
            for side, fig in sides.items()
        }
        if "lm-eval" in sides:
            theirs = sides["lm-eval"]
            entry["calls_ratio"] = ours["calls"] / max(theirs["calls"], 1)
            entry["rows_ratio"] = ours["rows"] / max(theirs["rows"], 1)
            entry["time_ratio"] = ours["seconds"] / theirs["seconds"]
            print(
                f"{name:9s} ours / lm-eval: forward calls {entry['calls_ratio']:.2f}x, "
                f"rows {entry['rows_ratio']:.2f}x, wall time {entry['time_ratio']:.2f}x"
            )
            if "lm-eval-nc" in sides:
                nc = sides["lm-eval-nc"]
                entry["calls_ratio_no_cache"] = ours["calls"] / max(nc["calls"], 1)
                entry["rows_ratio_no_cache"] = ours["rows"] / max(nc["rows"], 1)
                entry["time_ratio_no_cache"] = ours["seconds"] / nc["seconds"]
                print(
                    f"{name:9s} ours / lm-eval logits_cache=False: forward calls "
                    f"{entry['calls_ratio_no_cache']:.2f}x, rows "
                    f"{entry['rows_ratio_no_cache']:.2f}x, wall time "
                    f"{entry['time_ratio_no_cache']:.2f}x"
                )
            if name == "cloze":
                diff = max(
                    abs(a - b)
                    for a, b in zip(ours["loglikelihoods"], theirs["loglikelihoods"], strict=True)
                )
                entry["max_abs_loglikelihood_diff"] = diff
                print(
                    f"cloze     {len(pairs)} continuation log-likelihoods: largest |ours - "
                    f"lm-eval| = {diff:.2e}"
                )
        figures[name] = entry
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
