"""Forwarding between two processes, as users test an application against a
generator in another process: refnic over cable=shm against memif in the
same layout, side by side in one run.

Two stock testpmd processes, one port each, io forwarding of 64-byte frames
from tx_first in both (64 frames circulate), nothing typed meanwhile, in two
layouts:

  own-cores:   each process on a core of its own (--lcores '0@1,1@1' and
               '0@0,1@0'): an engine thread of either gets a CPU only
               from the other's busy-polling lcore;
  every-core:  both on -l 0-1, every CPU an lcore of both.

Per layout and system: Mpps each way (the receiving processes' RX counters
over the window, medians over interleaved rounds), the ratio to memif, and
for refnic the frames its engines sent (engine_tx_packets of
/refnic/device: 0 when the sending lcores deliver).

    two_process.py [SECONDS] [ROUNDS] [REFNIC_DEVARGS...]

Each REFNIC_DEVARGS (one by default: "", the defaults) is a refnic row of
its own, "refnic" for the first and "refnic[DEVARGS]" for the others, in
the same interleaved rounds: settings compared side by side.
"""

import itertools
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402
from throughput import median_of  # noqa: E402

WARMUP_S = 1.0
LAYOUTS = {
    "own-cores": (("--lcores", "0@1,1@1"), ("--lcores", "0@0,1@0")),
    "every-core": (("-l", "0-1"), ("-l", "0-1")),
}
_seq = itertools.count()


def refnic_name(devargs, first):
    return "refnic" if first else "refnic[%s]" % devargs


def systems(variants):
    n = next(_seq)
    sock = "/run/refnic-bench-2p-%d-%d.sock" % (os.getpid(), n)
    rows = {}
    for i, devargs in enumerate(variants):
        shm = "net_refnic0,cable=shm:bench2p%d_%d_%d%s" % (os.getpid(), n, i,
                                                         "," + devargs if devargs else "")
        rows[refnic_name(devargs, i == 0)] = ([shm, shm], True)
    rows["memif"] = (["net_memif0,role=server,socket=" + sock,
                      "net_memif0,role=client,socket=" + sock], False)
    return rows


def rx_packets(tp):
    return tp.port_stats(0)["RX-packets"]


def measure(layout, vdevs, refnic, seconds):
    plugins = [os.environ["REFNIC_PMD"]] if refnic else []
    tps = [TestPmd([vdev], lcores=lcores, plugins=plugins, telemetry=refnic,
                   testpmd_args=["--disable-link-check", "--total-num-mbufs=16384"])
           for vdev, lcores in zip(vdevs, LAYOUTS[layout])]
    try:
        for tp in tps:
            tp.start()
        deadline = time.monotonic() + 15
        while any(tp.port_info(0).get("Link status") != "up" for tp in tps):
            if time.monotonic() > deadline:
                sys.exit("two_process.py: %s link did not come up" % vdevs[0])
            time.sleep(0.1)
        for tp in tps:
            tp.cmd("start tx_first")
        time.sleep(WARMUP_S)
        r0, t0 = [rx_packets(tp) for tp in tps], time.monotonic()
        time.sleep(seconds)
        r1, t1 = [rx_packets(tp) for tp in tps], time.monotonic()
        for tp in tps:
            tp.stop()
        engine = sum(tp.telemetry("/refnic/device,net_refnic0")[0]["engine_tx_packets"]
                     for tp in tps) if refnic else None
    finally:
        for tp in tps:
            tp.close()
    mpps = [(b - a) / (t1 - t0) / 1e6 for a, b in zip(r0, r1)]
    return {"mpps": sum(mpps) / 2, "engine_tx_packets": engine}


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    variants = sys.argv[3:] or [""]
    if not os.environ.get("REFNIC_PMD"):
        sys.exit("two_process.py: set REFNIC_PMD (devtools/bench.sh does)")
    results = {}
    for _ in range(rounds):
        for layout in LAYOUTS:
            for name, (vdevs, refnic) in systems(variants).items():
                results.setdefault((layout, name), []).append(
                    measure(layout, vdevs, refnic, seconds))
    print("two processes, io forwarding, 64 B, %g s x %d rounds%s" %
          (seconds, rounds, ", refnic devargs " + variants[0] if variants[0] else ""))
    print("| layout | system | Mpps each way | vs memif | engine_tx_packets |")
    print("| --- | --- | ---: | ---: | ---: |")
    for layout in LAYOUTS:
        memif = median_of(results[(layout, "memif")], "mpps")
        for name in [refnic_name(d, i == 0) for i, d in enumerate(variants)] + ["memif"]:
            rows = results[(layout, name)]
            mpps = median_of(rows, "mpps")
            engine = rows[-1]["engine_tx_packets"]
            print("| %s | %s | %.3f | %.2fx | %s |" % (layout, name, mpps, mpps / memif,
                                                     "-" if engine is None else engine))


if __name__ == "__main__":
    main()
