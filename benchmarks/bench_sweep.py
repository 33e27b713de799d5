"""What a sweep costs beyond the runs it is made of: 5 points as 5 ``winoscope.run`` calls vs
``winoscope.sweep`` over the same 5 points, in one process.

    python benchmarks/bench_sweep.py [--repeats 3] [--n-boot 2000] [--task winobias-uk]

Both sides steer the tiny test model (tests/tiny_lm.py, a 2-layer GPT-2) with the same
forward hook at the same 5 strengths, in ``texts`` mode, each into fresh directories (nothing
stored is reused). The sweep adds the paired comparison of each point with the reference (both
runs re-scored with the same resamples) and the sweep page with its figure (PNG, SVG, PDF).
Repeats alternate the two sides; printed: the medians, the ratio sweep / separate runs, and the
seconds the sweep adds. With a real model the runs' own time grows with the model and the
added time does not (it never asks the model), so the ratio falls towards 1.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

ALPHAS = (0, 1, 2, 5, 10)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--task", default="winobias-uk")
    args = ap.parse_args(argv)

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import winoscope
    from steering import AddVector, gender_direction
    from tiny_lm import build_tiny_gpt2

    torch.set_num_threads(1)
    root = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    path = build_tiny_gpt2(root / "model", seed=1)
    model, tok = AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    direction = gender_direction(model, tok)

    @contextlib.contextmanager
    def steered(alpha: float) -> Iterator[object]:
        handle = model.transformer.ln_f.register_forward_hook(AddVector(direction, alpha))
        try:
            yield winoscope.hf_model(model, tok, mode="texts", label="tiny-steer")
        finally:
            handle.remove()

    def separate(out: Path) -> None:
        for a in ALPHAS:
            with steered(a) as backend:
                winoscope.run(
                    args.task,
                    backend,
                    out=out / f"alpha={a}",
                    n_boot=args.n_boot,
                    tags={"alpha": a},
                )

    def swept(out: Path) -> None:
        winoscope.sweep(
            args.task, steered, values=list(ALPHAS), key="alpha", out=out, n_boot=args.n_boot
        )

    separate(root / "warm")  # imports, first-call costs
    times: dict[str, list[float]] = {"5 separate runs": [], "sweep of 5 points": []}
    for k in range(args.repeats):
        for label, fn in (("5 separate runs", separate), ("sweep of 5 points", swept)):
            start = time.perf_counter()
            fn(root / f"{label.replace(' ', '_')}-{k}")
            times[label].append(time.perf_counter() - start)
    med = {label: statistics.median(t) for label, t in times.items()}
    for label, t in times.items():
        print(f"{label:<18} median {med[label]:.2f} s (min {min(t):.2f}, max {max(t):.2f})")
    base, sweep = med["5 separate runs"], med["sweep of 5 points"]
    print(
        f"ratio sweep / separate runs: {sweep / base:.2f}x; the sweep adds {sweep - base:.2f} s "
        f"({args.task}, {args.n_boot} bootstrap replicates)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
