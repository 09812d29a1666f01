#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job, from a fresh machine: set up and build (devtools/setup.sh),
# then run Debian's stock dpdk-testpmd forwarding (io mode, tx_first) between
# two net_refnic ports wired back to back by the embedded device. Prints
# per-port Mpps every second and, at the end, totals and tail writes per
# packet (the device's own doorbell counts).
#
#   ./devtools/demo.sh [--duration SECONDS] [--profile ideal|baremetal|vm]
set -euo pipefail

duration=${DURATION:-10}
profile=
while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=${2:?--duration needs a number of seconds}; shift 2 ;;
	--profile) profile=${2:?--profile needs ideal, baremetal or vm}; shift 2 ;;
	-h|--help) sed -n '3,10p' "$0"; exit 0 ;;
	*) echo "demo.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $duration in
''|*[!0-9]*|0) echo "demo.sh: --duration must be a whole number of seconds > 0" >&2; exit 2 ;;
esac

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
refnic_setup
pmd=$(refnic_stage_pmd)

echo "refnic demo: stock dpdk-testpmd, io forwarding, net_refnic0 <-> net_refnic1" \
     "(cable=demo${profile:+, profile=$profile}; the other devargs as a user gets them), ${duration}s"

# testpmd reads commands from the pipe: start (once its ports are up: its
# start-up keeps core 0, which the device engine shares, busy for a while),
# one stats read a second, stop.
ready=$(mktemp -u)
trap 'rm -f "$ready"' EXIT
feed() {
	local waited=0
	while [ ! -e "$ready" ] && [ $waited -lt 600 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	echo "start tx_first"
	echo "show port stats all"	# the baseline for the rates below
	for _ in $(seq "$duration"); do
		sleep 1
		echo "show port stats all"
	done
	echo "stop"
	echo "show port xstats all"
	echo "quit"
}

# Line-buffered all the way, so that the readiness line reaches awk when it
# is printed (mawk, Debian's awk, reads its input in blocks unless told).
awk_cmd=(awk)
if awk -W version 2>&1 | grep -q mawk; then
	awk_cmd=(awk -W interactive)
fi
feed | stdbuf -oL dpdk-testpmd -l 0-1 --no-huge -m 1024 --no-pci --no-shconf --no-telemetry \
	--file-prefix="refnic_demo_$$" -d "$pmd" \
	--vdev "net_refnic0,cable=demo${profile:+,profile=$profile}" \
	--vdev "net_refnic1,cable=demo${profile:+,profile=$profile}" \
	-- -i --forward-mode=io --total-num-mbufs=16384 2>&1 |
"${awk_cmd[@]}" -v ready="$ready" '
	/^Done$/ && !started { started = 1; printf "" > ready; close(ready) }
	/statistics for port [0-9]/ { match($0, /port [0-9]+/); port = substr($0, RSTART + 5, RLENGTH - 5) + 0 }
	/NIC statistics for port/ { nic = 1 }
	/Forward statistics for port/ { nic = 0 }
	nic && /Rx-pps:/ { rx[port] = $2 }
	nic && /Tx-pps:/ {
		tx[port] = $2
		if (port == 1 && !baseline) {
			baseline = 1
		} else if (port == 1) {
			t++
			printf "[%3ds] port 0: RX %6.2f Mpps  TX %6.2f Mpps | port 1: RX %6.2f Mpps  TX %6.2f Mpps\n",
			       t, rx[0] / 1e6, tx[0] / 1e6, rx[1] / 1e6, tx[1] / 1e6
			for (p = 0; p < 2; p++)
				sum_rx[p] += rx[p]
		}
	}
	/Accumulated forward statistics/ { port = -1 }
	!nic && /RX-packets:/ && port >= 0 { fwd_rx[port] = $2 }
	!nic && /TX-packets:/ && port >= 0 { fwd_tx[port] = $2 }
	/NIC extended statistics for port/ { port = $NF + 0; xs = 1 }
	xs && /^tx_doorbell_writes:/ { txdb[port] = $2 }
	xs && /^rx_doorbell_writes:/ { rxdb[port] = $2 }
	/EAL: Error|Cause:|[Ff]ailed to|[Ii]nvalid port|refnic.*(fail|error)/ { print "testpmd: " $0; bad = 1 }
	END {
		if (t < 1) { print "demo: testpmd produced no statistics"; exit 1 }
		for (p = 0; p < 2; p++)
			printf "port %d: %d packets received, %d sent; mean RX %.2f Mpps; " \
			       "%.3f TX tail writes per packet, %.3f RX tail writes per packet\n",
			       p, fwd_rx[p], fwd_tx[p], sum_rx[p] / t / 1e6,
			       fwd_tx[p] ? txdb[p] / fwd_tx[p] : 0,
			       fwd_rx[p] ? rxdb[p] / fwd_rx[p] : 0
		exit bad
	}'
