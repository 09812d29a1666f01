"""Two processes cabled across "hosts": refnic's vxlan cable against its tap
cable with the kernel's bridge between the two TAPs, in one run.

Two stock testpmd processes in one network namespace (lo for vxlan, a
bridge for tap), one port each: the sender in txonly (64-byte frames),
the receiver in rxonly; Mpps is the receiver's RX counter over the window,
median of interleaved rounds, and the ratio vxlan / tap.

    vxlan.py [SECONDS] [ROUNDS]
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402

IP = shutil.which("ip")
WARMUP_S = 1.0


def run(argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (argv, r.stdout))


def rx_mpps(rx, seconds):
    rx.cmd("clear port stats all")
    before = rx.port_stats(0)["RX-packets"]
    t0 = time.monotonic()
    time.sleep(seconds)
    after = rx.port_stats(0)["RX-packets"]
    return (after - before) / (time.monotonic() - t0) / 1e6


def measure(ns, vdevs, seconds, lcores, wrap=True, setup=None):
    pmd = [os.environ["REFNIC_PMD"]]
    wrapper = [IP, "netns", "exec", ns] if wrap else []
    with TestPmd([vdevs[1]], plugins=pmd, wrapper=wrapper, lcores=lcores[1]) as rx, \
            TestPmd([vdevs[0]], plugins=pmd, wrapper=wrapper, lcores=lcores[0]) as tx:
        if setup:
            setup()
        rx.cmd("set fwd rxonly")
        rx.cmd("start")
        tx.cmd("set fwd txonly")
        tx.cmd("start")
        time.sleep(WARMUP_S)
        mpps = rx_mpps(rx, seconds)
        tx.cmd("stop")
        rx.cmd("stop")
    return mpps


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    ns = "refnic-bvx%d" % os.getpid()
    lcores = (("--lcores", "0@0,1@0"), ("--lcores", "0@1,1@1"))
    run([IP, "netns", "add", ns])
    try:
        run([IP, "-n", ns, "link", "set", "lo", "up"])
        vx = ["net_refnic0,cable=vxlan:127.0.0.1:%d,vxlan_local=127.0.0.1:%d" % (b, a)
              for a, b in ((4790, 4791), (4791, 4790))]
        taps = ["rfbvx%da" % (os.getpid() % 10000), "rfbvx%db" % (os.getpid() % 10000)]

        def bridge():
            run([IP, "-n", ns, "link", "add", "br0", "type", "bridge"])
            for t in taps:
                run([IP, "link", "set", t, "netns", ns])
                run([IP, "-n", ns, "link", "set", t, "master", "br0"])
                run([IP, "-n", ns, "link", "set", t, "up"])
            run([IP, "-n", ns, "link", "set", "br0", "up"])

        def unbridge():
            subprocess.run([IP, "-n", ns, "link", "del", "br0"], capture_output=True)

        res = {"vxlan": [], "tap+bridge": []}
        for _ in range(rounds):
            res["vxlan"].append(measure(ns, vx, seconds, lcores))
            res["tap+bridge"].append(measure(ns, ["net_refnic0,cable=tap:" + t for t in taps],
                                             seconds, lcores, wrap=False, setup=bridge))
            unbridge()
        print("| cable | Mpps one way, 64 B (median of %d x %g s) |" % (rounds, seconds))
        print("|---|---|")
        med = {k: statistics.median(v) for k, v in res.items()}
        for k, v in med.items():
            print("| %s | %.3f |" % (k, v))
        print("| vxlan / tap | %.1fx |" % (med["vxlan"] / med["tap+bridge"]))
    finally:
        subprocess.run([IP, "netns", "del", ns], capture_output=True)


if __name__ == "__main__":
    main()
