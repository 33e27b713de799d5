#!/usr/bin/env bash
# Python 3.13: the suite that needs no torch (the CPU torch build CI has is for Python 3.11
# only, so the model tests stay in the 3.11 environments), the newest of every other
# dependency; a test that needs torch, transformers or peft skips here.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
py313="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")/versions/3.13.0/bin/python3"
if [ ! -x "$py313" ]; then
  py313="$(command -v python3.13 || true)"
fi
if [ -z "$py313" ]; then
  echo "CI: Python 3.13 not found (pyenv install 3.13.0)" >&2
  exit 1
fi
"$py313" -m venv .venv-py313
.venv-py313/bin/pip install -q --upgrade pip
installed .venv-py313/bin/pip install -q -e '.[test]'
run_pytest "py3.13 without torch ($(.venv-py313/bin/python -c 'import platform, numpy, pandas; print(f"Python {platform.python_version()}, numpy {numpy.__version__}, pandas {pandas.__version__}")'))" \
  .venv-py313/bin/pytest
