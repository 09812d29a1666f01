"""Helpers the integration tests share: where the PMD is, testpmd on refnic
ports, forwarding runs that account for every packet, probe failures.
Fixtures are in conftest.py; the testpmd driver is testpmd.py.
"""

import os
import time

import pytest

from testpmd import TestPmd, TestPmdExited

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILT_PMD = os.path.join(REPO, "build", "drivers", "librte_net_refnic.so")

PAIR = ["net_refnic0,cable=itest", "net_refnic1,cable=itest"]
PAIR_PEERS = {0: 1, 1: 0}       # TX port -> the port that receives it
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
