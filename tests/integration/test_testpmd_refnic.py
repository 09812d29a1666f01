"""Stock testpmd on net_refnic ports: what a user of the PMD sees.

Two ports naming the same cable are wired back to back; a port on the default
cable=loopback receives what it sends. The PMD is loaded as a plugin from
$REFNIC_PMD, else from the build tree; without either every test skips.
"""

import os
import re
import time

from helpers import BURST, PAIR_PEERS, probe_fails, refnic, run_traffic
from testpmd import TestPmd

XSTATS = ["tx_doorbell_writes", "rx_doorbell_writes", "admin_commands",
          "admin_polls", "admin_wait_us"]


def test_back_to_back_io_forwarding(pair):
    tp = pair
    run_traffic(tp, PAIR_PEERS)


def test_loopback_port(loopback_port):
    tp = loopback_port
    run_traffic(tp, {0: 0})


def test_port_info(pair):
    tp = pair
    info = tp.port_info(0)
    assert info.get("Driver name") == "net_refnic", info
    assert re.fullmatch(r"([0-9A-F]{2}:){5}[0-9A-F]{2}", info.get("MAC address", "")), info
    assert info.get("Link status") == "up", info


def test_xstats_doorbells(pair):
    tp = pair
    names = tp.xstats(0)
    missing = [name for name in XSTATS if name not in names]
    assert not missing, "missing xstats %s in %s" % (missing, sorted(names))
    assert names["admin_commands"] > 0, names  # probing talks to the device
    tp.cmd("clear port xstats all", check=True)
    run_traffic(tp, PAIR_PEERS)
    xstats = tp.xstats(0)
    stats = tp.port_stats(0)
    # io forwarding after tx_first is a closed loop of one 32-packet burst per
    # direction: a port's RX burst takes what its peer's TX burst sent, so
    # every TX burst is 32 packets and rings TAIL once (the device counts
    # the writes). One per burst, exactly: not one per packet, nor 31.
    tx_packets = stats["TX-packets"]
    assert tx_packets > 0 and tx_packets % BURST == 0, stats
    assert xstats["tx_doorbell_writes"] == tx_packets // BURST, (xstats, stats)
    # RX refills in batches of 32: no more tail writes than batches taken.
    rx_packets = stats["RX-packets"]
    assert 0 < xstats["rx_doorbell_writes"] <= -(-rx_packets // BURST), (xstats, stats)


def test_clear_stats(pair):
    tp = pair
    run_traffic(tp, PAIR_PEERS)
    tp.cmd("clear port stats all", check=True)
    stats = tp.port_stats()
    assert sorted(stats) == [0, 1], stats
    for port in (0, 1):
        assert stats[port]["RX-packets"] == 0 and stats[port]["TX-packets"] == 0, stats
    # Cleared, not stuck at zero: the next run counts exactly its own traffic.
    fwd = run_traffic(tp, PAIR_PEERS)
    stats = tp.port_stats()
    for port in (0, 1):
        for key in ("RX-packets", "TX-packets"):
            assert stats[port][key] == fwd[port][key] > 0, (port, key, stats, fwd)


def test_port_stop_start_close():
    with refnic() as tp:
        run_traffic(tp, PAIR_PEERS)
        tp.cmd("port stop all", check=True)
        tp.cmd("port start all", check=True)
        run_traffic(tp, PAIR_PEERS)
        tp.cmd("port stop 0", check=True)
        tp.cmd("port close 0", check=True)
        assert "Invalid port 0" in tp.cmd("show port info 0")
    assert tp.returncode == 0, tp.returncode


def test_bad_devarg_value():
    probe_fails("net_refnic0,queues=abc", "queues")


def test_unknown_devarg():
    probe_fails("net_refnic0,bogus=1", "bogus")


def engine_cpu_ns(pid):
    """Nanoseconds the process's refnic-engine thread has run on a CPU."""
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            if f.read().startswith("refnic-engine"):
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as s:
                    return int(s.read().split()[0])
    raise AssertionError("no refnic-engine thread in %d" % pid)


def test_idle_engine_sleeps():
    """testpmd with a free core (both lcores on CPU 0), its port started,
    nothing typed: the engine, woken by its timer with nothing to do, goes
    back to sleep. It used to poll 2 ms after each 100 ms doze as it does
    after work: 2% of the free core, which an lcore of another process
    there lost, and round trips on this one measured. Its time on a CPU
    over 2 s (schedstat): under 0.5%."""
    with TestPmd(["net_refnic0"], lcores=("--lcores", "0@0,1@0")) as tp:
        time.sleep(0.5)                 # the start's work done
        before = engine_cpu_ns(tp.proc.pid)
        time.sleep(2)
        ran = engine_cpu_ns(tp.proc.pid) - before
    print("idle engine: %.3f ms on a CPU in 2 s" % (ran / 1e6))
    assert ran < 10e6, "the idle engine ran %.3f ms in 2 s" % (ran / 1e6)
