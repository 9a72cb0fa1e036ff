#!/usr/bin/env bash
# CI helper: install the real engines the cluster-recipe tests drive (Debian's slurm-wlm and munge for
# tests/test_fleet_slurm.py; pdsh, pssh and openssh-server for tests/test_fleet_recipes.py). About 35 s on a
# Debian machine with
# its package mirror reachable; bounded to 5 minutes; never fails the build: without the packages those
# tests skip and say why. Does nothing unless run as root on a machine with apt-get, or when the tools
# are already there.
set -u
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
if have slurmctld && have slurmd && have munged && have pdsh && have parallel-ssh && have sshd; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-engines: not root or no apt-get: the Slurm and pdsh recipe tests will skip" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if timeout 120 apt-get update -qq >/dev/null 2>&1 \
  && timeout 180 apt-get install -y -qq --no-install-recommends slurm-wlm munge pdsh pssh openssh-server \
    >/dev/null 2>&1; then
  echo "install-test-engines: slurm-wlm, munge, pdsh, pssh and openssh-server installed" >&2
else
  echo "install-test-engines: could not install slurm-wlm, munge, pdsh, pssh, openssh-server: their tests will skip" >&2
fi
exit 0
