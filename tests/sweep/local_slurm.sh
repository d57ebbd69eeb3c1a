#!/usr/bin/env bash
# A real single-node Slurm on localhost for tests: munged, slurmctld and slurmd from Debian's
# slurm-wlm and munge, all state under one directory, ports of its own, no systemd, no accounting.
#   tests/sweep/local_slurm.sh start DIR   starts them; prints `export SLURM_CONF=DIR/slurm.conf`
#                                          once the node is idle (exit 1 with the logs if not in 60 s)
#   tests/sweep/local_slurm.sh stop DIR    stops what start started (by the PIDs it recorded)
# Needs root (slurmd runs jobs as their user) and the packages in scripts/install-deps.sh.
set -euo pipefail
cmd="${1:-}"
dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
    for name in slurmd slurmctld munged; do
        if [ -f "$dir/$name.pid" ]; then
            pid=$(cat "$dir/$name.pid")
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
            rm -f "$dir/$name.pid"
        fi
    done
}

if [ "$cmd" = stop ]; then
    stop
    exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
for tool in munged slurmctld slurmd sinfo sbatch; do
    command -v "$tool" >/dev/null || { echo "local_slurm: $tool not found (scripts/install-deps.sh installs slurm-wlm and munge)" >&2; exit 1; }
done

dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
stop
rm -rf "$dir/state" "$dir/spool" "$dir/munge"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 0755 "$dir" "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge.key"
chmod 0400 "$dir/munge.key"
socket="$dir/munge/munge.socket.2"
munged -F --force --socket="$socket" --key-file="$dir/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" >/dev/null 2>&1 &
echo $! > "$dir/munged.pid"
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done

# Ports of our own, from the PID, so that two test runs on one machine do not collide.
base=$((20000 + ($$ % 20000) * 2))
host=$(hostname -s)
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
ClusterName=asimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
echo $! > "$dir/slurmctld.pid"
slurmd -D -f "$SLURM_CONF" -N "$host" >"$dir/slurmd.out" 2>&1 &
echo $! > "$dir/slurmd.pid"
for _ in $(seq 600); do
    if [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; then
        echo "export SLURM_CONF=$SLURM_CONF"
        exit 0
    fi
    sleep 0.1
done
echo "local_slurm: the node did not become idle in 60 s" >&2
tail -n 20 "$dir"/*.log "$dir"/*.out >&2 || true
stop
exit 1
