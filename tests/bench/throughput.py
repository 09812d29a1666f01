"""Stock testpmd io forwarding, 64-byte frames from tx_first, one forwarding
lcore, side by side in one run: a refnic pair, a memif pair (server and
client in the same process), vhost-user + virtio-user (the software NIC
with descriptor rings users pick instead: a net_vhost port and a
virtio_user port hot-attached to it in the same testpmd) and a net_null
pair (the ceiling of testpmd's own loop). Per system: Mpps per port, and for refnic the TX and RX tail
writes per packet (the device's counts) and how busy its engine thread was.

    throughput.py [SECONDS] [ROUNDS] [REFNIC_DEVARGS...]

Each REFNIC_DEVARGS is one refnic configuration to measure ("" is what a
user gets with no devargs), optionally followed by testpmd options after a
space ("profile=vm --burst=1"); by default: the defaults, exec=thread, and
profile=baremetal.

Prints a markdown table (medians over the rounds) and one JSON line per system.
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402

WARMUP_S = 1.0


DEFAULT_CONFIGS = ["", "exec=thread", "profile=baremetal"]


def systems(configs):
    sock = "/run/refnic-bench-memif-%d.sock" % os.getpid()
    out = []
    pair = ["net_refnic0,cable=bench", "net_refnic1,cable=bench"]
    others = 0
    for config in configs:
        if config.startswith("pmd="):
            # Another build of the PMD (staged by bench.sh), with the defaults.
            others += 1
            out.append(("refnic (defaults), other build %d" % others, pair, [], None,
                        config[len("pmd="):]))
            continue
        # "DEVARGS [--burst=N ...]": testpmd options may follow the devargs.
        devargs, *options = config.split(" ") if config else [""]
        extra = "," + devargs if devargs else ""
        out.append(("refnic " + config if config else "refnic (defaults)",
                    [v + extra for v in pair], options, None, None))
    vhost_sock = "/run/refnic-bench-vhost-%d.sock" % os.getpid()
    return out + [
        ("memif", ["net_memif0,role=server,socket=" + sock,
                   "net_memif1,role=client,socket=" + sock], None, None, None),
        # virtio_user connects to the vhost-user server once that listens.
        ("vhost-user", ["net_vhost0,iface=%s,queues=1" % vhost_sock], None,
         "virtio_user0,path=%s,queues=1" % vhost_sock, None),
        ("null", ["net_null0", "net_null1"], None, None, None),
    ]


def thread_cpu_s(pid, name):
    """CPU seconds used so far by the named thread of pid, or None."""
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() != name:
                    continue
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            continue
    return None


def median_of(runs, key, idx=None):
    """Median over rounds of r[key] (or r[key][idx]), runs that had none left out."""
    vals = [r[key] if idx is None else r[key][idx] for r in runs]
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def measure(vdevs, options, seconds, attach=None, plugin=None):
    """options: testpmd options for a refnic system, None for the others;
    attach: a second port's devargs, attached once testpmd runs; plugin:
    the PMD to load instead of this build's."""
    is_refnic = options is not None
    plugins = [plugin] if plugin else None if is_refnic else []
    with TestPmd(vdevs, plugins=plugins,
                 testpmd_args=["--total-num-mbufs=16384"] + (options or [])) as tp:
        if attach:
            out = tp.cmd("port attach " + attach)
            if "is attached" not in out:
                raise RuntimeError("port attach %s: %s" % (attach, out))
            tp.cmd("port start all", check=True)
        tp.cmd("start tx_first", check=True)
        time.sleep(WARMUP_S)
        s0, x0 = tp.port_stats(), [tp.xstats(p) for p in (0, 1)]
        cpu0, t0 = thread_cpu_s(tp.proc.pid, "refnic-engine"), time.monotonic()
        time.sleep(seconds)
        s1, x1 = tp.port_stats(), [tp.xstats(p) for p in (0, 1)]
        cpu1, t1 = thread_cpu_s(tp.proc.pid, "refnic-engine"), time.monotonic()
        tp.stop()
    elapsed = t1 - t0
    r = {"mpps": [(s1[p]["RX-packets"] - s0[p]["RX-packets"]) / elapsed / 1e6 for p in (0, 1)]}
    if is_refnic:
        tx = sum(s1[p]["TX-packets"] - s0[p]["TX-packets"] for p in (0, 1))
        rx = sum(s1[p]["RX-packets"] - s0[p]["RX-packets"] for p in (0, 1))
        txdb = sum(x1[p]["tx_doorbell_writes"] - x0[p]["tx_doorbell_writes"] for p in (0, 1))
        rxdb = sum(x1[p]["rx_doorbell_writes"] - x0[p]["rx_doorbell_writes"] for p in (0, 1))
        r["tx_tail_writes_per_packet"] = txdb / tx if tx else None
        r["rx_tail_writes_per_packet"] = rxdb / rx if rx else None
        r["engine_busy"] = (cpu1 - cpu0) / elapsed if cpu0 is not None else None
    return r


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    configs = sys.argv[3:] or DEFAULT_CONFIGS
    if all(c.startswith("pmd=") for c in configs):
        configs = [""] + configs    # other builds beside this one's defaults
    results = {system[0]: [] for system in systems(configs)}
    for _ in range(rounds):         # interleaved: drift falls on all alike
        for name, vdevs, options, attach, plugin in systems(configs):
            results[name].append(measure(vdevs, options, seconds, attach, plugin))

    def med(name, key, idx=None):
        return median_of(results[name], key, idx)

    memif = med("memif", "mpps", 0) + med("memif", "mpps", 1)
    vhost = med("vhost-user", "mpps", 0) + med("vhost-user", "mpps", 1)
    print("| system | port 0 Mpps | port 1 Mpps | total Mpps | vs memif | vs vhost-user | "
          "TX tail writes/packet | RX tail writes/packet | engine thread busy |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in results:
        p0, p1 = med(name, "mpps", 0), med(name, "mpps", 1)
        line = "| %s | %.2f | %.2f | %.2f | %.2fx | %.2fx |" % (
            name, p0, p1, p0 + p1, (p0 + p1) / memif, (p0 + p1) / vhost)
        if name.startswith("refnic"):
            line += " %.3f | %.3f | %.0f%% |" % (med(name, "tx_tail_writes_per_packet"),
                                                med(name, "rx_tail_writes_per_packet"),
                                                100 * med(name, "engine_busy"))
        else:
            line += " | | |"
        print(line)
    for name in results:
        print(json.dumps({"system": name, "seconds": seconds,
                          "rounds": rounds, "mpps_port0": med(name, "mpps", 0),
                          "mpps_port1": med(name, "mpps", 1)}))


if __name__ == "__main__":
    main()
