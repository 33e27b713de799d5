"""One prepared check of the ``hf`` backend on a CUDA machine (runs on the CPU with ``--tiny``).

    python benchmarks/cuda_check.py --install --out results/      # on the GPU machine
    python benchmarks/cuda_check.py --tiny --device cpu           # the same steps, small, here

Such a machine usually has its own site torch and transformers and no network, so nothing here
downloads anything. The steps, each printed and written to ``OUT/cuda_check.json``:

a. **install** (``--install``): ``pip install --no-deps --no-build-isolation -e .`` into the
   running Python, with torch's version and location printed before and after (they must not
   change), then ``pip install --dry-run --report`` of ``.[hf]`` to show what pip would
   change with dependencies (needs an index; reported, not fatal, when there is none).
b. **parity**: the tiny GPT-2 test fixture (built here from ``tests/tiny_lm.py``, seeded) scores
   WinoBias-UK letters, option texts and English Winogender cloze on the CPU in float32 and on
   the device in float32 and bfloat16: rows whose prediction differs from the CPU's and the
   largest log-probability difference.
c. **throughput**: a randomly initialised model from Gemma 3 12B's text configuration (48
   layers, hidden 3840, 16 heads, 8 key/value heads, head dim 256, vocabulary 262,208,
   sliding window 1024; weights do not change the cost; ``random_gemma.py``) in bfloat16:
   requests/s and tokens/s for letter and cloze scoring at batch sizes 1, 8, 32 and auto, and
   the time this implies for 3,348 prompts (WinoBias-UK preview) and 4,320 (WinoPron-UK).
   ``--tiny`` uses a 2-layer model of the same shape otherwise. Prompts are tokenised with ``--tokenizer`` (a directory
   with Gemma 3's tokenizer files, e.g. the Gemma 3 270M copy's) or else the fixture's
   byte-level tokenizer, which cuts Ukrainian into more tokens than Gemma's would: tokens/s is
   the figure that carries over.
d. **out of memory**: ``batch_size=auto`` on long prompts with the allocator capped a little
   above the model's size, so the first batches really run out of memory; every answer must
   come back once and equal the batch-size-1 answer. Without CUDA (or when nothing ran out of
   memory) a hook raises ``torch.cuda.OutOfMemoryError`` for batches above 4 instead, and the
   output says it was simulated.
e. **vLLM** (:mod:`vllm_cuda`): the ``vllm:`` backend on Gemma 3 12B's text configuration with
   random weights (``load_format="dummy"``), letters and cloze on WinoBias-UK- and
   WinoPron-UK-sized workloads; skipped with its reason without CUDA or vLLM.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from random_gemma import gemma3_text_model, load_tokenizer, model_config, random_backend  # noqa: E402
from vllm_cuda import vllm_throughput  # noqa: E402

PROMPT_SETS = {"WinoBias-UK preview (1,674 rows)": 3348, "WinoPron-UK": 4320}


def say(text: str) -> None:
    print(text, flush=True)


# -- a. install ------------------------------------------------------------------------------


def torch_where(python: str) -> str:
    code = "import torch; print(torch.__version__, torch.__file__)"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return (out.stdout or out.stderr).strip()


def install_check() -> dict[str, Any]:
    py = sys.executable
    before = torch_where(py)
    say(f"[a] torch before: {before}")
    cmd = [py, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-e", str(ROOT)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    after = torch_where(py)
    say(f"[a] pip install --no-deps -e . -> exit {res.returncode}; torch after: {after}")
    dry = subprocess.run(
        [py, "-m", "pip", "install", "--dry-run", "--quiet", "--report", "-", f"{ROOT}[hf]"],
        capture_output=True,
        text=True,
        check=False,
    )
    planned: list[str] | str
    try:
        report = json.loads(dry.stdout)
        planned = [
            f"{i['metadata']['name']}=={i['metadata']['version']}" for i in report["install"]
        ]
    except (ValueError, KeyError):
        planned = f"no report (exit {dry.returncode}): {dry.stderr.strip()[-300:]}"
    say(f"[a] pip install --dry-run '.[hf]' would install: {planned}")
    return {
        "torch_before": before,
        "torch_after": after,
        "torch_kept": before == after,
        "install_exit": res.returncode,
        "install_tail": res.stderr.strip()[-500:],
        "dry_run_hf": planned,
    }


# -- shared workloads ------------------------------------------------------------------------


def letter_requests() -> list[Any]:
    from winoscope.tasks import get_task

    task = get_task("winobias-uk")
    return list(task.primary.build_requests(task.data.load(None), task.primary.template))


def cloze_requests() -> list[Any]:
    from bench_hf_scoring import cloze_requests as winogender_cloze

    return winogender_cloze(720)


def predictions(backend: Any, requests: list[Any]) -> dict[str, tuple[float, ...]]:
    got = {r.request_id: r for r in backend.respond(requests)}
    bad = [r.error for r in got.values() if r.error]
    if bad or len(got) != len(requests):
        raise SystemExit(f"{len(bad)} errors, {len(got)} of {len(requests)} answered: {bad[:1]}")
    return {k: tuple(r.option_logprobs or ()) for k, r in got.items()}


def compare(ref: dict[str, tuple[float, ...]], other: dict[str, tuple[float, ...]]) -> dict:
    def pick(v: tuple[float, ...]) -> int:
        return -1 if len(set(v)) < len(v) else max(range(len(v)), key=v.__getitem__)

    differing = sorted(k for k in ref if pick(ref[k]) != pick(other[k]))
    diff = max(abs(a - b) for k in ref for a, b in zip(ref[k], other[k], strict=True))
    return {"rows": len(ref), "differing_rows": differing, "max_abs_logprob_diff": diff}


# -- b. parity -------------------------------------------------------------------------------


def parity(device: str) -> dict[str, Any]:
    from tiny_lm import build_tiny_gpt2
    from winoscope.backends import create_backend

    model_dir = build_tiny_gpt2(Path(tempfile.mkdtemp()) / "tiny", seed=1)
    work = {
        "letters": ("letters", letter_requests()),
        "texts": ("texts", letter_requests()),
        "cloze": ("cloze", cloze_requests()),
    }
    out: dict[str, Any] = {}
    for name, (mode, reqs) in work.items():
        spec = f"hf:{model_dir}"
        ref = predictions(create_backend(spec, mode=mode, device="cpu", dtype="float32"), reqs)
        row: dict[str, Any] = {}
        for dtype in ("float32", "bfloat16"):
            b = create_backend(spec, mode=mode, device=device, dtype=dtype, batch_size="auto")
            row[dtype] = compare(ref, predictions(b, reqs))
            c = row[dtype]
            say(
                f"[b] {name:7s} {device} {dtype:8s} vs cpu float32: {len(c['differing_rows'])} of "
                f"{c['rows']} rows differ, largest |logprob diff| {c['max_abs_logprob_diff']:.2e}"
                + (f" (e.g. {', '.join(c['differing_rows'][:3])})" if c["differing_rows"] else "")
            )
        out[name] = row
    return out


# -- c. throughput ---------------------------------------------------------------------------


def cycle(requests: list[Any], n: int) -> list[Any]:
    from dataclasses import replace

    return [replace(requests[i % len(requests)], request_id=f"p{i}") for i in range(n)]


def sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def throughput(device: str, tiny: bool, tokenizer_dir: str | None, prompts: int) -> dict:
    tok = load_tokenizer(tokenizer_dir)
    start = time.perf_counter()
    model = gemma3_text_model(*model_config(tiny, tok, device))
    n_params = sum(p.numel() for p in model.parameters())
    say(
        f"[c] random Gemma 3 {'tiny' if tiny else '12B'} text model: {n_params / 1e9:.2f} B "
        f"parameters, bfloat16, built in {time.perf_counter() - start:.1f} s"
    )
    out: dict[str, Any] = {"parameters": n_params, "runs": []}
    work = {
        "letters": cycle(letter_requests(), prompts),
        "cloze": cycle(cloze_requests(), prompts),
    }
    for name, reqs in work.items():
        for bs in (1, 8, 32, "auto"):
            b = random_backend(model, tok, device, bs)  # cloze requests score as cloze
            n = min(len(reqs), 16 if tiny else 32) if bs == 1 else len(reqs)
            sub = reqs[:n]
            list(b.respond(sub[:2]))  # warm-up
            sync(device)
            t0 = time.perf_counter()
            got = list(b.respond(sub))
            sync(device)
            secs = time.perf_counter() - t0
            if any(r.error for r in got):
                raise SystemExit(f"throughput run failed: {next(r.error for r in got if r.error)}")
            if name == "letters":
                tokens = sum(len(b.prompt_ids(r.prompt)) for r in sub)
            else:  # the context and every option's continuation
                tokens = sum(len(tok(r.prompt)["input_ids"]) for r in sub) + sum(
                    sum(x.option_token_counts or ()) for x in got
                )
            run = {
                "workload": name,
                "batch_size": bs,
                "batch_size_used": b.sizer.size,
                "prompts": n,
                "seconds": secs,
                "requests_per_s": n / secs,
                "tokens_per_s": tokens / secs,
                "tokens_per_prompt": tokens / n,
            }
            out["runs"].append(run)
            say(
                f"[c] {name:7s} batch {bs!s:4s} (used {b.sizer.size:2d}): {n:5d} prompts in "
                f"{secs:7.2f} s = {run['requests_per_s']:8.2f} req/s, "
                f"{run['tokens_per_s']:10.0f} tokens/s ({run['tokens_per_prompt']:.0f} per prompt)"
            )
    for name in work:
        best = max(
            (r for r in out["runs"] if r["workload"] == name), key=lambda r: r["requests_per_s"]
        )
        for label, size in PROMPT_SETS.items():
            est = size / best["requests_per_s"]
            out.setdefault("estimates", []).append(
                {
                    "workload": name,
                    "prompt_set": label,
                    "prompts": size,
                    "seconds": est,
                    "batch_size": best["batch_size"],
                }
            )
            say(
                f"[c] {name:7s} {label}: {size} prompts ~ {est:.0f} s "
                f"(batch {best['batch_size']}, from the measured rate)"
            )
    del model
    return out


# -- d. out of memory ------------------------------------------------------------------------


def oom_check(device: str, tiny: bool, tokenizer_dir: str | None) -> dict[str, Any]:
    import gc

    import torch

    from winoscope.records import Request

    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    tok = load_tokenizer(tokenizer_dir)
    model = gemma3_text_model(*model_config(tiny, tok, device))
    base = letter_requests()[:24]
    long = [
        Request(f"long{i}", r.kind, (r.prompt + "\n") * 6, r.options, r.row_id, r.item_id)
        for i, r in enumerate(base)
    ]
    ref_b = random_backend(model, tok, device, 1)
    ref = predictions(ref_b, long)
    simulated = not device.startswith("cuda")
    handle = None
    if not simulated:
        torch.cuda.empty_cache()
        total = torch.cuda.get_device_properties(device).total_memory
        weights = sum(p.numel() * p.element_size() for p in model.parameters())
        cap = min(1.0, (weights + 1.5 * 2**30) / total)
        torch.cuda.set_per_process_memory_fraction(cap, device)
    auto = random_backend(model, tok, device, "auto")
    auto.sizer.size = 64 if not simulated else 16
    if simulated:

        def hook(_m: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            ids = kwargs.get("input_ids", args[0] if args else None)
            if ids.shape[0] > 4:
                raise torch.cuda.OutOfMemoryError(f"simulated: batch of {ids.shape[0]}")

        handle = model.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        got = predictions(auto, long)
    finally:
        if handle is not None:
            handle.remove()
        if not simulated:
            torch.cuda.set_per_process_memory_fraction(1.0, device)
    result = {
        "simulated": simulated,
        "start": 64 if not simulated else 16,
        "final_batch_size": auto.sizer.size,
        "halvings": auto.sizer.history,
        "oom_retries": auto.sizer.oom_retries,
        "answers": len(got),
        "requests": len(long),
        **compare(ref, got),
    }
    if not simulated and auto.sizer.oom_retries == 0:
        result["note"] = "nothing ran out of memory under the cap"
    say(
        f"[d] batch_size=auto {'(simulated OOM above 4)' if simulated else '(real OOM)'}: "
        f"start {result['start']}, halvings {result['halvings']}, {result['answers']} of "
        f"{result['requests']} answered once each, {len(result['differing_rows'])} differ from "
        f"batch 1, largest diff {result['max_abs_logprob_diff']:.2e}"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true", help="small model, for a CPU dry run")
    parser.add_argument("--install", action="store_true", help="run step a (pip install)")
    parser.add_argument("--tokenizer", help="directory with Gemma 3's tokenizer files")
    parser.add_argument("--prompts", type=int, help="prompts per throughput run (256; tiny 32)")
    parser.add_argument("--skip", default="", help="steps to skip, e.g. c,d")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--tensor-parallel", type=int, default=1, help="vLLM's GPUs (step e)")
    parser.add_argument("--out", default=".", help="folder for cuda_check.json")
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    import transformers

    say(
        f"torch {torch.__version__} (CUDA {torch.version.cuda}), transformers "
        f"{transformers.__version__}, device {args.device}"
        + (f" = {torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else "")
    )
    skip = set(filter(None, args.skip.split(",")))
    report: dict[str, Any] = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "device": args.device,
        "tiny": args.tiny,
    }
    if args.install and "a" not in skip:
        report["install"] = install_check()
    steps = {
        "b": ("parity", lambda: parity(args.device)),
        "c": (
            "throughput",
            lambda: throughput(
                args.device, args.tiny, args.tokenizer, args.prompts or (32 if args.tiny else 256)
            ),
        ),
        "d": ("out_of_memory", lambda: oom_check(args.device, args.tiny, args.tokenizer)),
        "e": (
            "vllm",
            lambda: vllm_throughput(
                letter_requests(), cloze_requests(), cycle, args.tokenizer, args.tensor_parallel
            ),
        ),
    }
    for key, (name, step) in steps.items():
        if key in skip:
            continue
        t0 = time.perf_counter()
        report[name] = step()
        say(f"[{key}] {name} done in {time.perf_counter() - t0:.1f} s")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cuda_check.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    say(f"wrote {out / 'cuda_check.json'}")


if __name__ == "__main__":
    main()
