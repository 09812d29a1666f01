"""The flow table's lookup cost: stock testpmd io forwarding on a refnic pair
(64-byte frames from tx_first, one forwarding lcore) with 0, 16 and 1024
rules on each port, none of which the traffic matches, so every frame walks
the whole table (a TCAM's worst case in software). Rounds interleave the
rule counts, so that drift falls on all alike.

    flow.py [SECONDS] [ROUNDS] [RULES...]

Prints a markdown table (medians over the rounds: Mpps, the ratio to no
rules) and one JSON line per rule count. Default 5 s x 3 rounds, 0 16 1024.
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402

WARMUP_S = 1.0
VDEVS = ["net_refnic0,cable=benchflow", "net_refnic1,cable=benchflow"]


def measure(rules, seconds):
    with TestPmd(VDEVS, testpmd_args=["--total-num-mbufs=16384"], timeout=120) as tp:
        for port in (0, 1):
            for i in range(rules):
                # 10.x.y.1 -> anywhere, UDP: never testpmd's 198.18.0.1.
                out = tp.cmd("flow create %d ingress pattern eth / ipv4 src is 10.%d.%d.1 / "
                             "udp / end actions queue index 0 / end"
                             % (port, i // 256, i % 256))
                if "created" not in out:
                    raise RuntimeError("rule %d on port %d: %s" % (i, port, out))
        tp.cmd("start tx_first", check=True)
        time.sleep(WARMUP_S)
        s0, t0 = tp.port_stats(), time.monotonic()
        time.sleep(seconds)
        s1, t1 = tp.port_stats(), time.monotonic()
        tp.stop()
    return sum(s1[p]["RX-packets"] - s0[p]["RX-packets"] for p in (0, 1)) / (t1 - t0) / 1e6


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    counts = [int(a) for a in sys.argv[3:]] or [0, 16, 1024]
    results = {n: [] for n in counts}
    for _ in range(rounds):
        for n in counts:
            results[n].append(measure(n, seconds))
    base = statistics.median(results[counts[0]])
    print("| rules per port | total Mpps | vs %d rules |" % counts[0])
    print("| ---: | ---: | ---: |")
    for n in counts:
        m = statistics.median(results[n])
        print("| %d | %.2f | %.2fx |" % (n, m, m / base if base else 0))
    for n in counts:
        print(json.dumps({"rules": n, "seconds": seconds, "rounds": rounds,
                          "mpps": statistics.median(results[n])}))


if __name__ == "__main__":
    main()
