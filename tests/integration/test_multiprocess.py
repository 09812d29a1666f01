"""DPDK multi-process: a secondary testpmd drives the primary's refnic ports.

The device lives in the primary, in DPDK's memory; the secondary maps its
BAR, rings and state (hugepage memory both processes map). Its queue
doorbells run their device work on its own lcore, the rest of its stores
reach the device through the primary's engine (device/refnic_emu_remote.c). This is how
users run it (doc/guides/nics/refnic.rst, "Multi-process"):

  dpdk-testpmd --proc-type=primary ... -- -i --rxq=2 --txq=2 --num-procs=2 --proc-id=0
  dpdk-testpmd --proc-type=secondary ... -- -i --rxq=2 --txq=2 --num-procs=2 --proc-id=1
"""

import itertools
import os
import time

from helpers import _pair, default_vector, telemetry

_seq = itertools.count()


def test_secondary_testpmd_forwards_on_primary_ports(refnic_pmd, hugepages):
    primary, secondary = _pair(refnic_pmd, telemetry=True)
    with primary:
        assert "attached in a secondary" not in primary.startup
        with secondary:
            assert secondary.port_info(1)["Driver name"] == "net_refnic"
            # Each process picks its own bursts: the vector ones here too.
            for kind in ("rxq", "txq"):
                out = secondary.cmd("show %s info 0 1" % kind, check=True)
                assert "Burst mode: " + default_vector() in out, out
            primary.cmd("start")
            secondary.cmd("start tx_first")
            time.sleep(2)
            secondary.stop()
            primary.stop()
            xs = {p: primary.xstats(p) for p in (0, 1)}
            stats = primary.port_stats()
            devices = telemetry(primary, "/refnic/device,net_refnic0",
                                "/refnic/device,net_refnic1")
        # The secondary's queue pair 1 carried frames both ways, on both
        # ports; nothing was lost or refused.
        for p in (0, 1):
            assert xs[p]["tx_q1_packets"] > 1000, xs[p]
            assert xs[p]["rx_q1_packets"] > 1000, xs[p]
            assert stats[p]["RX-errors"] == 0 and stats[p]["TX-errors"] == 0, stats
        # The secondary's doorbells ran their device work on its own
        # lcore, on the primary's device state: none went through engine
        # 0's mailbox and no engine sent a frame.
        for d in devices:
            assert d["secondary_inline_doorbells"] > 1000, d
            assert d["secondary_stores"] == 0 and d["engine_tx_packets"] == 0, d
        # Frames in flight stay in the rings at stop: each port received what
        # the other sent, to within a ring's worth.
        for tx, rx in ((0, 1), (1, 0)):
            assert abs(stats[tx]["TX-packets"] - stats[rx]["RX-packets"]) <= 2 * 512, stats
        # And it left cleanly: the primary forwards on, alone, frames of its
        # own. RSS off first: it sends every frame to queue 0, the primary's.
        # On (testpmd hashes the IP addresses only) it would send them all to
        # one queue, maybe the secondary's that nobody polls now: since 23.07
        # --txonly-multi-flow varies the UDP source port, no longer the IP
        # source address, so tx_first's frames are a single flow to it.
        primary.cmd("port config all rss none", check=True)
        before = {p: primary.xstats(p) for p in (0, 1)}
        primary.cmd("start tx_first")
        time.sleep(0.5)
        moved = primary.stop()
        after = {p: primary.xstats(p) for p in (0, 1)}
        assert moved[0]["RX-packets"] > 1000 and moved[1]["RX-packets"] > 1000, moved
        for p in (0, 1):
            assert after[p]["rx_q1_packets"] == before[p]["rx_q1_packets"], (before, after)


def test_secondary_is_refused_what_is_the_primarys(refnic_pmd, hugepages):
    """Configuration belongs to the primary: a secondary gets one clear line."""
    primary, secondary = _pair(refnic_pmd)
    with primary, secondary:
        out = secondary.cmd("port config mtu 0 1400")
        assert "belongs to the primary process" in out, out
        out = secondary.cmd("set promisc 0 off")
        assert "belongs to the primary process" in out, out
        # The primary's port is as it was.
        assert primary.port_info(0)["Promiscuous mode"] == "enabled"
        assert primary.cmd("show port info 0").count("MTU: 1500") == 1


def test_failure_found_in_secondary_is_recovered_by_primary(refnic_pmd, hugepages):
    """A bad completion the secondary's burst finds goes to the primary, which
    owns recovery; the secondary's queues carry traffic again after it. Only
    the secondary transmits (txonly; the primary only receives), so every
    garbled TX completion is one the secondary finds."""
    primary, secondary = _pair(refnic_pmd, ",fault_corrupt=tx:100000")
    with primary, secondary:
        primary.cmd("set fwd rxonly")
        primary.cmd("start")
        secondary.cmd("set fwd txonly")
        secondary.cmd("start")
        deadline = time.monotonic() + 20
        while "recovered" not in primary.transcript and time.monotonic() < deadline:
            time.sleep(0.2)
            primary.cmd("show port stats 0")
        assert "(in a secondary process): recovering" in primary.transcript, \
            primary.transcript[-3000:]
        assert "recovered" in primary.transcript, primary.transcript[-3000:]
        # The secondary's queues carry frames again: a count, not a rate,
        # waited for within a bound.
        def sent():
            return primary.xstats(0)["tx_q1_packets"] + primary.xstats(1)["tx_q1_packets"]
        before = after = sent()
        deadline = time.monotonic() + 20
        while after <= before + 1000 and time.monotonic() < deadline:
            time.sleep(0.2)
            after = sent()
        secondary.stop()
        primary.stop()
        assert after > before + 1000, (before, after)


def test_primary_closes_a_port_under_a_forwarding_secondary(refnic_pmd, hugepages):
    """The primary closes a port while a secondary forwards on it: the
    secondary's bursts on it stop before its queues are freed, the secondary
    says so, refuses what it can no longer do with an error testpmd
    reports, goes on with the other port, and quits cleanly."""
    primary, secondary = _pair(refnic_pmd)
    with primary, secondary:
        primary.cmd("start")
        secondary.cmd("start tx_first")
        time.sleep(1)
        primary.stop()
        primary.cmd("port stop 0", check=True)
        assert "Port 0 is closed" in primary.cmd("port close 0", check=True)
        time.sleep(1)
        assert secondary.returncode is None, secondary.transcript[-3000:]
        out = secondary.cmd("show port stats 0")
        assert "failed to get stats (port 0): -95" in out, out
        assert "port 0: closed by the primary process" in secondary.transcript, \
            secondary.transcript[-3000:]
        # Port 1 is the primary's still: its counters still answer the
        # secondary (over the multi-process channel).
        assert "RX-packets" in secondary.cmd("show port stats 1")
        moved = secondary.stop()
        assert moved[1]["TX-packets"] > 0, moved
        secondary.close()
        assert secondary.returncode == 0, secondary.transcript[-3000:]
    assert "did not let go" not in primary.transcript


def test_secondary_reads_the_primarys_clock(refnic_pmd, hugepages):
    """The device clock is the port's, whichever process reads it: the
    primary sets it to 10^6 s (write_time) and reads it; a secondary then
    reads the same clock (read_clock and timesync read_time), from where
    the primary read it plus at most the host time in between, not a clock
    of its own (an unset one reads the host's uptime), and 10 ms later 10 ms
    further on; moving the clock is refused there (-E_RTE_SECONDARY)."""
    import re
    import subprocess
    build = os.environ.get("REFNIC_BUILD")
    tool = os.path.join(build or "", "tests", "refnic-test-mp-clock")
    if not build or not os.access(tool, os.X_OK):
        import pytest
        pytest.skip("needs REFNIC_BUILD with tests/refnic-test-mp-clock")
    prefix = "mpclock%d_%d" % (os.getpid(), next(_seq))
    eal = ["-l", "0", "--no-pci", "--no-telemetry", "--file-prefix=" + prefix, "-d", refnic_pmd]
    primary = subprocess.Popen([tool, "--proc-type=primary", "-m", "256", "--vdev",
                                "net_refnic0"] + eal + ["--", "1000000"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        line = ""
        while not line.startswith("primary clock") and primary.poll() is None:
            line = primary.stdout.readline()
        host0 = time.monotonic_ns()
        assert line.startswith("primary clock"), line
        c0 = int(line.split()[2])
        sec = subprocess.run([tool, "--proc-type=secondary"] + eal, capture_output=True,
                             text=True, timeout=60)
        host = time.monotonic_ns() - host0
        m = re.search(r"secondary clock (\d+) time (\d+) later (\d+) adjust (-?\d+)",
                      sec.stdout)
        assert m is not None, sec.stdout + sec.stderr
        clock, now, later, adjust = (int(g) for g in m.groups())
        assert c0 >= 10 ** 15, c0
        # Each read is a new latch (a stale pair would not move over 10 ms).
        assert c0 < clock <= now < later <= c0 + host * 1.001 + 10 ** 6, \
            (c0, clock, now, later, host)
        assert later - now >= 10 ** 7, (now, later)
        assert adjust == -1001, adjust     # -E_RTE_SECONDARY
    finally:
        primary.communicate("done\n", timeout=30)
