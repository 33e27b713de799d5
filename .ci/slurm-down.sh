#!/usr/bin/env bash
# Stop what .ci/slurm-up.sh DIR started, by the PIDs it recorded (in reverse order: slurmd,
# slurmctld, slurmdbd, MariaDB, munged): TERM, up to 15 s, then KILL. Then remove DIR.
set -uo pipefail
dir="${1:?usage: slurm-down.sh DIR}"
[ -f "$dir/pids" ] || { rm -rf "$dir"; exit 0; }
tac "$dir/pids" | while read -r pid name; do
  kill -0 "$pid" 2>/dev/null || continue
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "slurm-down: $name ($pid) did not stop on TERM; killing it" >&2
    kill -KILL "$pid" 2>/dev/null
  fi
done
rm -rf "$dir"
