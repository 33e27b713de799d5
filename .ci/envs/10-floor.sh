#!/usr/bin/env bash
# The floor environment: the lowest version pyproject.toml admits for every direct dependency
# (constraints/floor.txt: transformers 4.56, peft 0.13, accelerate 1.0, numpy 1.26, pandas 2.1,
# ...) on the CPU torch, Python 3.11. It runs every model-path test (hf: models, live models,
# PEFT adapters, hooks, sweeps, the docs' worked examples), the scoring core, the datasets'
# loading and every family. The Gemma model's extra needs transformers 5, so its tests skip here.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
python3 -m venv .venv-floor
.venv-floor/bin/pip install -q --upgrade pip
installed .venv-floor/bin/pip install -q -c constraints/floor.txt -e '.[test,hf,peft]'
versions="$(.venv-floor/bin/python -c 'import importlib.metadata as m; print(", ".join(f"{n} {m.version(n)}" for n in ("torch", "transformers", "peft", "accelerate", "numpy", "pandas")))')"
# kill -9 at three moments of an openai: run (86 s) depends on no library's floor: the main
# environment runs it
run_pytest "floor (Python 3.11, ${versions})" \
  .venv-floor/bin/pytest tests/backends tests/protocols tests/scoring tests/datasets tests/families \
  tests/test_sweep.py tests/test_docs_mitigation.py tests/test_environment.py tests/test_floor_constraints.py \
  --ignore=tests/backends/test_openai_kill_resume.py
