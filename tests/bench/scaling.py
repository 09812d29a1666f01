"""Multi-queue scaling: stock testpmd io forwarding, a refnic pair beside a
memif pair (server and client in one process), in one run, 64-byte frames
from tx_first: 1 queue per port and 1 forwarding lcore; 2 queues with one
flow (RSS puts it on one queue); 2 queues with --txonly-multi-flow (RSS
spreads the flows; memif's queues are paired one to one), with 1
forwarding lcore and with 2, each on a CPU of its own (--lcores
0@0,1@0,2@1; the main lcore waits on the command line).

    scaling.py [SECONDS] [ROUNDS] [REFNIC_DEVARGS]

Prints a markdown table (medians over interleaved rounds): Mpps over both
ports, per forwarding lcore, against the 1-queue row and against memif in
the same layout, and the share of frames RX queue 0 took (refnic's
per-queue counters).
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402

WARMUP_S = 1.0
ONE_LCORE, TWO_LCORES = ("-l", "0-1"), ("--lcores", "0@0,1@0,2@1")
# (label, queues per port, forwarding lcores, their layout, many flows)
LAYOUTS = [("1 queue", 1, 1, ONE_LCORE, False),
           ("2 queues, 1 flow", 2, 1, ONE_LCORE, False),
           ("2 queues", 2, 1, ONE_LCORE, True),
           ("2 queues", 2, 2, TWO_LCORES, True)]


def systems(devargs):
    sock = "/run/refnic-bench-scaling-%d.sock" % os.getpid()
    extra = "," + devargs if devargs else ""
    return [("refnic " + (devargs or "(defaults)"),
             ["net_refnic0,cable=bench" + extra, "net_refnic1,cable=bench" + extra], True),
            ("memif", ["net_memif0,role=server,socket=" + sock,
                       "net_memif1,role=client,socket=" + sock], False)]


def measure(vdevs, is_refnic, layout, seconds):
    _, queues, nb_cores, lcores, flows = layout
    args = ["--total-num-mbufs=32768", "--rxq=%d" % queues, "--txq=%d" % queues,
            "--nb-cores=%d" % nb_cores] + (["--txonly-multi-flow"] if flows else [])
    with TestPmd(vdevs, plugins=None if is_refnic else [], testpmd_args=args,
                 lcores=lcores) as tp:
        tp.cmd("start tx_first", check=True)
        time.sleep(WARMUP_S)
        s0 = tp.port_stats()
        x0 = [tp.xstats(p) for p in (0, 1)] if is_refnic else None
        t0 = time.monotonic()
        time.sleep(seconds)
        s1 = tp.port_stats()
        x1 = [tp.xstats(p) for p in (0, 1)] if is_refnic else None
        t1 = time.monotonic()
        tp.stop()
    rx = sum(s1[p]["RX-packets"] - s0[p]["RX-packets"] for p in (0, 1))
    r = {"mpps": rx / (t1 - t0) / 1e6, "q0_share": None}
    if is_refnic and rx:
        q0 = sum(x1[p]["rx_q0_packets"] - x0[p]["rx_q0_packets"] for p in (0, 1))
        r["q0_share"] = q0 / rx
    return r


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    devargs = sys.argv[3] if len(sys.argv) > 3 else ""
    results = {}
    for _ in range(rounds):         # interleaved: drift falls on all alike
        for name, vdevs, is_refnic in systems(devargs):
            for i, layout in enumerate(LAYOUTS):
                results.setdefault((name, i), []).append(
                    measure(vdevs, is_refnic, layout, seconds))

    def med(key, field):
        vals = [r[field] for r in results[key] if r[field] is not None]
        return statistics.median(vals) if vals else None

    print("| system | queues per port | forwarding lcores | Mpps, both ports | Mpps per lcore | "
          "vs 1 queue | vs memif | RX queue 0's share |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, _, _ in systems(devargs):
        one = med((name, 0), "mpps")
        for i, (label, _, n, _, _) in enumerate(LAYOUTS):
            mpps = med((name, i), "mpps")
            share = med((name, i), "q0_share")
            print("| %s | %s | %d | %.2f | %.2f | %.2fx | %.2fx | %s |" % (
                name, label, n, mpps, mpps / n, mpps / one, mpps / med(("memif", i), "mpps"),
                "%.0f%%" % (100 * share) if share is not None else ""))

if __name__ == "__main__":
    main()
