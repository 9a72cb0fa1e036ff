#!/usr/bin/env bash
# Gather the reports of the gpuassist Job or DaemonSet (gpuassist-job.yaml / gpuassist-daemonset.yaml) into
# a folder, one file per pod, and merge them with `gpuassist fleet`.
#
#   packaging/cluster/k8s-collect.sh job|daemonset NAME DIR [kubectl options, e.g. -n gpu-ops]
#
# Files are named after the pods (never the nodes: the reports name their node, as a pseudonym unless the
# pods ran with --no-redact). A pod that never ran leaves its kubectl error in its file, which
# `gpuassist fleet` lists as unreadable with that line.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 job|daemonset NAME DIR [kubectl options]" >&2; exit 2; }
kind=$1 name=$2 dir=$3
shift 3
kubectl=(kubectl "$@")
wait_s=${GPUASSIST_WAIT:-600}
mkdir -p "$dir"
if [ "$kind" = job ]; then
  "${kubectl[@]}" wait --for=condition=complete --timeout="${wait_s}s" "job/$name" \
    || "${kubectl[@]}" wait --for=condition=failed --timeout=1s "job/$name" || true
  selector="job-name=$name"  # also batch.kubernetes.io/job-name on 1.27+
  container=diagnose
else
  "${kubectl[@]}" rollout status --timeout="${wait_s}s" "daemonset/$name" || true
  selector="app.kubernetes.io/name=$name"
  container=diagnose
fi
for pod in $("${kubectl[@]}" get pods -l "$selector" -o name); do
  timeout 60 "${kubectl[@]}" logs "$pod" -c "$container" > "$dir/${pod#pod/}.json" 2>&1 || true
done
exec "${GPUASSIST:-gpuassist}" fleet "$dir"
