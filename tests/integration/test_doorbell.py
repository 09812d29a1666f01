"""Missed doorbells in stock testpmd, as a user sees them.

fault_doorbell_drop=N makes the device miss 1 in N doorbells, as an ASIC with
the missed-doorbell erratum does. io forwarding after tx_first is a closed
loop of 32 frames per direction: a TX burst whose doorbell is missed never
leaves, nothing else comes to push it, and that direction stops for good,
unless the PMD's check re-rings the queue. So with the check on every frame
sent arrives and forwarding goes on; with doorbell_check=off it stops.
"""

import time

from helpers import PAIR_PEERS, probe_fails, run_traffic

DROP = 16


def pair(check, cable):
    args = "cable=%s,fault_doorbell_drop=%d,%s" % (cable, DROP, check)
    return ["net_refnic0," + args, "net_refnic1," + args]


def rx_packets(tp):
    stats = tp.port_stats()
    return [stats[p]["RX-packets"] for p in (0, 1)]


def still_moving(tp):
    """Forwarding started: did both ports receive anything in half a second?"""
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    before = rx_packets(tp)
    time.sleep(0.5)
    after = rx_packets(tp)
    return all(a > b for a, b in zip(after, before)), (before, after)


def test_missed_doorbells_recovered(refnic_testpmd):
    tp = refnic_testpmd(pair("doorbell_check_us=500", "dbon"))
    moving, counts = still_moving(tp)
    assert moving, counts
    tp.stop()
    fwd = run_traffic(tp, PAIR_PEERS)
    for tx, rx in PAIR_PEERS.items():
        # Every frame sent arrived: none waits in a ring, none was missed.
        assert fwd[tx]["TX-packets"] == fwd[rx]["RX-packets"], fwd
        assert fwd[rx]["RX-dropped"] == 0, fwd
    for port in (0, 1):
        x = tp.xstats(port)
        assert x["doorbells_dropped"] > 0, x
        assert x["tx_q0_missed_doorbell_recoveries"] > 0, x
        assert x["doorbell_checks"] > 0, x


def test_missed_doorbells_stall_without_check(refnic_testpmd):
    tp = refnic_testpmd(pair("doorbell_check=off", "dboff"))
    moving, counts = still_moving(tp)
    tp.stop()
    # Both directions stopped: a TX burst waits behind a missed doorbell and
    # nothing comes to push it; nothing was received for half a second.
    assert not moving, counts
    for port in (0, 1):
        x = tp.xstats(port)
        assert x["doorbells_dropped"] > 0, x
        assert x["tx_q0_missed_doorbell_recoveries"] == 0, x
        assert x["doorbell_checks"] == 0, x


def test_no_check_without_erratum(pair):
    tp = pair
    run_traffic(tp, PAIR_PEERS)
    for port in (0, 1):
        x = tp.xstats(port)
        assert x["doorbell_checks"] == 0, x
        assert x["missed_doorbell_recoveries"] == 0, x
        assert x["doorbells_dropped"] == 0, x


def test_bad_doorbell_devargs():
    probe_fails("net_refnic0,doorbell_check=sometimes", "doorbell_check")
    probe_fails("net_refnic0,fault_doorbell_drop=1", "fault_doorbell_drop")
