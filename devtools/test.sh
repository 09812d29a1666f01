#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up the machine and build (devtools/setup.sh), then run every test:
# the unit suites and the integration runs of stock DPDK tools.
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
#
#   ./devtools/test.sh [FILTER...]   FILTER selects integration tests by name
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
refnic_setup || exit 1

# EAL only loads plugins from directories nobody else can write to.
REFNIC_PMD=$(refnic_stage_pmd) || exit 1
REFNIC_SDK=$(stage_sdk) || exit 1
export REFNIC_PMD REFNIC_SDK REFNIC_BUILD

passed=0
failed=0
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# Run one suite, show its output, add up its closing "N passed, N failed".
run_suite() {
	local name=$1 log=$logdir/$1.log summary
	shift
	printf '=== %s\n' "$name"
	"$@" 2>&1 | tee "$log"
	summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$summary" ]; then
		printf 'FAIL %s: ended without a summary (crashed?)\n' "$name"
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + $(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')))
	failed=$((failed + $(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')))
}

if [ $# -eq 0 ]; then
	run_suite unit timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test"
fi
run_suite integration timeout 1800 python3 "$REFNIC_TOP/tests/integration/run.py" "$@"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
