"""Stock testpmd on net_refnic ports: what a user of the PMD sees.

Two ports naming the same cable are wired back to back; a port on the default
cable=loopback receives what it sends. The PMD is loaded as a plugin from
$REFNIC_PMD, else from the build tree; without either every test skips.
"""

import os
import re
import time

import pytest

from testpmd import TestPmd, TestPmdExited

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILT_PMD = os.path.join(REPO, "build", "drivers", "librte_net_refnic.so")

PAIR = ["net_refnic0,cable=itest", "net_refnic1,cable=itest"]
PAIR_PEERS = {0: 1, 1: 0}       # TX port -> the port that receives it
XSTATS = ["tx_doorbell_writes", "rx_doorbell_writes", "admin_commands",
          "admin_polls", "admin_wait_us"]
SETTLE_S = 10                   # bound on waiting for the device to deliver


def pmd_path():
    pmd = os.environ.get("REFNIC_PMD") or (BUILT_PMD if os.path.exists(BUILT_PMD) else None)
    if not pmd:
        pytest.skip("net_refnic PMD not found: set REFNIC_PMD or build %s" % BUILT_PMD)
    return pmd


def refnic(vdevs=PAIR, testpmd_args=()):
    """A testpmd, not started, on refnic ports; for tests that start and
    close it themselves (the fixtures in conftest.py start it for you)."""
    return TestPmd(vdevs, plugins=[pmd_path()], testpmd_args=testpmd_args)


BURST = 32                      # testpmd's default burst, what tx_first sends per port


def delivered(fwd, peers):
    """Every packet a port sent was received, or counted missed, by its peer."""
    return all(fwd[tx]["TX-packets"] == fwd[rx]["RX-packets"] + fwd[rx]["RX-dropped"]
               for tx, rx in peers.items())


def run_traffic(tp, peers):
    """start tx_first, stop; return forward stats once the device has settled.

    The device works beside the driver, so frames handed to it just before
    'stop' may still be on the cable: 'show fwd stats all' is read again
    until they have arrived, within SETTLE_S. Then, as the net_ring baseline
    asks: nothing lost, neither missed by the receiving port ('RX-dropped'
    in forward stats is the port's RX-missed) nor refused by the sending
    one, so every packet a port sent is one its peer received.
    """
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    fwd = tp.stop()
    for port in peers:
        assert fwd[port]["TX-packets"] > 0 and fwd[port]["RX-packets"] > 0, fwd
    deadline = time.monotonic() + SETTLE_S
    while not delivered(fwd, peers) and time.monotonic() < deadline:
        time.sleep(0.1)
        fwd = tp.fwd_stats()
    assert delivered(fwd, peers), "TX != peer RX + RX-missed: %s" % fwd
    for tx, rx in peers.items():
        assert fwd[rx]["RX-dropped"] == 0 and fwd[tx]["TX-dropped"] == 0, \
            "frames lost: %s" % fwd
        assert fwd[tx]["TX-packets"] == fwd[rx]["RX-packets"], fwd
    return fwd


def probe_fails(devarg, key):
    """A bad devarg fails the probe with a line naming it, and nothing crashes."""
    tp = refnic([devarg])
    try:
        with tp:
            assert "Invalid port 0" in tp.cmd("show port info 0"), \
                "net_refnic0 probed despite %r" % devarg
    except TestPmdExited:
        pass  # exiting on a failed probe is fine, dying by a signal is not
    output = tp.transcript.replace("\r", "")
    assert tp.returncode >= 0, "testpmd died by signal %d:\n%s" % (-tp.returncode, output)
    assert "failed to initialize net_refnic0" in output, output
    assert [line for line in output.splitlines() if key in line], \
        "no error line names %r:\n%s" % (key, output)


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
