"""The harness against stock vdevs: proves it works before net_refnic exists.

net_ring: a port with no devargs transmits into a ring it receives from, a
loopback, so io forwarding between two such ports keeps the tx_first packets
circulating. net_null: RX makes packets from nothing, TX drops them.
"""

import signal
import time

from testpmd import TestPmd, TestPmdError, TestPmdExited

BURST = 32  # testpmd's default packets per burst, what tx_first sends per port


def test_ring_tx_first_conserves_packets():
    with TestPmd(["net_ring0", "net_ring1"]) as tp:
        tp.cmd("start tx_first", check=True)
        time.sleep(0.5)
        fwd = tp.stop()
        assert sorted(fwd) == [0, 1], fwd
        for port in (0, 1):
            assert fwd[port]["RX-packets"] > 0 and fwd[port]["TX-packets"] > 0, fwd
            assert fwd[port]["RX-dropped"] == 0 and fwd[port]["TX-dropped"] == 0, fwd
        # Nothing is lost and the forwarding core holds none once stopped:
        # what was sent and not received is exactly what sits in the rings.
        in_rings = sum(fwd[p]["TX-packets"] - fwd[p]["RX-packets"] for p in (0, 1))
        assert in_rings == 2 * BURST, fwd
        nic = tp.port_stats()
        for port in (0, 1):
            assert nic[port]["TX-packets"] == fwd[port]["TX-packets"], (nic, fwd)


def test_null_clear_stats():
    with TestPmd(["net_null0", "net_null1"]) as tp:
        tp.cmd("start tx_first", check=True)
        time.sleep(0.2)
        tp.stop()
        before = tp.port_stats()
        assert all(before[p]["RX-packets"] > 0 and before[p]["TX-packets"] > 0
                   for p in (0, 1)), before
        tp.cmd("clear port stats all", check=True)
        after = tp.port_stats()
        assert sorted(after) == [0, 1], after
        for port in (0, 1):
            assert after[port]["RX-packets"] == 0 and after[port]["TX-packets"] == 0, after


def test_null_port_stop_start_close():
    with TestPmd(["net_null0", "net_null1"]) as tp:
        tp.cmd("port stop all", check=True)
        tp.cmd("port start all", check=True)
        tp.cmd("start tx_first", check=True)
        time.sleep(0.2)
        fwd = tp.stop()
        assert all(fwd[p]["TX-packets"] > 0 for p in (0, 1)), fwd
        tp.cmd("port stop 0", check=True)
        tp.cmd("port close 0", check=True)
        assert "Invalid port 0" in tp.cmd("show port info 0")
    assert tp.returncode == 0, tp.returncode


def test_null_bad_devarg():
    with TestPmd(["net_null0,bogus=1"]) as tp:
        assert "failed to initialize net_null0" in tp.startup, tp.startup
        assert "No probed ethernet devices" in tp.startup, tp.startup
        assert "Invalid port 0" in tp.cmd("show port info 0")
    assert tp.returncode == 0, tp.returncode


def test_harness_timeout_kills():
    # A prompt that never comes must raise, with what was seen, and kill.
    tp = TestPmd([], timeout=1)
    tp.argv = ["sh", "-c", "echo still starting; exec sleep 60"]
    try:
        tp.start()
    except TestPmdError as exc:
        assert "no testpmd prompt" in str(exc) and "still starting" in str(exc), exc
    else:
        raise AssertionError("start() returned without a prompt")
    assert tp.returncode == -signal.SIGKILL, tp.returncode


def test_harness_reports_exit():
    tp = TestPmd([])
    tp.argv = ["sh", "-c", "echo EAL: bad thing; exit 3"]
    try:
        tp.start()
    except TestPmdExited as exc:
        assert exc.returncode == 3 and "EAL: bad thing" in exc.output, (exc.returncode, exc.output)
    else:
        raise AssertionError("start() returned without a prompt")
