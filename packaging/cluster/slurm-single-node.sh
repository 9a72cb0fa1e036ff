#!/usr/bin/env bash
# A private single-node Slurm on this machine, for testing the gpuassist Slurm recipe end to end.
#
#   packaging/cluster/slurm-single-node.sh start DIR   # writes DIR/slurm.conf, starts munged, slurmctld, slurmd
#   export SLURM_CONF=DIR/slurm.conf                    # then sbatch/srun/sinfo talk to it
#   packaging/cluster/slurm-single-node.sh stop DIR    # stops the three daemons it started (by their pid files)
#
# Needs root and Debian's slurm-wlm + munge (apt-get install -y slurm-wlm munge). Everything it writes is
# under DIR (config, munge key and socket, state, logs, pid files); it uses its own ports and its own munge
# socket, so it neither needs nor touches a system Slurm or munge; the node is reached at 127.0.0.1, so the
# host name need not resolve. The last line of `start` is
# "SLURM_CONF=DIR/slurm.conf" once the node accepts jobs; it gives up after $SLURM_START_TIMEOUT seconds
# (default 60) with the daemons' log tails.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$(realpath -m "$2")

stop() {
  local name pid
  for name in slurmd slurmctld munged; do
    if [ -s "$dir/$name.pid" ]; then
      pid=$(cat "$dir/$name.pid")
      # only our own daemon: the pid file is ours and the process is that program
      if [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$name" ]; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
        [ -d "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
      fi
      rm -f "$dir/$name.pid"
    fi
  done
}

free_port() {  # a TCP port nobody listens on now (the kernel picks it)
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

case "$action" in
  stop) stop; exit 0 ;;
  start) ;;
  *) usage ;;
esac

[ "$(id -u)" -eq 0 ] || { echo "slurm-single-node: needs root (slurmd runs jobs as their users)" >&2; exit 3; }
for prog in munged mungekey slurmctld slurmd sinfo; do
  command -v "$prog" >/dev/null || [ -x "/usr/sbin/$prog" ] || {
    echo "slurm-single-node: $prog not found (apt-get install -y slurm-wlm munge)" >&2; exit 3; }
done
export PATH="$PATH:/usr/sbin"

stop  # a previous run in the same DIR
mkdir -p "$dir"/{ctld,spool,munge}
chmod 700 "$dir" "$dir/munge"
rm -f "$dir/munge/munge.key"
mungekey --create --keyfile="$dir/munge/munge.key" --bits=1024 >/dev/null 2>&1 \
  || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$dir/munge/munge.key"

node=$(hostname -s)
cpus=$(nproc)
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
ctld_port=$(free_port)
slurmd_port=$(free_port)
sock="$dir/munge/munge.socket"

cat > "$dir/slurm.conf" <<CONF
# Written by packaging/cluster/slurm-single-node.sh: one node, everything under $dir.
ClusterName=gpuassist-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
# slurm.conf's own plugstack.conf would be read from /etc/slurm: give it an empty one of ours
: > "$dir/plugstack.conf"
echo "PlugStackConfig=$dir/plugstack.conf" >> "$dir/slurm.conf"

export SLURM_CONF="$dir/slurm.conf"
munged --force --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"

deadline=$(( $(date +%s) + ${SLURM_START_TIMEOUT:-60} ))
until sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "slurm-single-node: the node did not become idle within ${SLURM_START_TIMEOUT:-60} s" >&2
    sinfo -N -l >&2 || true
    for log in munged slurmctld slurmd; do echo "--- $log.log" >&2; tail -n 15 "$dir/$log.log" >&2 2>/dev/null || true; done
    stop
    exit 4
  fi
  sleep 0.5
done
echo "SLURM_CONF=$SLURM_CONF"
