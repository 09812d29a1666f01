"""Round-trip latency with refnic-pingpong, role both (client and server in
one lcore, -l 0), side by side in one run: a refnic pair (cable=NAME, the
given timing profile; its engine thread gets the other core) and a memif
pair (server and client in the same process, no second thread). Same probe
count and frame size, one probe in flight, busy polling, rounds interleaved.

A third row, memif-2p, is memif with the server in a second process on the
other core (client -l 0, server -l 1): the same two cores as refnic's app
and engine, so it shows what crossing between them costs any design. The
fourth, refnic-2p, is refnic in that layout: a cable=shm between the two
processes, each lcore's TX doorbell delivering into the other's rings.

    latency.py [COUNT] [ROUNDS] [PROFILE] [SIZE] [OTHER_PMD_DIR] [DEVARGS]

OTHER_PMD_DIR: a directory holding another build's librte_net_refnic.so,
which refnic-pingpong then loads (LD_LIBRARY_PATH) for a row refnic-other,
the pair in one process, to compare builds in the same rounds ("": none).
DEVARGS: more refnic devargs for two more rows, refnic[DEVARGS] and
refnic[DEVARGS]-2p, to compare settings in the same rounds.

Percentiles come from the rounds' histograms added up (refnic-pingpong's
--csv buckets: 16 per power of two), read the way the app reads its own:
upper bound of the bucket, at most the max. Prints a markdown table and one
JSON line per system.
"""

import csv
import ctypes
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

WARMUP = 10000
PCTS = [("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9)]


def app():
    path = os.path.join(os.environ.get("REFNIC_BUILD", "build"), "app", "refnic-pingpong")
    if not os.access(path, os.X_OK):
        sys.exit("latency.py: no %s; run through devtools/bench.sh" % path)
    return path


def systems(profile, other, devargs=""):
    sock = "/run/refnic-bench-lat-%d.sock" % os.getpid()
    prof = ",profile=" + profile if profile else ""

    def pair(extra):
        return ["net_refnic0,cable=lat" + prof + extra, "net_refnic1,cable=lat" + prof + extra]

    def shm(extra):
        return ["net_refnic0,cable=shm:lat%d" % os.getpid() + prof + extra] * 2

    var = "," + devargs if devargs else None
    return [("refnic", pair(""), None)] + \
        ([("refnic-other", pair(""), None)] if other else []) + \
        ([("refnic[%s]" % devargs, pair(var), None)] if var else []) + [
        ("memif", ["net_memif0,role=server,socket=" + sock,
                   "net_memif1,role=client,socket=" + sock], sock),
        ("memif-2p", ["net_memif0,role=client,socket=" + sock,
                      "net_memif0,role=server,socket=" + sock], sock),
        ("refnic-2p", shm(""), None),
    ] + ([("refnic[%s]-2p" % devargs, shm(var), None)] if var else [])


def eal(prefix, lcore, vdevs):
    argv = [app(), "-l", str(lcore), "--no-huge", "-m", "512", "--no-pci",
            "--no-telemetry", "--file-prefix=" + prefix]
    for v in vdevs:
        argv += ["--vdev", v]
    return argv


def _die_with_parent():
    # In the server before exec: if this script dies, even by SIGKILL, the
    # kernel ends the server too, which would otherwise poll lcore 1 forever.
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG


def start_server(prefix, vdev):
    """memif-2p's server process on lcore 1; returns it once it serves."""
    srv = subprocess.Popen(eal(prefix, 1, [vdev]) + ["--", "--role", "server",
                                                     "--duration", "3600"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           preexec_fn=_die_with_parent)
    err = b""
    deadline = time.monotonic() + 30
    while b"running:" not in err:
        left = deadline - time.monotonic()
        if left <= 0 or srv.poll() is not None:
            srv.kill()
            srv.wait()
            sys.exit("latency.py: memif-2p server did not start:\n" + err.decode(errors="replace"))
        if select.select([srv.stderr], [], [], left)[0]:
            err += os.read(srv.stderr.fileno(), 4096)
    return srv


def steal_ticks():
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    return int(fields[7]), sum(int(x) for x in fields)


def measure(name, vdevs, sock, count, size, tmp, other):
    prefix = "lat%d_%s" % (os.getpid(), re.sub(r"\W", "_", name))
    env = dict(os.environ, LD_LIBRARY_PATH=other) if name == "refnic-other" else None
    path = os.path.join(tmp, re.sub(r"\W", "_", name) + ".csv")
    srv = None
    if name.endswith("-2p"):
        srv = start_server(prefix + "s", vdevs[1])
        argv = eal(prefix, 0, vdevs[:1]) + ["--", "--role", "client"]
    else:
        argv = eal(prefix, 0, vdevs) + ["--", "--role", "both"]
    argv += ["--count", str(count), "--warmup", str(WARMUP), "--size", str(size),
             "--timeout-ms", "1000", "--json", "--csv", path]
    s0 = steal_ticks()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env)
    finally:
        if srv is not None:
            srv.send_signal(signal.SIGINT)
            try:
                srv.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.communicate()
        if sock and os.path.exists(sock):
            os.unlink(sock)
        subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix, "/var/run/dpdk/" + prefix + "s"])
    s1 = steal_ticks()
    if p.returncode != 0:
        sys.exit("latency.py: %s failed (%d):\n%s" % (name, p.returncode, p.stderr[-3000:]))
    r = json.loads(p.stdout)
    with open(path) as f:
        r["buckets"] = [(int(b["lower_ns"]), int(b["upper_ns"]), int(b["count"]))
                        for b in csv.DictReader(f)]
    r["steal"] = (s1[0] - s0[0]) / max(1, s1[1] - s0[1])
    return r


def merged(rounds):
    """Percentiles over the rounds' histograms added up."""
    counts = {}
    for r in rounds:
        for lo, hi, n in r["buckets"]:
            counts[(lo, hi)] = counts.get((lo, hi), 0) + n
    buckets = sorted(counts.items())
    total = sum(n for _, n in buckets)
    lo_all = min(r["min_ns"] for r in rounds)
    hi_all = max(r["max_ns"] for r in rounds)
    out = {"samples": total, "min_ns": lo_all, "max_ns": hi_all,
           "mean_ns": sum(r["mean_ns"] * r["samples"] for r in rounds) / total}
    for label, p in PCTS:
        # In whole hundredths of a percent, as the app does: p / 100 * total
        # in floats rounds 99.9% of 1000 up to 1000.
        rank = max(1, min(total, -(-total * round(p * 100) // 10000)))
        seen = 0
        for (lo, hi), n in buckets:
            seen += n
            if seen >= rank:
                break
        out[label.replace(".", "") + "_ns"] = max(lo_all, min(hi - 1, hi_all))
    return out


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    profile = sys.argv[3] if len(sys.argv) > 3 else ""     # "": the defaults
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 64
    other = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None
    devargs = sys.argv[6] if len(sys.argv) > 6 else ""
    results = {name: [] for name, _, _ in systems(profile, other, devargs)}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):     # interleaved: drift falls on all alike
            for name, vdevs, sock in systems(profile, other, devargs):
                results[name].append(measure(name, vdevs, sock, count, size, tmp, other))
    m = {name: merged(rs) for name, rs in results.items()}
    print("| system | samples | p50 us | p90 us | p99 us | p99.9 us | max us | "
          "p50 per round us | p99 per round us | p99 vs memif | VM steal |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |")
    for name, rs in results.items():
        s = m[name]
        print("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.1f | %s | %s | %.2fx | %.1f%% |" % (
            name, s["samples"], s["p50_ns"] / 1e3, s["p90_ns"] / 1e3, s["p99_ns"] / 1e3,
            s["p999_ns"] / 1e3, s["max_ns"] / 1e3,
            " ".join("%.2f" % (r["p50_ns"] / 1e3) for r in rs),
            " ".join("%.2f" % (r["p99_ns"] / 1e3) for r in rs),
            s["p99_ns"] / m["memif"]["p99_ns"],
            100 * sum(r["steal"] for r in rs) / len(rs)))
    for name, rs in results.items():
        line = {"system": name, "profile": profile if name.startswith("refnic") else None,
                "rounds": rounds, "count": count, "size": size}
        line.update(m[name])
        line["mean_ns"] = round(line["mean_ns"], 1)
        line["p50_ns_rounds"] = [r["p50_ns"] for r in rs]
        line["p99_ns_rounds"] = [r["p99_ns"] for r in rs]
        line["lost"] = sum(r["lost"] for r in rs)
        line["p99_vs_memif"] = round(m[name]["p99_ns"] / m["memif"]["p99_ns"], 3)
        print(json.dumps(line))


if __name__ == "__main__":
    main()
