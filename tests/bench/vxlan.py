"""Two processes cabled across "hosts", in one run: refnic's vxlan cable,
its tap cable into the kernel's own VXLAN, and its tap cable with a local
bridge between the two TAPs (no tunnel: what the kernel costs alone).

Two network namespaces ("hosts") joined by a veth, IPv6 off. One stock
testpmd per host, one refnic port each, 64-byte frames, each process on a
CPU of its own (main and forwarding lcore share it):

    vxlan              cable=vxlan: to the other host over the veth
    tap+kernel vxlan   cable=tap: in each host, the TAP and a kernel vxlan
                       device (id 42, port 8472) on a bridge, the vxlan
                       device's remote the other host: what a user without
                       refnic's cable would build
    tap+bridge         cable=tap: both TAPs on one bridge in host 0

Per system and round (rounds interleave the systems):
  - one way: host 0 txonly, host 1 rxonly; Mpps = host 1's RX rate
  - both ways: flowgen on both (it sends and takes, dropping what it
    takes); Mpps = each host's RX rate, and their sum
  - the kernel's share: of the CPU time the two testpmd processes used
    while measuring (both ways), the part spent in the kernel (stime / (utime
    + stime) from /proc/PID/stat: the sockets' and TAPs' work, softirqs
    landing on them included)
  - pingpong: refnic-pingpong, client on host 0 (CPU 0), server on host 1
    (CPU 1), one probe in flight, 64 B: p50 and p99 of the round trip.
Medians over the rounds; the ratios against tap+kernel vxlan and tap+bridge.

    vxlan.py [SECONDS] [ROUNDS] [PINGS]     (default 3 s, 3 rounds, 20000 probes)
"""

import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402

IP = shutil.which("ip")
WARMUP_S = 1.0
UNDER = ("10.226.0.1", "10.226.0.2")
LCORES = (("--lcores", "0@0,1@0"), ("--lcores", "0@1,1@1"))
SYSTEMS = ("vxlan", "tap+kernel vxlan", "tap+bridge")


def run(argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (argv, r.stdout))
    return r.stdout


class Hosts:
    """Namespaces refnic-bvx<pid>{0,1}, a veth between them, and in each a
    bridge "brk" with a kernel vxlan device whose remote is the other, and
    a bridge "brl" in host 0 for the tap+bridge system."""

    def __init__(self):
        pid = os.getpid() % 100000
        self.ns = ["refnic-bvx%d%d" % (pid, i) for i in (0, 1)]
        self.tag = pid % 10000
        for ns in self.ns:
            run([IP, "netns", "add", ns])
            for key in ("all", "default"):
                run([IP, "netns", "exec", ns, "sysctl", "-qw",
                     "net.ipv6.conf.%s.disable_ipv6=1" % key])
            run([IP, "-n", ns, "link", "set", "lo", "up"])
        veth = ["bvx%dv0" % self.tag, "bvx%dv1" % self.tag]
        run([IP, "link", "add", veth[0], "netns", self.ns[0], "type", "veth",
             "peer", "name", veth[1], "netns", self.ns[1]])
        for i in (0, 1):
            ns = self.ns[i]
            run([IP, "-n", ns, "addr", "add", UNDER[i] + "/24", "dev", veth[i]])
            run([IP, "-n", ns, "link", "set", veth[i], "up"])
            run([IP, "-n", ns, "link", "add", "vxk", "type", "vxlan", "id", "42",
                 "remote", UNDER[1 - i], "local", UNDER[i], "dstport", "8472", "nolearning"])
            run([IP, "-n", ns, "link", "add", "brk", "type", "bridge"])
            run([IP, "-n", ns, "link", "set", "vxk", "master", "brk"])
            for dev in ("vxk", "brk"):
                run([IP, "-n", ns, "link", "set", dev, "up"])
        run([IP, "-n", self.ns[0], "link", "add", "brl", "type", "bridge"])
        run([IP, "-n", self.ns[0], "link", "set", "brl", "up"])

    def system(self, name):
        """(vdevs, namespaces, setup after the processes started) of a system."""
        taps = ["rfbvx%da" % self.tag, "rfbvx%db" % self.tag]
        # net_refnic0 and net_refnic1: the device derives its MAC from
        # the name, and two ports of one MAC on a bridge lose each other's
        # frames.
        if name == "vxlan":
            return (["net_refnic%d,cable=vxlan:%s,vxlan_local=%s" % (i, UNDER[1 - i], UNDER[i])
                     for i in (0, 1)], self.ns, None)
        tap_vdevs = ["net_refnic%d,cable=tap:%s" % (i, t) for i, t in enumerate(taps)]
        if name == "tap+kernel vxlan":
            def enslave():
                for i in (0, 1):
                    run([IP, "-n", self.ns[i], "link", "set", taps[i], "master", "brk"])
                    run([IP, "-n", self.ns[i], "link", "set", taps[i], "up"])
            return tap_vdevs, self.ns, enslave

        def bridge():
            for t in taps:
                run([IP, "-n", self.ns[0], "link", "set", t, "master", "brl"])
                run([IP, "-n", self.ns[0], "link", "set", t, "up"])
        return tap_vdevs, [self.ns[0]] * 2, bridge

    def close(self):
        for ns in self.ns:
            subprocess.run([IP, "netns", "del", ns], capture_output=True)


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])       # utime, stime


def rx_rates(tps, seconds):
    """Each testpmd's RX Mpps over the window, and the kernel's share of
    their CPU time meanwhile."""
    for tp in tps:
        tp.cmd("clear port stats all")
    before = [tp.port_stats(0)["RX-packets"] for tp in tps]
    t_before = [cpu_ticks(tp.proc.pid) for tp in tps]
    t0 = time.monotonic()
    time.sleep(seconds)
    after = [tp.port_stats(0)["RX-packets"] for tp in tps]
    dt = time.monotonic() - t0
    t_after = [cpu_ticks(tp.proc.pid) for tp in tps]
    user = sum(a[0] - b[0] for a, b in zip(t_after, t_before))
    system = sum(a[1] - b[1] for a, b in zip(t_after, t_before))
    return [(a - b) / dt / 1e6 for a, b in zip(after, before)], system / max(1, user + system)


def throughput(hosts, name, seconds):
    """(one-way Mpps, [both-ways Mpps host 0, host 1], kernel share both ways)."""
    vdevs, nss, setup = hosts.system(name)
    pmd = [os.environ["REFNIC_PMD"]]
    with TestPmd([vdevs[1]], plugins=pmd, wrapper=[IP, "netns", "exec", nss[1]],
                 lcores=LCORES[1]) as b, \
            TestPmd([vdevs[0]], plugins=pmd, wrapper=[IP, "netns", "exec", nss[0]],
                    lcores=LCORES[0]) as a:
        if setup:
            setup()
        b.cmd("set fwd rxonly")
        b.cmd("start")
        a.cmd("set fwd txonly")
        a.cmd("start")
        time.sleep(WARMUP_S)
        one_way = rx_rates([b], seconds)[0][0]
        a.cmd("stop")
        b.cmd("stop")
        for tp in (a, b):
            tp.cmd("set fwd flowgen")
            tp.cmd("start")
        time.sleep(WARMUP_S)
        both, kernel = rx_rates([a, b], seconds)
        for tp in (a, b):
            tp.cmd("stop")
    return one_way, both, kernel


def _die_with_parent():
    import ctypes
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG


def pingpong(hosts, name, count, prefix):
    """Round trips between two refnic-pingpong processes: (p50, p99) in us."""
    app = os.path.join(os.environ["REFNIC_BUILD"], "app", "refnic-pingpong")
    vdevs, nss, setup = hosts.system(name)

    def argv(i, role):
        return [IP, "netns", "exec", nss[i], app, "-l", str(i), "--no-huge", "-m", "512",
                "--no-pci", "--no-telemetry", "--file-prefix=%s%d" % (prefix, i),
                "--vdev", vdevs[i], "--", "--role", role]

    def started(proc, what):
        """What proc printed up to refnic-pingpong's "running:" (its port is
        started, its TAP made: only then can the TAP join a bridge)."""
        err, deadline = b"", time.monotonic() + 60
        while b"running:" not in err:
            left = deadline - time.monotonic()
            if left <= 0 or proc.poll() is not None:
                raise RuntimeError("pingpong %s (%s) did not start: %s" % (what, name, err))
            if select.select([proc.stderr], [], [], left)[0]:
                err += os.read(proc.stderr.fileno(), 4096)
        return err.decode(errors="replace")

    srv = subprocess.Popen(argv(1, "server") + ["--duration", "3600"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           preexec_fn=_die_with_parent)
    cli = None
    try:
        started(srv, "server")
        # Probes sent before the bridges are whole are lost (1 s each, in
        # the warm-up): the client's link is up before its TAP is enslaved.
        cli = subprocess.Popen(argv(0, "client") + ["--count", str(count), "--warmup", "1000",
                                                    "--timeout-ms", "1000", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=_die_with_parent)
        head = started(cli, "client")
        if setup:
            setup()
        out, cerr = cli.communicate(timeout=900)
        if cli.returncode != 0:
            raise RuntimeError("pingpong client (%s) failed: %s%s"
                               % (name, head, cerr.decode(errors="replace")[-2000:]))
        r = json.loads(out)
        return r["p50_ns"] / 1e3, r["p99_ns"] / 1e3
    finally:
        if cli is not None and cli.poll() is None:
            cli.kill()
            cli.wait()
        srv.send_signal(signal.SIGINT)
        try:
            srv.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.communicate()
        for i in (0, 1):
            subprocess.run(["rm", "-rf", "/var/run/dpdk/%s%d" % (prefix, i)])


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    pings = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    hosts = Hosts()
    res = {name: [] for name in SYSTEMS}
    try:
        for r in range(rounds):
            for name in SYSTEMS:
                one, both, kernel = throughput(hosts, name, seconds)
                p50, p99 = pingpong(hosts, name, pings, "bvx%d_%d" % (os.getpid(), r))
                print("# round %d %s: one way %.3f, both ways %.3f + %.3f Mpps, kernel %.0f%%, "
                      "RTT p50 %.1f p99 %.1f us" % (r, name, one, both[1], both[0], 100 * kernel,
                                                   p50, p99), flush=True)
                res[name].append((one, both[0] + both[1], both[1], both[0], kernel, p50, p99))
    finally:
        hosts.close()
    med = {name: [statistics.median(col) for col in zip(*rows)] for name, rows in res.items()}
    print("| system | one way Mpps | both ways Mpps (0->1, 1->0) | kernel share "
          "| RTT p50 us | RTT p99 us |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (one, both, b01, b10, kernel, p50, p99) in med.items():
        print("| %s | %.3f | %.3f (%.3f, %.3f) | %.0f%% | %.1f | %.1f |"
              % (name, one, both, b01, b10, 100 * kernel, p50, p99))
    vx = med["vxlan"]
    for other in SYSTEMS[1:]:
        o = med[other]
        print("| vxlan / %s | %.2fx | %.2fx | | %.2fx | %.2fx |"
              % (other, vx[0] / o[0], vx[1] / o[1], vx[5] / o[5], vx[6] / o[6]))
    print("(medians of %d rounds x %g s, each column on its own; pingpong %d probes a round)"
          % (rounds, seconds, pings))


if __name__ == "__main__":
    main()
