"""Forwarding on the same refnic ports from the primary process and from a
secondary process, side by side in one run.

Two wired refnic ports, one queue pair each, stock testpmd io forwarding of
64-byte frames from tx_first on one forwarding lcore, -l 0-1 in both
processes, hugepages (what multi-process needs):

  primary:   the primary testpmd forwards, as a single process would;
  secondary: the primary only owns the ports (it does not forward) and a
             secondary testpmd forwards on the same queue pair; its
             doorbells reach the device through the mailbox to the
             primary's engine, kicked by an eventfd when it sleeps
             (device/refnic_emu_remote.c).

Per system: Mpps per port (the primary's port counters, medians over the
rounds), how busy the primary's engine thread was, and, from the device's
telemetry (/refnic/device), the secondary's stores the engine replayed per
second and the share of them that had to wake it.

    multiprocess.py [SECONDS] [ROUNDS] [REFNIC_DEVARGS]
"""

import itertools
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402
from throughput import median_of, thread_cpu_s  # noqa: E402

WARMUP_S = 1.0
_seq = itertools.count()


def measure(mode, devargs, seconds):
    prefix = "mpbench%d_%d" % (os.getpid(), next(_seq))
    extra = "," + devargs if devargs else ""
    vdevs = ["net_refnic0,cable=mpbench" + extra, "net_refnic1,cable=mpbench" + extra]
    args = ["--total-num-mbufs=16384", "--num-procs=1", "--proc-id=0"]
    with TestPmd(vdevs, testpmd_args=args, proc_type="primary", file_prefix=prefix,
                 telemetry=True) as primary:
        if mode == "primary":
            fwd = primary
        else:
            fwd = TestPmd([], testpmd_args=args, proc_type="secondary",
                          file_prefix=prefix).start()
        try:
            fwd.cmd("start tx_first")
            time.sleep(WARMUP_S)
            s0, d0 = primary.port_stats(), device_counts(primary)
            cpu0, t0 = thread_cpu_s(primary.proc.pid, "refnic-engine"), time.monotonic()
            time.sleep(seconds)
            s1, d1 = primary.port_stats(), device_counts(primary)
            cpu1, t1 = thread_cpu_s(primary.proc.pid, "refnic-engine"), time.monotonic()
            fwd.stop()
        finally:
            if fwd is not primary:
                fwd.close()
    elapsed = t1 - t0
    return {"mpps": [(s1[p]["RX-packets"] - s0[p]["RX-packets"]) / elapsed / 1e6
                     for p in (0, 1)],
            "engine_busy": (cpu1 - cpu0) / elapsed if cpu0 is not None else None,
            # The secondary's stores engine 0 replayed, and the share that
            # had to wake it (an eventfd write), both devices.
            "stores_per_s": (d1[0] - d0[0]) / elapsed,
            "kicks_per_store": (d1[1] - d0[1]) / max(1, d1[0] - d0[0])}


def device_counts(primary):
    """(secondary_stores, secondary_kicks) of both devices, from telemetry."""
    devs = primary.telemetry("/refnic/device,net_refnic0", "/refnic/device,net_refnic1")
    return (sum(d["secondary_stores"] for d in devs), sum(d["secondary_kicks"] for d in devs))


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    devargs = sys.argv[3] if len(sys.argv) > 3 else ""
    results = {"primary": [], "secondary": []}
    for _ in range(rounds):         # interleaved: drift falls on both alike
        for mode in results:
            results[mode].append(measure(mode, devargs, seconds))

    def med(mode, key, idx=None):
        m = median_of(results[mode], key, idx)
        return float("nan") if m is None else m

    base = med("primary", "mpps", 0) + med("primary", "mpps", 1)
    print("| forwarding process | port 0 Mpps | port 1 Mpps | total Mpps | vs primary | "
          "engine thread busy | secondary stores/s | kicks per store |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for mode in results:
        p0, p1 = med(mode, "mpps", 0), med(mode, "mpps", 1)
        print("| %s | %.2f | %.2f | %.2f | %.2fx | %.0f%% | %.0f | %.4f |"
              % (mode, p0, p1, p0 + p1, (p0 + p1) / base, 100 * med(mode, "engine_busy"),
                 med(mode, "stores_per_s"), med(mode, "kicks_per_store")))


if __name__ == "__main__":
    main()
