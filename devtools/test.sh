#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up the machine and build (devtools/setup.sh), then run every test:
# the unit suites and the integration tests (pytest, tests/integration/),
# on every DPDK release refnic supports: the host's own (Debian 12: 22.11)
# and each other one in a Debian chroot of its own (devtools/chroot.sh:
# 24.11 in Debian 13, 25.11 in Debian forky). Ends with a line per release,
# then the line "N passed, N failed" that adds them up, plus ", N skipped"
# when a test skipped; exits non-zero if anything failed.
#
#   ./devtools/test.sh [--dpdk SERIES[,SERIES...]|all] [FILTER...] [-PYTEST_OPTION...]
#
# --dpdk runs the named releases only (default: all). FILTERs select
# integration tests by name (any of them, as pytest -k: a substring of the
# file or test name; "module.test" means both), and the unit suites then do
# not run. Arguments starting with "-" go to pytest as they are, e.g. -x to
# stop at the first failure (options with a value take the --opt=value form).
#
# On the host's release everything runs. On the others: the unit suites,
# again under ASan and UBSan, and every integration test, against that
# release's own stock tools and examples; what exercises only the project's
# own code the same way on every release (the fuzzers, ThreadSanitizer, the
# data-path suites again under each device setting, the multi-lcore
# repeats) runs once, on the host's, to keep the whole within CI's time.
set -uo pipefail

releases=all
core_only=0
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--core-suites) core_only=1; shift ;;	# what differs by release only (above)
	--dpdk) releases=${2:?--dpdk needs a release: 22.11, 24.11, 25.11 or all}; shift 2 ;;
	--dpdk=*) releases=${1#--dpdk=}; shift ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- "${args[@]}"

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
source "$REFNIC_TOP/devtools/chroot.sh"
install_packages || exit 1
here=$(installed_series)
[ "$releases" = all ] && releases="$here $REFNIC_CHROOT_SERIES"
releases=$(echo "${releases//,/ }" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ')
for r in $releases; do
	[ "$r" = "$here" ] || refnic_chroot_suite "$r" >/dev/null || {
		echo "refnic-test: DPDK $r is not a release refnic is tested on: $here (here), $REFNIC_CHROOT_SERIES (chroots)" >&2
		exit 2
	}
done
passed=0
failed=0
skipped=0
failures=()	# what failed, by suite: repeated above the sum (CI shows a tail)
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# Run one suite, show its output, add up its closing "N passed, N failed"
# (", N skipped").
# A suite that exits non-zero without counting a failure (a crash, a
# runner error) counts as one failure.
run_suite() {
	local name=$1 log=$logdir/$1.log summary rc suite_failed=0 t0=$SECONDS
	shift
	printf '=== %s\n' "$name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	# What each part costs of CI's time budget.
	printf '=== %s took %d s\n' "$name" $((SECONDS - t0))
	summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -n "$summary" ]; then
		passed=$((passed + $(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')))
		suite_failed=$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
		if [[ $summary =~ ,\ ([0-9]+)\ skipped ]]; then
			skipped=$((skipped + BASH_REMATCH[1]))
		fi
	fi
	if [ "$rc" -ne 0 ] && [ "$suite_failed" -eq 0 ]; then
		printf 'FAIL %s: exited with status %d%s\n' "$name" "$rc" \
			"$([ -z "$summary" ] && echo ' without a summary')"
		echo "FAIL exited with status $rc" >>"$log"	# listed as "$name: FAIL ..."
		suite_failed=1
	fi
	failed=$((failed + suite_failed))
	[ "$suite_failed" -gt 0 ] && list_failures "$name" "$log"
}

# Remember what failed in a suite's log: a nested run's own list (a
# release's run), else each unit test's "FAIL suite.test" and pytest's
# "FAILED file::test - why", cut short.
list_failures() {
	local name=$1 log=$2 line
	while IFS= read -r line; do
		failures+=("$name: ${line:0:160}")
	done < <(if grep -aq '^failed:$' "$log"; then
			sed -n '/^failed:$/,/^[^ ]/s/^  //p' "$log"
		else
			grep -aE '^(FAIL|FAILED) ' "$log"
		fi | head -n 20)
}

# A failure outside any suite's log (a build, a fuzzer).
fail() {
	echo "FAIL $1"
	failures+=("$1")
	failed=$((failed + 1))
}

# Each release's whole run, as one suite: here, or in its chroot. A line
# per release, then the sum.
test_releases() {
	local r lines=() log before_p before_f before_s
	for r in $releases; do
		before_p=$passed before_f=$failed before_s=$skipped
		if [ "$r" = "$here" ]; then
			run_suite "dpdk-$r" "$REFNIC_TOP/devtools/test.sh" --dpdk "$r" "$@"
		else
			run_suite "dpdk-$r" "$REFNIC_TOP/devtools/chroot.sh" "$r" \
				./devtools/test.sh --dpdk "$r" --core-suites "$@"
		fi
		lines+=("$r: $((passed - before_p)) passed, $((failed - before_f)) failed$(
			[ $((skipped - before_s)) -gt 0 ] && echo ", $((skipped - before_s)) skipped")")
	done
	echo
	printf '%s\n' "${lines[@]}"
	summarize
}

summarize() {
	local summary="$passed passed, $failed failed"
	if [ ${#failures[@]} -gt 0 ]; then
		echo "failed:"
		printf '  %s\n' "${failures[@]}"
	fi
	[ "$skipped" -gt 0 ] && summary+=", $skipped skipped"
	echo "$summary"
	[ "$failed" -eq 0 ]
}

# Debian's python3-pytest is for Debian's python3, which a python3 earlier
# on PATH (pyenv, a venv) may not be.
pytest_python() {
	local py
	for py in python3 /usr/bin/python3; do
		if "$py" -c 'import pytest' 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	echo python3	# fails with pytest's absence in the output
}

# setup.sh runs with errexit; a failing suite must not end the run before
# the other suites and the summary.
set +e
if [ "$releases" != "$here " ]; then
	test_releases "$@"
	exit
fi

refnic_setup || exit 1
set +e
# EAL only loads plugins from directories nobody else can write to.
REFNIC_PMD=$(refnic_stage_pmd) || exit 1
REFNIC_SDK=$(stage_sdk) || exit 1
export REFNIC_PMD REFNIC_SDK REFNIC_BUILD

# The suites that exercise only the project's own code, the same way on
# every release: they run on the host's release only (see the top).
run_once_suites() {
	# Again the engines suite, its lcore free to float over two CPUs: the
	# engines then take both and run truly in parallel.
	run_suite unit-engines-in-parallel timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test" \
		--no-huge -m 512 --no-pci --no-shconf --no-telemetry --lcores '0@(0-1)' \
		--log-level='pmd.net.refnic.*:error' -- engines
	# The fuzzers, bounded: a crash or a sanitizer report is one failure.
	if refnic_build_fuzz; then
		# Runs: a completions input may cost a recovery (tens of ms).
		for fuzzer in completions:300 devargs:20000 shm_cable:1000 vxlan_cable:600; do
			runs=${fuzzer#*:}
			fuzzer=${fuzzer%:*}
			printf '=== fuzz-%s\n' "$fuzzer"
			if refnic_fuzz "$fuzzer" "$runs" >"$logdir/fuzz-$fuzzer.log" 2>&1; then
				tail -n 2 "$logdir/fuzz-$fuzzer.log"
				passed=$((passed + 1))
			else
				tail -n 40 "$logdir/fuzz-$fuzzer.log"
				fail "fuzz-$fuzzer (inputs in $REFNIC_FUZZ_BUILD/crashes/)"
			fi
		done
	else
		fail "fuzz: the fuzzer build failed"
	fi
	# Concurrency under load: 2 to 4 lcores on the two CPUs forward
	# through shared RX rings (stress), and every fault kind fires at
	# random times while they do (soak, its seed printed).
	run_suite unit-stress-soak timeout 300 "$REFNIC_BUILD/tests/refnic-unit-test" \
		--no-huge -m 512 --no-pci --no-shconf --no-telemetry --lcores '(0-3)@(0-1)' \
		--log-level='pmd.net.refnic.*:error' -- stress soak
	# ThreadSanitizer (build-tsan, clang): every unit suite, the
	# multi-lcore ones (engines, stress, soak) on both CPUs, stress
	# shortened (TSan slows it; its races show in seconds). Soak keeps
	# its 10 s: shorter, some seeds' schedules leave a fault kind unfired,
	# which it counts as a failure. A report ends the suite with TSan's
	# exit status 66, counted as a failure; devtools/tsan.supp holds what
	# is DPDK's own (each entry explained). REFNIC_TSAN_SUITES overrides
	# the list of single-lcore suites.
	if refnic_build_tsan; then
		tsan=(env "TSAN_OPTIONS=suppressions=$REFNIC_TOP/devtools/tsan.supp exitcode=66"
		      timeout 1800 "$REFNIC_TSAN_BUILD/tests/refnic-unit-test" --no-huge -m 512
		      --no-pci --no-shconf --no-telemetry --log-level='pmd.net.refnic.*:error')
		# shellcheck disable=SC2086
		run_suite unit-tsan "${tsan[@]}" -l 0 -- \
			${REFNIC_TSAN_SUITES:-probe datapath lifecycle control recovery rss_filters \
			queues offload cables exec intr hostile doorbell wc config faultseq vector \
			flow tso timesync caps rx_format batching}
		run_suite unit-tsan-engines-in-parallel "${tsan[@]}" --lcores '0@(0-1)' -- engines
		run_suite unit-tsan-stress-soak env REFNIC_STRESS_S=2 "${tsan[@]}" \
			--lcores '(0-3)@(0-1)' -- stress soak
	else
		fail "unit-tsan: the ThreadSanitizer build failed"
	fi
	# And the doorbell suite so: the check's re-rings (EAL interrupt
	# thread), the bursts and the engines then truly race on two CPUs.
	run_suite unit-doorbell-in-parallel timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test" \
		--no-huge -m 512 --no-pci --no-shconf --no-telemetry --lcores '0@(0-1)' \
		--log-level='pmd.net.refnic.*:error' -- doorbell
	# The data-path suites once more under each other setting a user may
	# choose: the scalar and the SSE bursts and device stages (the AVX2
	# ones run by default where the CPU has AVX2, else SSE), RX
	# completions written back (in a ring by default), where device work
	# runs, and what the platform costs. (baremetal pushes one-packet
	# bursts, vm rings and fetches: each also the other way round, forced
	# by wc=.)
	for devargs in simd=scalar,device_simd=scalar simd=sse,device_simd=sse \
		       rx_wb=on rx_wb=on,simd=scalar \
		       profile=ideal,exec=thread profile=vm profile=vm,exec=thread \
		       profile=baremetal profile=baremetal,wc=off profile=vm,wc=on; do
		run_suite "unit-data-path-$devargs" env REFNIC_TEST_DEVARGS="$devargs" \
			timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test" -- datapath offload queues intr tso timesync
	done
	# With IOVA as PA (bare metal with igb_uio, or VFIO without an IOMMU):
	# the device translates through DPDK's memory segments and its page
	# cache, which IOVA as VA never enters. Hugepages and root needed.
	if refnic_hugepages 128; then
		run_suite unit-data-path-iova-pa timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test" \
			-m 256 --iova-mode=pa --no-pci --no-shconf --no-telemetry \
			--file-prefix=refnic-iova-pa --log-level='pmd.net.refnic.*:error' -- \
			datapath offload tso witness
	else
		fail "unit-data-path-iova-pa: no hugepages for IOVA as PA"
	fi
	# Scalar, SSE and AVX2 compared again with RX completions written back.
	run_suite unit-vector-rx_wb=on env REFNIC_TEST_DEVARGS=rx_wb=on \
		timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test" -- vector
}

filters=()
pytest_args=()
for arg in "$@"; do
	case $arg in
	-*) pytest_args+=("$arg") ;;
	*) filters+=("$arg") ;;
	esac
done
if [ ${#filters[@]} -gt 0 ]; then
	expr=
	for f in "${filters[@]}"; do
		expr+="${expr:+ or }(${f//./ and })"
	done
	pytest_args+=(-k "$expr")
fi

if [ ${#filters[@]} -eq 0 ]; then
	run_suite unit timeout 600 "$REFNIC_BUILD/tests/refnic-unit-test"
	# Every unit suite again, built with ASan and UBSan: a sanitizer report
	# ends the run with a non-zero status, counted as a failure.
	if refnic_build_sanitized; then
		# The witness's paths at a tenth of their frames: ASan is slow.
		run_suite unit-sanitized env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
			UBSAN_OPTIONS=print_stacktrace=1 REFNIC_WITNESS_FRAMES=40000 \
			timeout 900 "$REFNIC_SANITIZE_BUILD/tests/refnic-unit-test"
	else
		fail "unit-sanitized: the sanitizer build failed"
	fi
	# What exercises only the project's own code runs on one release.
	[ "$core_only" -eq 1 ] || run_once_suites
fi
run_suite integration env PYTHONDONTWRITEBYTECODE=1 timeout 1800 "$(pytest_python)" -m pytest \
	--continue-on-collection-errors "$REFNIC_TOP/tests/integration" "${pytest_args[@]}"

summarize
