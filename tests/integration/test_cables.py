"""Cables that leave the process, through stock testpmd: an shm cable between
two testpmd processes (forwarding as users lay it out, against memif in the
same layout; a side that quits, a side that is killed mid-burst), and a TAP
cable that lets the kernel ping a DPDK responder.
"""

import os
import re
import shutil
import subprocess
import time

import pytest

from helpers import pmd_path, refnic, wait_link
from testpmd import TestPmd

HERE = os.path.dirname(os.path.abspath(__file__))

# Two processes as users run an application against a generator: each on a
# core of its own, or both on every core (lcores that busy-poll every CPU,
# where a helper thread would get none).
LAYOUTS = {
    "own-cores": (("--lcores", "0@1,1@1"), ("--lcores", "0@0,1@0")),
    "every-core": (("-l", "0-1"), ("-l", "0-1")),
}
FORWARD_S = 2
# Before the cable delivered on the sending thread, refnic moved 1/1300 of
# what memif moved in the own-cores layout; today more than memif (perf.md,
# "Two processes").
MEMIF_FLOOR = 0.1


def shm_vdev(tag):
    return "net_refnic0,cable=shm:it%d%s" % (os.getpid(), tag)


def forward_two_processes(vdevs, layout, refnic_ports):
    """testpmd A and B on one port each, io forwarding the bursts both sent
    with tx_first, nothing typed for FORWARD_S. Returns per process its
    'show port xstats 0' and, for refnic, its /refnic/device telemetry."""
    tps = [TestPmd([vdev], lcores=lcores, telemetry=refnic_ports,
                   plugins=[pmd_path()] if refnic_ports else [],
                   testpmd_args=["--disable-link-check"])
           for vdev, lcores in zip(vdevs, LAYOUTS[layout])]
    try:
        for tp in tps:
            tp.start()
        for tp in tps:
            wait_link(tp, 0, "up", 0)
        for tp in tps:
            tp.cmd("start tx_first", check=True)
        time.sleep(FORWARD_S)
        for tp in tps:
            tp.stop()
        xstats = [tp.xstats(0) for tp in tps]
        devices = [tp.telemetry("/refnic/device,net_refnic0")[0] if refnic_ports else None
                   for tp in tps]
        return xstats, devices
    finally:
        for tp in tps:
            tp.close()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_shm_two_processes_forward_at_memif_scale(layout):
    """Every frame one side sent arrived at the other, counted by both
    devices, none by an engine thread, at a rate of memif's order in the
    same layout and the same run (memif is the control)."""
    sock = "/run/refnic-it-memif-%d.sock" % os.getpid()
    memif, _ = forward_two_processes(["net_memif0,role=server,socket=" + sock,
                                      "net_memif0,role=client,socket=" + sock],
                                     layout, False)
    (xa, xb), (da, db) = forward_two_processes([shm_vdev("f" + layout)] * 2, layout, True)
    for name, tx, rx in (("A to B", xa, xb), ("B to A", xb, xa)):
        assert tx["tx_good_packets"] == rx["rx_good_packets"] > 0, (name, tx, rx)
        assert tx["cable_tx_dropped"] == 0 and rx["rx_no_buffer"] == 0, (name, tx, rx)
    assert da["engine_tx_packets"] == 0 and db["engine_tx_packets"] == 0, (da, db)
    refnic_rx = xa["rx_good_packets"] + xb["rx_good_packets"]
    memif_rx = memif[0]["rx_good_packets"] + memif[1]["rx_good_packets"]
    assert refnic_rx >= MEMIF_FLOOR * memif_rx, (layout, refnic_rx, memif_rx)


def burst_sizes(stop_output, kind):
    """The burst sizes testpmd's record-burst-stats names for kind ("TX"):
    {frames: percent of the bursts}, its two most common sizes."""
    m = re.search(r"%s-bursts : \d+ \[(.*)\]" % kind, stop_output)
    assert m, stop_output
    return {int(n): int(pct) for pct, n in re.findall(r"(\d+)% of (\d+) pkts", m.group(1))}


def test_shm_far_end_starts_before_the_pass_ends():
    """A pass that delivers a burst of 32 over shm makes the first 16 visible
    while it writes the rest: the far lcore, polling on its own core, takes
    them and forwards bursts of 16. (Published only at the pass's end, the
    two processes took turns burst by burst, and forwarded bursts of 32 at
    half memif's rate.) testpmd's own burst statistics are the witness: the
    size it forwards most is less than a pass's 32."""
    vdev = shm_vdev("p")
    tps = [TestPmd([vdev], lcores=lcores, plugins=[pmd_path()],
                   testpmd_args=["--disable-link-check"])
           for lcores in LAYOUTS["own-cores"]]
    try:
        for tp in tps:
            tp.start()
        for tp in tps:
            wait_link(tp, 0, "up", 0)
            tp.cmd("set record-burst-stats on", check=True)
        for tp in tps:
            tp.cmd("start tx_first", check=True)
        time.sleep(FORWARD_S)
        outputs = [tp.cmd("stop") for tp in tps]
    finally:
        for tp in tps:
            tp.close()
    # Alone, 99% of the bursts are of 16; published only at the pass's end
    # (planted: RX_PUBLISH_EVERY 1000), 32 leads at 63-89%. Beside a busy
    # loop the far lcore loses its core mid-pass and the sizes spread (45%
    # of 16 and 17% of 15 in one loaded run; 20% of 16 and 19% of 17 in
    # another): no share holds, but a pass's 32 never led.
    for side, out in zip("AB", outputs):
        tx = burst_sizes(out, "TX")
        common = max(tx, key=tx.get)
        assert 0 < common < 32 and tx[common] > tx.get(32, 0), (side, tx)


def flood(sender, receiver, seconds):
    """sender txonly into receiver (rxonly, started) for seconds; returns
    (frames the sender's device sent into the cable, frames the receiver's
    device took or dropped for want of buffers), which must be equal."""
    before = receiver.xstats(0)
    sender.cmd("set fwd txonly", check=True)
    sender.cmd("start", check=True)
    time.sleep(seconds)
    sender.stop()
    x = sender.xstats(0)
    after = receiver.xstats(0)
    got = sum(after[k] - before[k] for k in ("rx_good_packets", "rx_no_buffer"))
    return x["tx_good_packets"] - x["cable_tx_dropped"], got


def test_shm_two_processes_forward_and_restart():
    """A side that quits and a new one in its place: the survivor's link
    goes and comes back, and every frame the new one sends is accounted
    for by the survivor's device."""
    vdev = shm_vdev("a")
    with refnic([vdev]) as a:
        assert a.port_info(0).get("Link status") == "down"
        a.cmd("set fwd rxonly", check=True)
        a.cmd("start", check=True)
        with refnic([vdev]) as b:
            wait_link(a, 0, "up", 1)
            sent, got = flood(b, a, 1)
            assert sent == got > 100000, (sent, got)
        # b quit: a sees its link go, then come back with a new process.
        wait_link(a, 0, "down", 2)
        with refnic([vdev]) as c:
            wait_link(a, 0, "up", 3)
            sent, got = flood(c, a, 1)
            assert sent == got > 100000, (sent, got)


def test_shm_peer_killed_mid_burst():
    """SIGKILL of a side while its lcore is delivering into the other's
    rings: the survivor's link goes, the dead end is free again, and the
    next process's frames all arrive."""
    vdev = shm_vdev("k")
    with refnic([vdev]) as a:
        a.cmd("set fwd rxonly", check=True)
        a.cmd("start", check=True)
        b = refnic([vdev]).start()
        wait_link(a, 0, "up", 1)
        b.cmd("set fwd txonly", check=True)
        b.cmd("start", check=True)
        time.sleep(0.5)
        b.proc.kill()           # mid-burst, no clean detach: the end is left taken
        b.close()
        wait_link(a, 0, "down", 2)
        with refnic([vdev]) as c:
            wait_link(a, 0, "up", 3)
            sent, got = flood(c, a, 1)
            assert sent == got > 100000, (sent, got)


def own_cores_flood(devargs):
    """B floods A (rxonly) for a second, each process on its own core.
    Returns what A's device took (rx_good_packets) and its xstats' deltas."""
    vdev = shm_vdev("u%d" % (abs(hash(devargs)) % 100000)) + ("," + devargs if devargs else "")
    lcores = LAYOUTS["own-cores"]
    with TestPmd([vdev], lcores=lcores[0], plugins=[pmd_path()]) as a, \
            TestPmd([vdev], lcores=lcores[1], plugins=[pmd_path()]) as b:
        wait_link(a, 0, "up", 1)
        a.cmd("set fwd rxonly", check=True)
        a.cmd("start", check=True)
        x0 = a.xstats(0)
        sent, got = flood(b, a, 1)
        x = a.xstats(0)
        a.stop()
    assert sent == got > 0, (devargs, sent, got)
    return {k: x[k] - x0.get(k, 0) for k in x}


@pytest.mark.parametrize("devargs", ["profile=vm", "fault_doorbell_drop=200"])
def test_shm_flood_under(devargs):
    """What the device models and injects holds across the processes: VM
    exit costs on both sides' stores, missed doorbells (the receiver's
    missed RX TAIL writes, re-rung by its driver's check, are taken into
    the file): every frame sent is taken or counted missing by the
    receiver, and it takes at least a tenth of what the defaults take in
    the same run (a ring left stalled after a missed doorbell takes
    almost nothing; measured 0.29x under vm, 0.38x with the drops).
    (Rx interrupts across processes: test_fwd.py.)"""
    control = own_cores_flood("")
    x = own_cores_flood(devargs)
    assert x["rx_good_packets"] >= 0.1 * control["rx_good_packets"], (devargs, x, control)
    if devargs.startswith("fault_doorbell_drop"):
        assert x["doorbells_dropped"] > 0 and x["rx_q0_missed_doorbell_recoveries"] > 0, x


def test_shm_link_down_up_seen_by_the_far_process():
    """set link-down on one side: the other process sees its link go (LSC)
    and come back with set link-up, and traffic then flows whole."""
    vdev = shm_vdev("l")
    with refnic([vdev]) as a, refnic([vdev]) as b:
        wait_link(a, 0, "up", 1)
        b.cmd("set link-down port 0", check=True)
        wait_link(a, 0, "down", 2)
        b.cmd("set link-up port 0", check=True)
        wait_link(a, 0, "up", 3)
        a.cmd("set fwd rxonly", check=True)
        a.cmd("start", check=True)
        sent, got = flood(b, a, 1)
        assert sent == got > 100000, (sent, got)


def _run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=30)


def test_tap_ping_from_a_namespace():
    ip = shutil.which("ip")
    if not os.path.exists("/dev/net/tun") or ip is None:
        pytest.skip("needs /dev/net/tun and iproute2's ip")
    ns = "refnic-it%d" % os.getpid()
    ifname = "rfit%d" % (os.getpid() % 100000)
    if _run([ip, "netns", "add", ns]).returncode != 0:
        pytest.skip("this machine forbids network namespaces")
    try:
        with refnic(["net_refnic0,cable=tap:" + ifname]) as tp:
            tp.cmd("set fwd icmpecho", check=True)
            tp.cmd("start", check=True)
            for argv in ([ip, "link", "set", ifname, "netns", ns],
                         [ip, "-n", ns, "addr", "add", "10.231.0.1/24", "dev", ifname],
                         [ip, "-n", ns, "link", "set", ifname, "up"]):
                r = _run(argv)
                assert r.returncode == 0, (argv, r.stdout)
            r = _run([ip, "netns", "exec", ns, "python3",
                      os.path.join(HERE, "icmp_ping.py"), "10.231.0.2", "3"])
            assert r.returncode == 0 and "3/3 replies" in r.stdout, r.stdout
            fwd = tp.stop()[0]
            # ARP request + 3 echo requests in; ARP reply + 3 echo replies out.
            assert fwd["RX-packets"] >= 4 and fwd["TX-packets"] >= 4, fwd
    finally:
        _run([ip, "netns", "del", ns])
