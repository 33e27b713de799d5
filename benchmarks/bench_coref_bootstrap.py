"""Coreference scoring cost: per-document counts, and the bootstrap by count weights against
materialised resampling, measured in the same run.

    python benchmarks/bench_coref_bootstrap.py [../shared/data/winobias-en/conll_format]

On the 3,168 English WinoBias documents scored for the stereotype reference resolver it times:

* per-document counts (MUC, B-cubed, CEAF-m/e with Kuhn-Munkres, BLANC, mentions): documents/s;
* one bootstrap replicate of the CoNLL F1 and link accuracy by the weights route
  (``W @ counts``; the route the scorer uses) and by materialising the resampled documents and
  summing them (the baseline), with the largest difference between the two routes' values.

Timings on a machine shared with other work are noisy; the load average is printed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

from winoscope.runs import runner
from winoscope.scoring import coref


def main(folder: Path) -> None:
    print(f"load average before: {os.getloadavg()}")
    rr = runner.run("winobias-en/coref", "baseline:stereotype", data=folder, n_boot=0)
    table = rr.predictions
    t0 = time.perf_counter()
    docs = coref.document_frame(table)
    t_docs = time.perf_counter() - t0
    print(
        f"per-document counts: {len(docs)} documents in {t_docs:.2f} s ({len(docs) / t_docs:.0f}/s)"
    )

    rng = np.random.default_rng(0)
    n_fast, n_slow = 2000, 40
    weights = rng.multinomial(len(docs), np.full(len(docs), 1 / len(docs)), size=n_fast).astype(
        float
    )
    t0 = time.perf_counter()
    fast = coref.subset_values(docs, weights)
    t_fast = (time.perf_counter() - t0) / n_fast
    t0 = time.perf_counter()
    slow = []
    for b in range(n_slow):
        resampled = docs.loc[docs.index.repeat(weights[b].astype(int))]
        slow.append(coref.subset_values(resampled))
    t_slow = (time.perf_counter() - t0) / n_slow
    diff = max(
        abs(float(fast[m][b]) - float(slow[b][m]))
        for b in range(n_slow)
        for m in ("conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "link_accuracy")
    )
    print(f"bootstrap replicate, weights route:      {1e3 * t_fast:.3f} ms ({n_fast} replicates)")
    print(f"bootstrap replicate, materialised route: {1e3 * t_slow:.3f} ms ({n_slow} replicates)")
    print(
        f"ratio materialised / weights: {t_slow / t_fast:.1f}x; largest value difference {diff:.2e}"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    default = (
        Path(__file__).resolve().parents[2] / "shared" / "data" / "winobias-en" / "conll_format"
    )
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
