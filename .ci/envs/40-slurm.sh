#!/usr/bin/env bash
# The Slurm environment: a real single-node cluster (munge, MariaDB, slurmdbd, slurmctld,
# slurmd; .ci/slurm-up.sh) running the tests marked `slurm` (studies fanned out as job arrays
# by submitit, jobs cancelled and killed mid-way) in the main .venv, which .ci/run has built.
# The daemons are stopped by PID however this script ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
slurm_dir="$(mktemp -d)"
trap '.ci/slurm-down.sh "$slurm_dir"' EXIT
start=$SECONDS
.ci/slurm-up.sh "$slurm_dir"
echo "slurm: cluster up in $((SECONDS - start)) s (package install included)"
export SLURM_CONF="$slurm_dir/etc/slurm.conf"
WINOSCOPE_REQUIRE=slurm run_pytest "slurm (Slurm $(sinfo --version | cut -d' ' -f2), submitit $(.venv/bin/python -c 'import submitit; print(submitit.__version__)'))" \
  .venv/bin/pytest -m slurm
