#!/usr/bin/env bash
# Delegates a control group to a worker container, so that its sandbox can cap each command's
# processes and memory (docs/deploy.md, "The sandbox in a container"). Run as root on the host,
# once per boot (control groups do not survive a reboot), one NAME per worker container:
#   scripts/delegate-cgroup.sh agentjobs-worker-1 [UID]
# cgroup v1 (the pids and memory controllers): makes /sys/fs/cgroup/{pids,memory}/NAME, owned by UID
# (default 10001, the image's user); bind each over the container's /sys/fs/cgroup/{pids,memory}.
# Optional caps for all of the worker's sandboxes together: PIDS_MAX, MEMORY_BYTES.
set -euo pipefail
name=${1:?usage: delegate-cgroup.sh NAME [UID]}
uid=${2:-10001}
case $name in */* | .* | "") echo "NAME must be one folder name" >&2; exit 2 ;; esac
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  echo "cgroup v2: delegate with the container runtime instead (docs/deploy.md)" >&2
  exit 1
fi
for controller in pids memory; do
  dir=/sys/fs/cgroup/$controller/$name
  mkdir -p "$dir"
  # The folder (to make run groups in) and its files (to move processes in); not the limits above it.
  chown "$uid:$uid" "$dir" "$dir/cgroup.procs" "$dir/tasks"
done
if [ -n "${PIDS_MAX:-}" ]; then echo "$PIDS_MAX" > "/sys/fs/cgroup/pids/$name/pids.max"; fi
if [ -n "${MEMORY_BYTES:-}" ]; then echo "$MEMORY_BYTES" > "/sys/fs/cgroup/memory/$name/memory.limit_in_bytes"; fi
echo "/sys/fs/cgroup/pids/$name /sys/fs/cgroup/memory/$name"
