#!/usr/bin/env bash
# A single-node Slurm cluster for the tests marked `slurm`: munge, MariaDB (accounting store),
# slurmdbd, slurmctld and slurmd, each started in the foreground of its own background process
# so that its PID is known exactly. Everything lives under DIR (configs, state, logs, the PID
# list DIR/pids); .ci/slurm-down.sh DIR stops them by PID.
#
#   .ci/slurm-up.sh DIR   # then: export SLURM_CONF=DIR/etc/slurm.conf
#
# No systemd is assumed: the Debian packages do not start their daemons, /run/munge is made
# here, munged runs as the munge user (as root it refuses), and slurmdbd's config must be owned
# by root with mode 600. A missing package is installed (Debian's Slurm 22.05). Ports can be
# changed with SLURM_CI_PORT_BASE (default 16817: slurmctld, +1 slurmd, +2 slurmdbd, +3 MariaDB).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: slurm-up.sh DIR}"
source "$here/lib.sh"
apt_need slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge \
  slurmdbd:slurmdbd mariadbd:mariadb-server

base="${SLURM_CI_PORT_BASE:-16817}"
ctld_port=$base
slurmd_port=$((base + 1))
dbd_port=$((base + 2))
db_port=$((base + 3))
host="$(hostname -s)"
mkdir -p "$dir"/{etc,state,spool,log,db,run}
dir="$(cd "$dir" && pwd)"
pids="$dir/pids"
: > "$pids"
chmod 755 "$dir"

# wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.5 s until it succeeds, or fail with the
# log files' tails after SECONDS
wait_for() {
  local limit="$1" what="$2" start=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    if (( SECONDS - start >= limit )); then
      echo "slurm-up: $what not ready after ${limit} s" >&2
      tail -n 20 "$dir"/log/* >&2 || true
      exit 1
    fi
    sleep 0.5
  done
}

# start NAME COMMAND...: run COMMAND in the background, record its PID
start() {
  local name="$1"
  shift
  "$@" >"$dir/log/$name.out" 2>&1 &
  echo "$! $name" >> "$pids"
}

# munge: its key (made once), its socket directory, the daemon as the munge user
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
fi
mkdir -p /run/munge /var/lib/munge /var/log/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge
chmod 755 /run/munge
if [ -S /run/munge/munge.socket.2 ] && munge -n >/dev/null 2>&1; then
  echo "slurm-up: a munged is already running here; stop it first" >&2
  exit 1
fi
start munged setpriv --reuid munge --regid munge --init-groups \
  munged --foreground --force --log-file="$dir/log/munged.log" --seed-file="$dir/run/munge.seed"
wait_for 20 munged munge -n

# MariaDB from a fresh datadir, TCP on 127.0.0.1 only
mariadb-install-db --no-defaults --datadir="$dir/db" --user=root \
  --auth-root-authentication-method=normal --skip-test-db >"$dir/log/mariadb-install.out" 2>&1
sock="$dir/run/mysqld.sock"
start mariadbd mariadbd --no-defaults --datadir="$dir/db" --user=root --socket="$sock" \
  --port="$db_port" --bind-address=127.0.0.1 --pid-file="$dir/run/mariadbd.pid" \
  --log-error="$dir/log/mariadbd.log" --innodb-buffer-pool-size=32M
wait_for 60 MariaDB mariadb-admin --no-defaults --socket="$sock" -u root ping
mariadb --no-defaults --socket="$sock" -u root -e \
  "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm'; GRANT ALL ON *.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;"

# the configs: slurmdbd.conf beside slurm.conf (root, 600)
cat > "$dir/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
CONF
chown root:root "$dir/etc/slurmdbd.conf"
chmod 600 "$dir/etc/slurmdbd.conf"
node_line="$(slurmd -C | head -n 1 | sed -E "s/^NodeName=[^ ]+/NodeName=$host NodeAddr=127.0.0.1/")"
cat > "$dir/etc/slurm.conf" <<CONF
ClusterName=winoscope
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MailProg=/bin/true
ReturnToService=2
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=600
# a test cluster: schedule every few seconds, kill 5 s after a job's TERM (defaults 60 s, 30 s)
SchedulerParameters=sched_interval=5
KillWait=5
$node_line State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/etc/slurm.conf"

start slurmdbd slurmdbd -D
wait_for 60 slurmdbd sacctmgr -n -i show cluster
start slurmctld slurmctld -D -i
wait_for 30 slurmctld scontrol ping
start slurmd slurmd -D
node_idle() { [ "$(sinfo -h -o %T | head -n 1)" = "idle" ]; }
wait_for 60 "the node (idle)" node_idle
echo "slurm-up: node $host idle; export SLURM_CONF=$SLURM_CONF (PIDs in $pids)"
