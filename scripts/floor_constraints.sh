#!/usr/bin/env bash
# Rebuild constraints/floor.txt, the pins of CI's floor environment (.ci/envs/10-floor.sh): the
# lowest version pyproject.toml admits for each direct dependency of winoscope and of the
# extras below (uv's lowest-direct resolution), every other package at the newest that fits,
# Python 3.11, and the CPU torch of constraints/cpu.txt.
#
#     pip install uv && scripts/floor_constraints.sh
#
# tests/test_floor_constraints.py fails when the file and pyproject.toml disagree: run this
# after changing a range there, then write the reason of any pin above its floor into RAISED.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="test hf peft"
# NAME==VERSION: reason (a pin that is not pyproject's floor, and why)
RAISED=(
  "torch==2.13.0+cpu: the CPU build this project's CI has (constraints/cpu.txt); pyproject keeps >=2.4 so a cluster's own CUDA build is not replaced"
)
torch_pin="$(grep -E '^torch==' constraints/cpu.txt)+cpu"
pins="$(mktemp)"
trap 'rm -f "$pins"' EXIT
echo "$torch_pin" >"$pins"
extra_args=()
for extra in $EXTRAS; do extra_args+=(--extra "$extra"); done
# the CPU torch lies in pip's find-links folder where there is one (PIP_FIND_LINKS)
links=()
[ -n "${PIP_FIND_LINKS:-}" ] && links=(--find-links "$PIP_FIND_LINKS")
resolved="$(${UV:-uv} pip compile pyproject.toml "${extra_args[@]}" --resolution lowest-direct \
  --python-version 3.11 "${links[@]}" -c "$pins" --no-header --no-annotate -q)"
{
  echo "# The floor environment of CI (.ci/envs/10-floor.sh): the lowest version pyproject.toml"
  echo "# admits for every direct dependency of winoscope and of its extras below, every other"
  echo "# package at the newest that fits (uv pip compile --resolution lowest-direct), Python 3.11."
  echo "# Written by scripts/floor_constraints.sh; tests/test_floor_constraints.py checks it"
  echo "# against pyproject.toml."
  echo "# extras: $EXTRAS"
  for line in "${RAISED[@]}"; do echo "# raised: $line"; done
  echo "$resolved"
} >constraints/floor.txt
echo "constraints/floor.txt: $(grep -c '==' <<<"$resolved") pins"
