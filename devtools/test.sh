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
# setup.sh runs with errexit; a failing suite must not end the run before
# the other suites and the summary.
set +e

# EAL only loads plugins from directories nobody else can write to.
REFNIC_PMD=$(refnic_stage_pmd) || exit 1
REFNIC_SDK=$(stage_sdk) || exit 1
export REFNIC_PMD REFNIC_SDK REFNIC_BUILD

passed=0
failed=0
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# Run one suite, show its output, add up its closing "N passed, N failed".
# A suite that exits non-zero without counting a failure (a crash, a
# runner error) counts as one failure.
run_suite() {
	local name=$1 log=$logdir/$1.log summary rc suite_failed=0
	shift
	printf '=== %s\n' "$name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -n "$summary" ]; then
		passed=$((passed + $(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')))
		suite_failed=$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
	fi
	if [ "$rc" -ne 0 ] && [ "$suite_failed" -eq 0 ]; then
		printf 'FAIL %s: exited with status %d%s\n' "$name" "$rc" \
			"$([ -z "$summary" ] && echo ' without a summary')"
		suite_failed=1
	fi
	failed=$((failed + suite_failed))
}

if [ $# -eq 0 ]; then
	run_suite unit timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test"
	# Again the engines suite, its lcore free to float over two CPUs: the
	# engines then take both and run truly in parallel.
	run_suite unit-engines-in-parallel timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test" \
		--no-huge -m 512 --no-pci --no-shconf --no-telemetry --lcores '0@(0-1)' \
		--log-level='pmd.net.refnic.*:error' -- engines
fi
run_suite integration timeout 1800 python3 "$REFNIC_TOP/tests/integration/run.py" "$@"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
