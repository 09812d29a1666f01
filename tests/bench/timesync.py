"""RX timestamps and IEEE 1588, measured (./devtools/bench.sh timesync).

1. The timestamp offload's cost: stock testpmd io forwarding on a refnic
   pair (64 B, tx_first, one forwarding lcore): the defaults (vector RX),
   simd=scalar (the RX burst stamps need, without them), and 'port config
   N rx_offload timestamp on' (scalar RX and stamps), interleaved rounds;
   Mpps and the ratio to the defaults.
2. refnic-pingpong --one-way on a refnic pair per profile (128 B, 100000
   samples): the round trip and each direction from the RX stamps, p50/p99.
3. The PTP offset after convergence: DPDK's ptpclient, unchanged, against
   linuxptp's ptp4l (master, software stamps, 8 Syncs/s) over a tap cable
   in a network namespace, per profile; the first offset, then over the
   last samples the median |offset| and the mean offset (the clock's drift
   per Sync: ptpclient steps the clock, it does not steer its rate).

    timesync.py [SECONDS] [ROUNDS] [PROFILES]

Default 5 s x 3 rounds; PROFILES ideal,baremetal. Markdown, then JSON lines.
"""

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402

WARMUP_S = 1.0
VDEVS = ["net_refnic0,cable=benchts", "net_refnic1,cable=benchts"]
PTP_DELTA = re.compile(r"Delta between master and slave clocks:(-?\d+)ns")


def forward(mode, seconds):
    """mode: "vector" (the default), "scalar" (simd=scalar) or "tstamp"."""
    tstamp = mode == "tstamp"
    vdevs = [v + (",simd=scalar" if mode == "scalar" else "") for v in VDEVS]
    with TestPmd(vdevs, testpmd_args=["--total-num-mbufs=16384"], timeout=120) as tp:
        if tstamp:
            tp.cmd("port stop all", check=True)
            for port in (0, 1):
                tp.cmd("port config %d rx_offload timestamp on" % port, check=True)
            tp.cmd("port start all", check=True)
        tp.cmd("start tx_first", check=True)
        time.sleep(WARMUP_S)
        s0, t0 = tp.port_stats(), time.monotonic()
        time.sleep(seconds)
        s1, t1 = tp.port_stats(), time.monotonic()
        tp.stop()
    return sum(s1[p]["RX-packets"] - s0[p]["RX-packets"] for p in (0, 1)) / (t1 - t0) / 1e6


def one_way(profile, count):
    app = os.path.join(os.environ.get("REFNIC_BUILD", "build"), "app", "refnic-pingpong")
    vdevs = ["net_refnic0,cable=benchtsp,profile=%s" % profile,
             "net_refnic1,cable=benchtsp,profile=%s" % profile]
    argv = [app, "-l", "0", "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
            "--no-telemetry", "--file-prefix=tsbpp%d" % os.getpid()]
    for v in vdevs:
        argv += ["--vdev", v]
    argv += ["--", "--one-way", "--size", "128", "--count", str(count), "--json"]
    r = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True,
                                  timeout=600).stdout)
    return {"profile": profile, "samples": r["samples"], "rtt_p50_ns": r["p50_ns"],
            "rtt_p99_ns": r["p99_ns"], "there_p50_ns": r["one_way"]["there"]["p50_ns"],
            "there_p99_ns": r["one_way"]["there"]["p99_ns"],
            "back_p50_ns": r["one_way"]["back"]["p50_ns"],
            "back_p99_ns": r["one_way"]["back"]["p99_ns"]}


def build_ptpclient(tmp):
    src = "/usr/share/dpdk/examples/ptpclient"
    dst = os.path.join(tmp, "ptpclient")
    shutil.copytree(src, dst)
    subprocess.run(["make", "-C", dst, "shared"], check=True, capture_output=True)
    return os.path.join(dst, "build", "ptpclient-shared")


def ptp(binary, profile, seconds, samples):
    """ptpclient's offsets against ptp4l on a tap cable, for seconds."""
    ns, ifname = "tsbench%d" % os.getpid(), "tsb%d" % (os.getpid() % 100000)
    subprocess.run(["ip", "netns", "add", ns], check=True)
    prefix = "tsbench%d" % os.getpid()
    log = tempfile.TemporaryFile()
    app = subprocess.Popen(["stdbuf", "-oL", binary, "-l", "0", "--no-huge", "-m", "512",
                            "--no-pci", "--no-shconf", "--no-telemetry",
                            "--file-prefix=" + prefix, "-d", os.environ["REFNIC_PMD"],
                            "--vdev", "net_refnic0,cable=tap:%s,profile=%s" % (ifname, profile),
                            "--", "-p", "0x1", "-T", "0"],
                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    master = None
    try:
        deadline = time.monotonic() + 30
        while subprocess.run(["ip", "link", "show", ifname], capture_output=True).returncode:
            if time.monotonic() > deadline or app.poll() is not None:
                raise RuntimeError("ptpclient did not bring up %s" % ifname)
            time.sleep(0.1)
        subprocess.run(["ip", "link", "set", ifname, "netns", ns], check=True)
        subprocess.run(["ip", "-n", ns, "link", "set", ifname, "up"], check=True)
        master = subprocess.Popen(["ip", "netns", "exec", ns, "ptp4l", "-i", ifname, "-2",
                                   "-S", "--masterOnly=1", "--logSyncInterval=-3",
                                   "--logAnnounceInterval=-3", "--announceReceiptTimeout=2"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        time.sleep(seconds)
    finally:
        if master is not None:
            os.killpg(master.pid, signal.SIGTERM)
            master.wait()
        os.killpg(app.pid, signal.SIGKILL)
        app.wait()
        subprocess.run(["ip", "netns", "del", ns])
    log.seek(0)
    deltas = [int(d) for d in PTP_DELTA.findall(log.read().decode(errors="replace"))]
    if len(deltas) < samples + 1:
        raise RuntimeError("ptpclient printed %d offsets" % len(deltas))
    last = deltas[-samples:]
    return {"profile": profile, "first_ns": deltas[0], "syncs": len(deltas),
            "median_abs_ns": statistics.median(abs(d) for d in last),
            "mean_ns": statistics.mean(last), "samples": samples}


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    profiles = (sys.argv[3] if len(sys.argv) > 3 else "ideal,baremetal").split(",")
    modes = ("vector", "scalar", "tstamp")
    rates = {m: [] for m in modes}
    for _ in range(rounds):
        for mode in modes:
            rates[mode].append(forward(mode, seconds))
    med = {m: statistics.median(rates[m]) for m in modes}
    names = {"vector": "off (vector RX, the default)", "scalar": "off, simd=scalar",
             "tstamp": "on (scalar RX, stamps)"}
    print("| RX timestamp offload | total Mpps | vs the default |")
    print("| --- | ---: | ---: |")
    for m in modes:
        print("| %s | %.2f | %.2fx |" % (names[m], med[m],
                                         med[m] / med["vector"] if med["vector"] else 0))
    print()
    lat = [one_way(profile, 100000) for profile in profiles]
    print("| profile | RTT p50 / p99 | one-way there p50 / p99 | back p50 / p99 |")
    print("| --- | ---: | ---: | ---: |")
    for r in lat:
        print("| %s | %d / %d ns | %d / %d ns | %d / %d ns |" % (
            r["profile"], r["rtt_p50_ns"], r["rtt_p99_ns"], r["there_p50_ns"],
            r["there_p99_ns"], r["back_p50_ns"], r["back_p99_ns"]))
    print()
    results = []
    with tempfile.TemporaryDirectory(prefix="refnic-bench-ts-") as tmp:
        binary = build_ptpclient(tmp)
        for profile in profiles:
            results.append(ptp(binary, profile, max(seconds * 3, 15), 80))
    print("| profile | first offset | median abs offset (last %d Syncs) | mean offset |"
          % results[0]["samples"])
    print("| --- | ---: | ---: | ---: |")
    for r in results:
        print("| %s | %.3g ns | %.1f us | %+.1f us |" % (r["profile"], r["first_ns"],
                                                        r["median_abs_ns"] / 1000,
                                                        r["mean_ns"] / 1000))
    print(json.dumps({"timestamp_offload_mpps": rates, "seconds": seconds, "rounds": rounds}))
    for r in lat + results:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
