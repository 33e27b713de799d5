"""English Winogender under cloze: winoscope's whole run against lm-evaluation-harness itself.

    python scripts/check_cloze_lm_eval.py --lm-eval-python /path/to/venv/bin/python
    python scripts/check_cloze_lm_eval.py --lm-eval-python PY --model DIR   # another model
    python scripts/check_cloze_lm_eval.py --lm-eval-python PY --model DIR --rows 60

winoscope side: ``winoscope.run("winogender-en", "hf:MODEL", backend_options={"mode":
"cloze"})`` on the published sentences (``--data``, default ``../shared/data/winogender-en``):
the task builds each context and continuation, the backend scores them, the predictions table
holds ``logprob_occupation`` / ``logprob_participant``.

lm-eval side (another Python with ``lm_eval`` installed): each row becomes the document its
``winogender`` task reads (``sentence``, ``pronoun``, ``occupation``, ``participant``, as in
the ``oskarvanderwal/winogender`` set), rendered by lm-eval's own ``winogender.yaml``
(``doc_to_text``, ``doc_to_choice``, the default ``target_delimiter``) and scored by its
``HFLM`` on the CPU in float32.

Printed: how many contexts and continuations are identical, the largest difference between the
two sides' per-continuation log-likelihoods, and the accuracy of each (lm-eval's ``acc``; our
``double_accuracy``). The default model is the tiny random GPT-2 of the tests, built here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "winogender-en"

WORKER = r"""
import ast, json, os, sys
import torch, yaml
import lm_eval
from lm_eval.api.instance import Instance
from lm_eval.api.task import TaskConfig
from lm_eval.models.huggingface import HFLM
from lm_eval.utils import apply_template
cfg = json.load(sys.stdin)
torch.set_num_threads(cfg["threads"])
task_yaml = os.path.join(os.path.dirname(lm_eval.__file__), "tasks", "winogender", "winogender.yaml")
with open(task_yaml, encoding="utf-8") as fh:
    task = yaml.safe_load(fh)
delimiter = task.get("target_delimiter", TaskConfig().target_delimiter)
rendered, instances = [], []
for doc in cfg["docs"]:
    context = apply_template(task["doc_to_text"], doc)
    choices = ast.literal_eval(apply_template(task["doc_to_choice"], doc))
    rendered.append([context, [delimiter + c for c in choices]])
    for c in choices:
        instances.append(Instance("loglikelihood", doc, (context, delimiter + c), len(instances)))
lm = HFLM(pretrained=cfg["model"], batch_size=cfg["batch_size"], device="cpu", dtype="float32")
out = lm.loglikelihood(instances, disable_tqdm=True)
json.dump({"rendered": rendered, "loglikelihoods": [float(ll) for ll, _ in out],
           "task_yaml": task_yaml, "version": getattr(lm_eval, "__version__", "?")}, sys.stdout)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm-eval-python", required=True, help="a Python with lm_eval installed")
    parser.add_argument("--model", help="local causal LM directory (default: the tiny GPT-2)")
    parser.add_argument("--data", default=str(DATA), help="Winogender data folder")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rows", type=int, help="only the first N sentences (a quick check)")
    args = parser.parse_args()

    import torch

    import winoscope
    from winoscope.tasks import get_task

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(args.model) if args.model else _tiny(Path(tmp))
        data = _first_rows(Path(args.data), args.rows, Path(tmp)) if args.rows else args.data
        rr = winoscope.run(
            "winogender-en",
            f"hf:{model_dir}",
            data=data,
            n_boot=10,
            backend_options={"mode": "cloze", "batch_size": args.batch_size},
        )
        task = get_task("winogender-en")
        requests = {
            r.row_id: r
            for r in task.protocols["cloze"].build_requests(
                rr.dataset, task.protocols["cloze"].template
            )
        }
        pred = rr.predictions
        docs = [
            {
                "sentence": r["sentence_en"],
                "pronoun": r["pronoun_en"],
                "occupation": r["occupation_en"],
                "participant": r["participant_en"],
                "label": 0 if r["gold_role"] == "occupation" else 1,
            }
            for r in pred.to_dict("records")
        ]
        cfg = {
            "model": str(model_dir),
            "docs": docs,
            "batch_size": args.batch_size,
            "threads": args.threads,
        }
        proc = subprocess.run(
            [args.lm_eval_python, "-c", WORKER],
            input=json.dumps(cfg),
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        raise SystemExit(f"lm-eval worker failed:\n{proc.stderr[-3000:]}")
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    same_context = same_continuations = 0
    worst = 0.0
    right = 0
    lls = theirs["loglikelihoods"]
    for i, (row, (context, continuations)) in enumerate(
        zip(pred.to_dict("records"), theirs["rendered"], strict=True)
    ):
        req = requests[row["row_key"]]
        same_context += req.prompt == context
        same_continuations += [o.text for o in req.options] == continuations
        a, b = lls[2 * i], lls[2 * i + 1]
        worst = max(worst, abs(a - row["logprob_occupation"]), abs(b - row["logprob_participant"]))
        right += (0 if a > b else 1) == docs[i]["label"]
    n = len(pred)
    ours = rr.metrics.query("metric == 'double_accuracy' and split == 'macro'")["value"].iloc[0]
    print(f"lm-eval {theirs['version']} ({theirs['task_yaml']}); model {model_dir}")
    print(
        f"rows: {n}; identical contexts: {same_context}; identical continuations: "
        f"{same_continuations}"
    )
    print(f"largest |log-likelihood difference| over {2 * n} continuations: {worst:.3g}")
    print(f"accuracy: lm-eval acc {right / n:.4f}; winoscope double_accuracy {ours:.4f}")
    if same_context != n or same_continuations != n or worst > 1e-4:
        sys.exit(1)


def _first_rows(data: Path, n: int, where: Path) -> Path:
    """A copy of the Winogender folder with only the first ``n`` sentences."""
    out = where / "winogender-subset"
    out.mkdir()
    for name in ("templates.tsv", "occupations-stats.tsv"):
        (out / name).write_bytes((data / name).read_bytes())
    lines = (data / "all_sentences.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "all_sentences.tsv").write_text("".join(lines[: n + 1]), encoding="utf-8")
    return out


def _tiny(where: Path) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    from tiny_lm import build_tiny_gpt2

    return build_tiny_gpt2(where / "tiny-gpt2", seed=3)


if __name__ == "__main__":
    main()
