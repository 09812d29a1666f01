#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CI as CI runs it (.ci/run on a clean clone), with a busy neighbour: one
# busy loop at normal priority pinned to the last CPU for the whole run.
# Timing-dependent tests must pass so; this is how that is checked.
#
#   ./devtools/loaded-ci.sh [REV]
#
# REV (default HEAD) of this checkout is cloned beside it, into
# ../ci-loaded (the build finds ../shared/dpdk-src from there as from
# here), which is removed first. The run's output goes to
# ../ci-loaded.log; the last lines say what failed, the sum, and how long
# the run took. Exits with the run's status.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rev=$(git -C "$top" rev-parse --verify "${1:-HEAD}^{commit}")
clone=$(dirname "$top")/ci-loaded
log=$(dirname "$top")/ci-loaded.log

rm -rf "$clone"
git clone -q "$top" "$clone"
git -C "$clone" checkout -q "$rev"
taskset -c "$(($(nproc) - 1))" sh -c 'while :; do :; done' &
hog=$!
trap 'kill "$hog" 2>/dev/null' EXIT
start=$SECONDS
echo "loaded CI of $(git -C "$clone" log -1 --format='%h %s') beside a busy loop on CPU $(($(nproc) - 1)) ($(date -u '+%Y-%m-%d %H:%M'))" | tee "$log"
rc=0
"$clone/.ci/run" >>"$log" 2>&1 || rc=$?
echo "exit status $rc after $((SECONDS - start)) s" >>"$log"
tail -n 12 "$log"
exit "$rc"
