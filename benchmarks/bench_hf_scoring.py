"""Log-likelihood scoring speed of the ``hf``/``gemma`` backends against a naive baseline.

    python benchmarks/bench_hf_scoring.py                 # Gemma 3 270M (needs the gemma extra)
    python benchmarks/bench_hf_scoring.py --model DIR     # any local causal LM directory
    python benchmarks/bench_hf_scoring.py --requests 48 --threads 1

The workload is the first ``--requests`` forced-choice requests of the bundled WinoBias-UK
sample (the demo's prompts). Every variant is timed in the same process, after a warm-up, and
printed as seconds per request and as a speed-up over the naive baseline measured in the same
run: one unbatched full forward pass over prompt + option per option, logits for every
position (what a plain reference implementation does). Timings on a shared machine are noisy:
repeat the run and compare ratios, not absolute seconds.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def naive_scores(model, tok, reqs, mode: str) -> list[list[float]]:  # type: ignore[no-untyped-def]
    import torch

    out = []
    for req in reqs:
        p = tok(req.prompt)["input_ids"]
        row = []
        for o in req.options:
            c = tok(" " + (o.label if mode == "letters" else o.text), add_special_tokens=False)
            c = c["input_ids"]
            with torch.inference_mode():
                logits = model(input_ids=torch.tensor([p + c])).logits[0]
            logp = torch.log_softmax(logits.float(), dim=-1)
            row.append(sum(float(logp[len(p) + k - 1, c[k]]) for k in range(len(c))))
        out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="local model directory (default: the Gemma 3 270M copy)")
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from winoscope.backends import create_backend
    from winoscope.backends.gemma import ensure_float_model
    from winoscope.tasks import get_task

    model_dir = Path(args.model) if args.model else ensure_float_model()
    task = get_task("winobias-uk")
    reqs = task.build_requests(task.load(None), task.default_template)[: args.requests]

    def backend(mode: str, batch_size: int):  # type: ignore[no-untyped-def]
        b = create_backend(f"hf:{model_dir}", mode=mode, batch_size=batch_size)
        b.load()
        return b

    variants = {
        "letters, batched": backend("letters", args.batch_size),
        "letters, batch 1": backend("letters", 1),
        "texts, batched, prompt cache reused": backend("texts", args.batch_size),
        "texts, batch 1, prompt cache reused": backend("texts", 1),
    }
    lm = variants["letters, batch 1"].load()
    list(variants["letters, batched"].respond(reqs[:2]))  # warm-up

    print(
        f"model {model_dir.name}, {len(reqs)} requests x 2 options, {args.threads} thread(s), "
        f"torch {torch.__version__}"
    )
    results: dict[str, tuple[float, list[list[float]]]] = {}
    for mode in ("letters", "texts"):
        start = time.perf_counter()
        ref = naive_scores(lm.model, lm.tokenizer, reqs, mode)
        results[f"{mode}, naive"] = (time.perf_counter() - start, ref)
        for name, b in variants.items():
            if not name.startswith(mode):
                continue
            start = time.perf_counter()
            got = {r.request_id: list(r.option_logprobs or ()) for r in b.respond(reqs)}
            results[name] = (time.perf_counter() - start, [got[r.request_id] for r in reqs])

    print(f"{'variant':40s} {'s/request':>10s} {'speed-up':>9s} {'max |diff|':>11s}")
    for name, (secs, scores) in results.items():
        mode = name.split(",")[0]
        base_secs, base = results[f"{mode}, naive"]
        diff = max(
            abs(a - b)
            for ra, rb in zip(scores, base, strict=True)
            for a, b in zip(ra, rb, strict=True)
        )
        print(f"{name:40s} {secs / len(reqs):10.3f} {base_secs / secs:8.2f}x {diff:11.2e}")


if __name__ == "__main__":
    main()
