#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Benchmarks: ratios measured side by side in one run, on this machine.
# Not tests: nothing here passes or fails on speed.
#
#   ./devtools/bench.sh [--dpdk SERIES] SCENARIO [ARGS...]
#       --dpdk: on that DPDK release (22.11 here, 24.11 or 25.11 in its
#       chroot, devtools/chroot.sh), against its own testpmd and dpdk-test.
#   ./devtools/bench.sh releases [SECONDS] [ROUNDS]
#       throughput (refnic with the defaults, memif, vhost-user, net_null)
#       and pmdperf on every release in turn, then one table: refnic's
#       Mpps against memif's and net_null's, and its pmd_perf_autotest
#       cycles against net_null's, per release. Default 3 s x 3 rounds.
#   ./devtools/bench.sh init [RUNS] [PROFILE]
#       port bring-up (probe to link up) per admin polling policy: backoff,
#       exp:100:5000 (ENA's), fixed:5000 (the legacy 5 ms sleep), next to
#       the time the device itself imposed; with -l 0 (the device engine on
#       the other CPU) and -l 0-1 (it shares the waiting thread's CPU).
#       Default 50 runs, baremetal.
#   ./devtools/bench.sh throughput [SECONDS] [ROUNDS] [REFNIC_DEVARGS...]
#       stock testpmd io forwarding, 64 B, tx_first, one forwarding lcore:
#       refnic pair vs memif pair vs vhost-user + virtio-user vs net_null
#       pair; tail writes per packet
#       and engine CPU. Default 5 s x 3 rounds; refnic with the defaults,
#       exec=thread and profile=baremetal, or with the devargs given. An
#       argument ending in .so is another build of the PMD, run with the
#       defaults in the same rounds ("other build N"), to compare builds.
#   ./devtools/bench.sh scaling [SECONDS] [ROUNDS] [REFNIC_DEVARGS]
#       stock testpmd io forwarding, refnic pair vs memif pair: 1 queue per
#       port; 2 queues with one flow; 2 queues with many flows, 1 forwarding
#       lcore and 2 (each on its own CPU): Mpps, per lcore, vs 1 queue, vs
#       memif, RX queue 0's share. Default 3 s x 3.
#   ./devtools/bench.sh latency [COUNT] [ROUNDS] [PROFILE] [SIZE] [OTHER_PMD] [DEVARGS]
#       refnic-pingpong round trips, role both, one lcore, one probe in
#       flight: refnic pair (its engine on the other core) vs memif pair
#       (and memif with its server in a second process on the other core);
#       p50 to max, refnic's p99 over memif's, one JSON line per system.
#       Default 100000 samples x 3 rounds, the default profile, 64 B.
#       OTHER_PMD (a fifth argument, after SIZE): another build of the PMD,
#       as the row refnic-other (one process), to compare builds ("": none).
#       DEVARGS (sixth): more refnic devargs, as the rows refnic[DEVARGS]
#       and refnic[DEVARGS]-2p, to compare settings.
#   ./devtools/bench.sh intr [SECONDS] [PROFILE] [STATIC_US] [RATES] [MODES]
#       an interrupt-driven receiver (l3fwd-power's loop) at low, medium,
#       high and unpaced offered rates, moderation off, static (STATIC_US)
#       and adaptive, interleaved per rate: interrupts/s, throughput, drops
#       (those while an interrupt was held apart), p50/p99 latency, receiver
#       CPU; then idle; the saturating (unpaced) row against the moderation
#       targets. Default 10 s per run, ideal, 200 us (5,000 interrupts/s at
#       most, within e1000's InterruptThrottleRate range), every rate and
#       mode (RATES, MODES: names joined by commas, e.g. unpaced off,adaptive).
#       PROFILE vm: every doorbell and arm costs an exit. -l 0-1.
#   ./devtools/bench.sh soak [SECONDS]
#       forwarding both ways between two refnic ports for SECONDS (default
#       180) while every 200 ms a random port gets a link flap, a queue
#       stop/start, a port reset, a device fatal error, a burst of garbled
#       completions or a detach/attach; prints what happened, frames, drops,
#       mbufs in use against the baseline. Exit status 1 if any leaked.
#   ./devtools/bench.sh witness-soak [SECONDS]
#       the witness_faults unit case (tests/unit/test_witness_faults.c) as a
#       soak: runs of 100000 witness frames A -> B over two RSS queues, back
#       to back for SECONDS (default 600), each from the next seed of the
#       printed first (REFNIC_WITNESS_SEED=N replays; REFNIC_WITNESS_FAULTS
#       narrows the kinds), while missed doorbells, garbled completions,
#       admin timeouts, fatal errors, queue errors, link flaps and queue
#       restarts fire at seeded points; each failed run with its seed, then
#       frames, duplicated/reordered/corrupted, lost against what the user's
#       counters account for, leaked mbufs, and the uncounted rest as the
#       devices count it. Exit status 1 if any run failed.
#   ./devtools/bench.sh witness-kill-soak [SECONDS]
#       test_witness.py's forwarder kill as a soak: one refnic-witness run
#       over two shm cables while the testpmd at their far end is SIGKILLed
#       and restarted, one kill per 20 s of SECONDS (default 600), 600,000
#       frames a port per kill; the test's asserts (none duplicated,
#       reordered or corrupted, every loss counted or out when the link went
#       down, mbufs home). Exit status 1 if they fail.
#   ./devtools/bench.sh fuzz [SECONDS]
#       each libFuzzer harness (tests/fuzz) for SECONDS (default 300) on its
#       growing corpus in build-fuzz/corpus; crash inputs go to
#       build-fuzz/crashes and, once understood, to tests/fuzz/regressions.
#   ./devtools/bench.sh doorbell [SAMPLES] [SECONDS] [DEADLINE_US]
#       missed doorbells (fault_doorbell_drop) at 0, 1e-4 and 1e-3, the
#       check off and on: throughput (512 frames circulating A -> B -> A)
#       and ping-pong p50/p99/max; then the check's cost with 1, 4, 16 and
#       64 queue pairs: off, one alarm per port (as shipped), and a timer
#       per queue (a variant built only for this). Default 2000000 round
#       trips, 3 s, 1000 us deadline; ideal, inline, -l 0-1.
#   ./devtools/bench.sh wc [COUNT] [ROUNDS]
#       refnic-pingpong round trips (as latency, refnic only) at 64, 128 and
#       256 B under baremetal and vm: TX push with a write-combining window
#       (wc=on,bar_wc=on), doorbell + fetch (wc=off), push with an uncached
#       window (wc=on,bar_wc=off) and what wc=auto picks; p50 ratios to
#       fetch. Default 20000 samples x 3 rounds, interleaved.
#   ./devtools/bench.sh mp [SECONDS] [ROUNDS] [REFNIC_DEVARGS]
#       stock testpmd io forwarding on a wired refnic pair (one queue pair,
#       64 B, tx_first), by the primary process and by a secondary process
#       on the same ports: Mpps and the primary's engine CPU. Needs
#       hugepages (reserved as root). Default 5 s x 3 rounds.
#   ./devtools/bench.sh 2p [SECONDS] [ROUNDS] [REFNIC_DEVARGS...]
#       two stock testpmd processes, one port each, io forwarding (64 B,
#       tx_first in both), each process on a core of its own and both on
#       -l 0-1: refnic over cable=shm against memif in the same layout,
#       interleaved rounds; Mpps each way, the ratio to memif, and the
#       frames refnic's engine threads sent. More REFNIC_DEVARGS: more
#       refnic rows (refnic[DEVARGS]) in the same rounds. Default 3 s x 3
#       rounds.
#   ./devtools/bench.sh flow [SECONDS] [ROUNDS] [RULES...]
#       stock testpmd io forwarding on a refnic pair (64 B, tx_first) with
#       0, 16 and 1024 flow rules per port that the traffic does not match:
#       the flow table's lookup cost per packet, as Mpps and the ratio to no
#       rules. Default 5 s x 3 rounds, interleaved.
#   ./devtools/bench.sh tso [SECONDS] [ROUNDS] [MSS] [SEGMENTS]
#       large TCP sends through stock testpmd's csum engine (net_pcap
#       replaying one large TCP/IPv4 frame): the device's TSO (tso set)
#       against testpmd's software GSO (set port 1 gso on), device work
#       inline and exec=thread, interleaved: frames on the wire per second
#       and the ratio. Default 5 s x 3 rounds, MSS 1400, 22 segments.
#   ./devtools/bench.sh vxlan [SECONDS] [ROUNDS] [PINGS]
#       two testpmd processes on two "hosts" (namespaces joined by a veth),
#       64 B, one CPU each: cable=vxlan against cable=tap into the kernel's
#       own VXLAN (a bridge and a vxlan device per host) and cable=tap with
#       a bridge between the TAPs, interleaved: Mpps one way (txonly to
#       rxonly) and both ways (flowgen on each), the kernel's share of the
#       processes' CPU, refnic-pingpong RTT p50/p99 between the hosts, and
#       the ratios. Default 3 s x 3 rounds, 20000 probes a round.
#   ./devtools/bench.sh timesync [SECONDS] [ROUNDS] [PROFILES]
#       the RX timestamp offload's cost (testpmd io forwarding on a refnic
#       pair, 64 B, without and with 'rx_offload timestamp on', interleaved:
#       Mpps, ratio; and with simd=scalar), refnic-pingpong --one-way per
#       profile (RTT and each direction, p50/p99), then DPDK's ptpclient
#       against linuxptp's ptp4l over a tap cable per profile: the first
#       offset, the median |offset| and the mean offset over the last 80
#       Syncs. Needs root (netns) and ptp4l.
#       Default 5 s x 3 rounds, ideal,baremetal.
#   ./devtools/bench.sh pmdperf [ROUNDS] [OTHER_PMD]
#       DPDK's pmd_perf_autotest (dpdk-test, -l 0-1) on net_refnic0 with the
#       defaults, exec=thread and profile=baremetal, and on net_null0: cycles
#       per packet (median of the rounds, which interleave the ports) and the
#       ratio to net_null. OTHER_PMD: another build of the PMD (a path), run
#       with the defaults in the same rounds, to compare builds. Default 3.
#   ./devtools/bench.sh insns [COUNT] [OTHER_PMD|DEVARGS...]
#       instructions and simulated L1 data cache misses per packet, which
#       the machine's load does not change: callgrind counts inside the
#       ethdev burst calls (the inline device work included) while
#       refnic-bench-insns loops 60 B frames, COUNT and 2 x COUNT of them;
#       the difference over COUNT. With 256 frames in
#       flight (bursts of 32) and with one: on a refnic loopback port with
#       the defaults, a refnic pair on one cable, a memif pair and net_null;
#       and, 256 in flight, each loopback with RX checksums asked for, which
#       has the device classify every burst before it places the frames,
#       and with IPv4/UDP frames of 256 flows on one queue and spread by RSS
#       over two.
#       OTHER_PMD: other builds of the PMD (paths), counted the same way on
#       the loopback; an argument not ending in .so is devargs for this
#       build's loopback (e.g. rx_wb=on). Needs valgrind. Default 100000.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
source "$REFNIC_TOP/devtools/chroot.sh"

usage() { sed -n "3,$(($(grep -n '^set -euo pipefail' "$0" | cut -d: -f1) - 1))p" "$0"; exit 2; }

# Another build of the PMD, staged beside this build's as SUBDIR/: EAL
# refuses a plugin under a world-writable directory. Prints its path.
stage_other_pmd() { # PATH SUBDIR
	local d
	d=$(dirname "$(refnic_stage_pmd)")/$2
	install -D -m 755 "$1" "$d/librte_net_refnic.so" || die "cannot stage $1"
	echo "$d/librte_net_refnic.so"
}

# SCENARIO ARGS on DPDK release SERIES: here, or in its chroot.
bench_on() { # SERIES SCENARIO ARGS...
	local series=$1
	shift
	if [ "$series" = "$(installed_series)" ]; then
		"$REFNIC_TOP/devtools/bench.sh" "$@"
	else
		refnic_chroot_run "$series" ./devtools/bench.sh "$@"
	fi
}

install_packages
if [ "${1:-}" = --dpdk ]; then
	[ -n "${2:-}" ] || usage
	series=$2
	shift 2
	if [ "$series" != "$(installed_series)" ]; then
		refnic_chroot_suite "$series" >/dev/null ||
			die "DPDK $series: refnic is benchmarked on $(installed_series) and $REFNIC_CHROOT_SERIES"
		bench_on "$series" "$@"
		exit
	fi
fi
scenario=${1:-}
[ -n "$scenario" ] || usage
shift
refnic_setup

case $scenario in
init)
	runs=${1:-50}
	profile=${2:-baremetal}
	echo "# ./devtools/bench.sh init $runs $profile ($(date -u +%Y-%m-%d), $(nproc) cores)"
	for lcores in 0 0-1; do
		echo "## -l $lcores"
		"$REFNIC_BUILD/tests/refnic-bench-init" "$runs" "$profile" "$lcores" 2>&1 |
			grep -v '^EAL:'
	done
	;;
throughput)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD
	echo "# ./devtools/bench.sh throughput $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	configs=()
	for config in "$@"; do
		if [[ $config == *.so ]]; then
			config=pmd=$(stage_other_pmd "$config" throughput${#configs[@]})
		fi
		configs+=("$config")
	done
	python3 "$REFNIC_TOP/tests/bench/throughput.py" "${configs[@]}"
	;;
latency)
	export REFNIC_BUILD
	echo "# ./devtools/bench.sh latency $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	args=("$@")
	if [ -n "${5:-}" ]; then
		# refnic-pingpong loads the PMD it was linked with, or the one
		# LD_LIBRARY_PATH names first: the fifth argument, a directory.
		args[4]=$(dirname "$(stage_other_pmd "$5" latency-other)")
	fi
	python3 "$REFNIC_TOP/tests/bench/latency.py" "${args[@]}"
	;;
intr)
	echo "# ./devtools/bench.sh intr $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	"$REFNIC_BUILD/tests/refnic-bench-intr" "${1:-10}" "${2:-ideal}" "${3:-200}" "${@:4}" 2>&1 |
		grep -v '^EAL:'
	;;
soak)
	"$REFNIC_BUILD/tests/refnic-bench-soak" "${1:-180}" 2>&1 | grep -vE '^EAL:|already stopped'
	;;
witness-soak)
	echo "# ./devtools/bench.sh witness-soak ${1:-600} ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	REFNIC_WITNESS_SOAK_S=${1:-600} "$REFNIC_BUILD/tests/refnic-unit-test" --no-huge -m 512 \
		--no-pci --no-shconf --no-telemetry -l 0 \
		--log-level='pmd.net.refnic.*:critical' -- witness_faults 2>&1 |
		sed -n '/^=== suite witness_faults/,/witness_faults.test_witness_under_faults/p' |
		grep -vE '^witness: (queue|stream)'
	;;
witness-kill-soak)
	kills=$(( (${1:-600} + 19) / 20 ))
	echo "# ./devtools/bench.sh witness-kill-soak ${1:-600}: $kills kills ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import pytest' 2>/dev/null && break
	done
	REFNIC_WITNESS_KILLS=$kills REFNIC_BUILD="$REFNIC_BUILD" PYTHONDONTWRITEBYTECODE=1 \
		"$py" -m pytest -q -p no:cacheprovider "$REFNIC_TOP/tests/integration/test_witness.py" \
		-k killed_and_restarted 2>&1 | grep -E '^(E |FAILED|[0-9]+ (passed|failed))'
	[ "${PIPESTATUS[0]}" -eq 0 ]
	;;
fuzz)
	refnic_build_fuzz || exit 1
	for fuzzer in completions devargs shm_cable; do
		echo "# ./devtools/bench.sh fuzz ${1:-300}: $fuzzer"
		refnic_fuzz "$fuzzer" 0 "${1:-300}" 2>&1 | grep -E '^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|Done'
	done
	;;
doorbell)
	echo "# ./devtools/bench.sh doorbell $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	"$REFNIC_BUILD/tests/refnic-bench-doorbell" "${1:-2000000}" "${2:-3}" "${3:-1000}" 2>&1 |
		grep -v '^EAL:'
	echo
	"$REFNIC_BUILD/tests/refnic-bench-doorbell-pqt" "${1:-2000000}" "${3:-1000}" 2>&1 |
		grep -v '^EAL:'
	;;
wc)
	export REFNIC_BUILD
	echo "# ./devtools/bench.sh wc $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/wc.py" "$@"
	;;
pmdperf)
	rounds=${1:-3}
	pmd=$(refnic_stage_pmd)
	other=${2:-}
	if [ -n "$other" ]; then
		other=$(stage_other_pmd "$other" other)
	fi
	echo "# ./devtools/bench.sh pmdperf $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	ports=("net_refnic0" "net_refnic0,exec=thread" "net_refnic0,profile=baremetal" "net_null0")
	[ -n "$other" ] && ports+=("other:net_refnic0")
	results=$(mktemp)
	for ((r = 0; r < rounds; r++)); do
		for port in "${ports[@]}"; do
			plugin=$pmd vdev=$port
			[[ $port == other:* ]] && plugin=$other vdev=${port#other:}
			cycles=$(echo pmd_perf_autotest | timeout 300 dpdk-test -l 0-1 --no-huge \
				-m 1024 --no-pci --no-shconf --file-prefix="pmdperf$$" \
				-d "$plugin" --vdev "$vdev" 2>&1 |
				sed -n 's/.*Result: \([0-9]*\) cycles per packet.*/\1/p')
			echo "$port ${cycles:-0}" >>"$results"
		done
	done
	echo "| port | cycles per packet (median of $rounds) | vs net_null |"
	echo "| --- | ---: | ---: |"
	null=$(awk '$1 == "net_null0" { print $2 }' "$results" | sort -n |
	       awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	for port in "${ports[@]}"; do
		m=$(awk -v p="$port" '$1 == p { print $2 }' "$results" | sort -n |
		    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		awk -v p="$port" -v m="$m" -v n="$null" \
			'BEGIN { printf "| `%s` | %d | %.2fx |\n", p, m, m / n }'
	done
	rm -f "$results"
	;;
2p)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD
	echo "# ./devtools/bench.sh 2p $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/two_process.py" "$@"
	;;
flow)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD
	echo "# ./devtools/bench.sh flow $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/flow.py" "$@"
	;;
tso)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD
	echo "# ./devtools/bench.sh tso $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/tso.py" "$@"
	;;
scaling)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD
	echo "# ./devtools/bench.sh scaling $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/scaling.py" "$@"
	;;
vxlan)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD REFNIC_BUILD
	echo "# ./devtools/bench.sh vxlan $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/vxlan.py" "$@"
	;;
timesync)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD REFNIC_BUILD
	echo "# ./devtools/bench.sh timesync $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/timesync.py" "$@"
	;;
insns)
	command -v valgrind >/dev/null || die "insns needs valgrind"
	count=${1:-100000}
	builds=("$(refnic_stage_pmd)") labels=("this build") devargs=("")
	for other in "${@:2}"; do
		if [[ $other == *.so ]]; then
			builds+=("$(stage_other_pmd "$other" insns${#builds[@]})") devargs+=("")
		else
			builds+=("${builds[0]}") devargs+=(",$other")
		fi
		labels+=("$other")
	done
	echo "# ./devtools/bench.sh insns $* ($(date -u '+%Y-%m-%d %H:%M'))"
	out=$(mktemp -d)
	sock=/run/refnic-insns-$$.sock
	insns_run() { # COUNT PRIME[,RX_OFFLOADS[,QUEUES]] EAL-ARGS...: instructions and L1 data misses inside the bursts
		local n=$1 prime offloads queues i
		IFS=, read -r prime offloads queues <<<"$2"
		shift 2
		# The probe waits for the device in wall-clock time, which valgrind
		# on a loaded machine may miss: tried again.
		for i in 1 2 3 4 5 6 7 8 9 10; do
			rm -f "$sock"
			valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$out/cg" \
				--toggle-collect='bench_rx*' --toggle-collect='bench_tx*' \
				"$REFNIC_BUILD/tests/refnic-bench-insns" -l 0 --no-huge -m 512 --no-pci \
				--no-telemetry --file-prefix="insns$$" "$@" -- "$n" "$prime" "${offloads:-0}" ${queues:+"$queues"} \
				>"$out/log" 2>&1 && break
		done
		[ "$i" -lt 10 ] || grep -q received "$out/log" || { echo "0 0"; return; }
		# Events Ir Dr Dw I1mr D1mr D1mw ...: Ir, and D1mr + D1mw.
		sed -n 's/^summary: //p' "$out/cg" | awk '{ print $1, $5 + $6 }'
	}
	per_packet() { # PRIME[,RX_OFFLOADS[,QUEUES]] EAL-ARGS...: (run at 2 x COUNT - run at COUNT) / COUNT, as
		# "instructions | L1 data misses"
		local one two
		one=$(insns_run "$count" "$@")
		two=$(insns_run $((2 * count)) "$@")
		awk -v a="$one" -v b="$two" -v n="$count" 'BEGIN {
			split(a, x, " "); split(b, y, " ")
			if (x[1] == 0 || y[1] == 0) printf "no run | no run"
			else printf "%.1f | %.2f", (y[1] - x[1]) / n, (y[2] - x[2]) / n }'
	}
	# L1 data misses: callgrind's simulation of this CPU's L1D, one thread
	# (the device inline): the cache lines the rings, buffers and mbufs
	# of a packet take, not what crossing cores adds to them.
	echo "| system | instructions per packet, 256 in flight (bursts of 32) | L1D misses per packet, 256 in flight | one in flight | L1D misses, one in flight |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	for i in "${!builds[@]}"; do
		echo "| refnic loopback, \`${labels[$i]}\` | $(per_packet 256 -d "${builds[$i]}" \
			--vdev "net_refnic0${devargs[$i]}") | $(per_packet 1 -d "${builds[$i]}" \
			--vdev "net_refnic0${devargs[$i]}") |"
	done
	for i in "${!builds[@]}"; do	# 0xe: RTE_ETH_RX_OFFLOAD_CHECKSUM
		echo "| refnic loopback, \`${labels[$i]}\`, RX checksums (classified) | $(per_packet \
			256,0xe -d "${builds[$i]}" --vdev "net_refnic0${devargs[$i]}") | | |"
	done
	for i in "${!builds[@]}"; do	# QUEUES given: IPv4/UDP frames; 2: RSS
		for q in 1 2; do
			spread="1 queue"
			[ "$q" -eq 1 ] || spread="$q queues by RSS"
			echo "| refnic loopback, \`${labels[$i]}\`, IPv4/UDP, $spread | $(per_packet \
				256,0,$q -d "${builds[$i]}" --vdev "net_refnic0${devargs[$i]}") | | |"
		done
	done
	pair=(-d "${builds[0]}" --vdev net_refnic0,cable=insns --vdev net_refnic1,cable=insns)
	echo "| refnic pair on one cable | $(per_packet 256 "${pair[@]}") | $(per_packet 1 "${pair[@]}") |"
	pair=(--vdev "net_memif0,role=server,socket=$sock" --vdev "net_memif1,role=client,socket=$sock")
	echo "| memif pair | $(per_packet 256 "${pair[@]}") | $(per_packet 1 "${pair[@]}") |"
	# net_null receives a whole burst at every poll, in flight or not.
	echo "| net_null | $(per_packet 256 --vdev net_null0) | | |"
	rm -rf "$out" "$sock"
	;;
mp)
	REFNIC_PMD=$(refnic_stage_pmd)
	export REFNIC_PMD
	refnic_hugepages 256 || exit 1
	echo "# ./devtools/bench.sh mp $* ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 "$REFNIC_TOP/tests/bench/multiprocess.py" "$@"
	;;
releases)
	seconds=${1:-3}
	rounds=${2:-3}
	echo "# ./devtools/bench.sh releases $seconds $rounds ($(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	out=$(mktemp -d)
	for series in $(installed_series) $REFNIC_CHROOT_SERIES; do
		echo
		echo "## DPDK $series"
		bench_on "$series" throughput "$seconds" "$rounds" "" | tee "$out/$series.throughput"
		bench_on "$series" pmdperf "$rounds" | tee "$out/$series.pmdperf"
	done
	echo
	echo "| DPDK | refnic Mpps | memif Mpps | refnic vs memif | net_null Mpps | refnic vs net_null | refnic pmd_perf cycles/packet | net_null cycles/packet | refnic vs net_null |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	# A system's total Mpps in throughput.py's table, a port's cycles in pmdperf's.
	mpps() { awk -F'|' -v s="$1" '$2 == " " s " " { print $5 + 0 }' "$out/$series.throughput"; }
	cycles() { awk -F'|' -v p="\`$1\`" '$2 == " " p " " { print $3 + 0 }' "$out/$series.pmdperf"; }
	for series in $(installed_series) $REFNIC_CHROOT_SERIES; do
		awk -v d="$series" -v r="$(mpps 'refnic (defaults)')" -v m="$(mpps memif)" \
			-v n="$(mpps null)" -v rc="$(cycles net_refnic0)" -v nc="$(cycles net_null0)" \
			'BEGIN { printf "| %s | %.2f | %.2f | %.2fx | %.2f | %.2fx | %d | %d | %.2fx |\n",
				d, r, m, m ? r / m : 0, n, n ? r / n : 0, rc, nc, nc ? rc / nc : 0 }'
	done
	rm -rf "$out"
	;;
*)
	usage
	;;
esac
