"""The control path through stock testpmd commands: MTU, promiscuous mode and
MAC filters, a port's address from mac=, RSS key/functions/RETA, link events when the peer goes and comes
back, `set link-down`/`set link-up` seen by the peer, a port that recovers with `port reset` after a lost admin command, and
one that recovers by itself from a device fatal error in mid-forwarding.
"""

import re
import time

from helpers import lsc_events, wait_link

MS_RSS_KEY = "6D5A56DA255B0EC24167253D43A38FB0D0CA2BCBAE7B30B477CB2DA38030F20C6A42B73BBEAC01FA"


def forward_once(tp):
    tp.cmd("start tx_first", check=True)
    time.sleep(0.5)
    return tp.stop()


def test_mtu(pair):
    tp = pair
    tp.cmd("port config mtu 0 1000", check=True)
    assert tp.port_info(0).get("MTU") == "1000"
    out = tp.cmd("port config mtu 0 9001")
    assert tp.port_info(0).get("MTU") == "1000", out
    assert tp.port_info(0).get("Firmware-version", "").startswith("refnic-emu")


def link_status(tp, port, want, timeout=5):
    """The port's link status as testpmd shows it, once it is `want` (or the last)."""
    deadline = time.monotonic() + timeout
    while True:
        status = tp.port_info(port).get("Link status")
        if status == want or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def test_set_link_down_up_seen_by_peer(pair):
    tp = pair
    tp.cmd("set link-down port 0", check=True)
    assert link_status(tp, 0, "down") == "down"
    assert link_status(tp, 1, "down") == "down"
    fwd = forward_once(tp)
    assert fwd[0]["RX-packets"] == 0 and fwd[1]["RX-packets"] == 0, fwd
    tp.cmd("set link-up port 0", check=True)
    assert link_status(tp, 0, "up") == "up"
    assert link_status(tp, 1, "up") == "up"
    fwd = forward_once(tp)
    assert fwd[0]["RX-packets"] > 0 and fwd[1]["RX-packets"] > 0, fwd


def test_promisc_off_then_mac_addr_add(pair):
    tp = pair
    tp.cmd("set promisc all off", check=True)
    assert tp.port_info(1).get("Promiscuous mode") == "disabled"
    fwd = forward_once(tp)
    # tx_first frames go to testpmd's peer addresses, not the ports' own.
    assert fwd[0]["RX-packets"] == 0 and fwd[1]["RX-packets"] == 0, fwd
    assert tp.xstats(1)["rx_filtered"] >= 32, tp.xstats(1)
    # Port 0 sends to peer 02:00:00:00:00:00 (its own peer address).
    tp.cmd("mac_addr add 1 02:00:00:00:00:00", check=True)
    tp.cmd("mac_addr add 0 02:00:00:00:00:01", check=True)
    fwd = forward_once(tp)
    assert fwd[0]["RX-packets"] > 0 and fwd[1]["RX-packets"] > 0, fwd
    tp.cmd("mac_addr remove 1 02:00:00:00:00:00", check=True)


def test_mac_devarg_is_the_ports_own_address(refnic_testpmd):
    """mac= sets a port's permanent address: testpmd shows it, and with
    promiscuous mode off tx_first's frames to testpmd's peer addresses
    (02:00:00:00:00:0N) pass the device's filter, nothing filtered."""
    tp = refnic_testpmd(["net_refnic0,cable=macs,mac=02:00:00:00:00:01",
                         "net_refnic1,cable=macs,mac=02:00:00:00:00:00"])
    assert tp.port_info(0).get("MAC address") == "02:00:00:00:00:01"
    assert tp.port_info(1).get("MAC address") == "02:00:00:00:00:00"
    tp.cmd("set promisc all off", check=True)
    fwd = forward_once(tp)
    assert fwd[0]["RX-packets"] > 0 and fwd[1]["RX-packets"] > 0, fwd
    assert tp.xstats(0)["rx_filtered"] == 0 and tp.xstats(1)["rx_filtered"] == 0


def test_rss_key_functions_reta(pair):
    tp = pair
    tp.cmd("port stop all", check=True)
    tp.cmd("port config all rxq 2", check=True)
    tp.cmd("port config all txq 2", check=True)
    tp.cmd("port start all", check=True)
    out = tp.cmd("show port 0 rss-hash key", check=True)
    assert MS_RSS_KEY in out, out
    tp.cmd("port config all rss tcp", check=True)
    out = tp.cmd("show port 0 rss-hash", check=True)
    assert "ipv4-tcp" in out and "ipv6-tcp" in out, out
    tp.cmd("port config 0 rss reta (0,1),(1,0)", check=True)
    out = tp.cmd("show port 0 rss reta 128 (0xffffffffffffffff,0xffffffffffffffff)")
    assert "hash index=0, queue=1" in out and "hash index=1, queue=0" in out, out
    key = "00" * 39 + "01"
    tp.cmd("port config 0 rss-hash-key ipv4 " + key, check=True)
    out = tp.cmd("show port 0 rss-hash key", check=True)
    assert key.upper() in out.upper(), out


def test_lsc_when_the_peer_goes_and_comes_back(pair):
    tp = pair
    before = lsc_events(tp, 0)
    tp.cmd("port stop 1", check=True)
    tp.cmd("port close 1", check=True)      # its cable end goes with it
    wait_link(tp, 0, "down", before + 1)
    # A new device takes the free end of the cable.
    out = tp.cmd("port attach net_refnic2,cable=itest", check=True)
    new_port = re.search(r"Port (\d+) is attached", out)
    assert new_port, out
    tp.cmd("port start " + new_port.group(1), check=True)
    wait_link(tp, 0, "up", before + 2)
    fwd = forward_once(tp)
    assert fwd[0]["RX-packets"] > 0, fwd


def test_lost_admin_command_then_port_reset(refnic_testpmd):
    vdev = "net_refnic0,profile=ideal,fault_admin_timeout=queue_create:1"
    tp = refnic_testpmd([vdev])
    # testpmd started the port at launch; its first QUEUE_CREATE was lost.
    assert "admin command QUEUE_CREATE timed out" in tp.startup, tp.startup
    out = tp.cmd("port start 0")
    assert "port failed" in tp.transcript or "Fail" in out, out
    tp.cmd("port stop 0")
    tp.cmd("port reset 0", check=True)
    tp.cmd("port start 0", check=True)
    assert tp.port_info(0).get("Link status") == "up"
    fwd = forward_once(tp)
    assert fwd[0]["RX-packets"] > 0, fwd


RECOVERY_EVENTS = re.compile(r"Port (\d+): (error recovering|error recovery successful|"
                             r"error recovery failed|reset interrupt) event")


def test_fatal_error_mid_forwarding_recovers_by_itself(refnic_testpmd):
    """Port 0's device fails 3 s after it was created, while testpmd sends
    (txonly) and nothing is typed: testpmd prints the two recovery events in
    order and nothing else, and port 0 sends again without any command."""
    tp = refnic_testpmd(["net_refnic0,cable=fatalpair,fault_fatal=after_ms:3000",
                         "net_refnic1,cable=fatalpair"])
    tp.cmd("set fwd txonly", check=True)
    tp.cmd("start", check=True)
    deadline = time.monotonic() + 20
    while "error recovery" not in tp.transcript and time.monotonic() < deadline:
        time.sleep(0.2)
        tp._read_some(time.monotonic() + 0.1)
    time.sleep(0.5)
    before = tp.port_stats(0)["TX-packets"]
    time.sleep(1)
    after = tp.port_stats(0)["TX-packets"]
    fwd = tp.stop()
    events = RECOVERY_EVENTS.findall(tp.transcript)
    assert events == [("0", "error recovering"), ("0", "error recovery successful")], (
        events, tp.transcript[-3000:])
    assert "device reports fatal error" in tp.transcript, tp.transcript[-3000:]
    assert after > before, "port 0 sent nothing after its recovery (%d, %d)" % (before, after)
    # Counters go on across the recovery, as across a restart.
    assert before > 0 and fwd[0]["TX-packets"] >= after, (before, after, fwd)


# Malformed devargs as users mistype them: (devargs, the key the error must name).
BAD_DEVARGS = [
    ("queues=0", "queues"), ("queues=65", "queues"), ("queues=abc", "queues"),
    ("queues=-1", "queues"), ("bogus=1", "bogus"), ("Queues=2", "Queues"),
    ("profile=warp", "profile"), ("profile=", "profile"), ("cable=", "cable"),
    ("cable=a/b", "cable"), ("cable=shm:", "cable"), ("exec=fast", "exec"),
    ("profile=baremetal,exec=inline", "exec"), ("engines=9", "engines"),
    ("admin_poll=fixed:0", "admin_poll"), ("admin_poll=exp:500:10", "admin_poll"),
    ("admin_poll=spin", "admin_poll"), ("admin_latency_pct=x", "admin_latency_pct"),
    ("itr=fast", "itr"), ("rx_itr_us=10001", "rx_itr_us"), ("tx_itr_us=-1", "tx_itr_us"),
    ("itr=off,rx_itr_us=5", "rx_itr_us"), ("queues=2,queues=4", "queues"),
    ("fault_admin_timeout=bogus", "fault_admin_timeout"),
    ("fault_reset_fail=1001", "fault_reset_fail"), ("fault_corrupt=disk:5", "fault_corrupt"),
    ("fault_fatal=5", "fault_fatal"), ("fault_doorbell_drop=1", "fault_doorbell_drop"),
    ("errata=bogus", "errata"), ("doorbell_check=maybe", "doorbell_check"),
    ("doorbell_check_us=99", "doorbell_check_us"),
    ("doorbell_check=off,doorbell_check_us=500", "doorbell_check_us"),
    ("mac=01:00:00:00:00:01", "mac"), ("mac=02:00:00:00:00", "mac"),
    ("rx_itr_us=" + "9" * 5000, "rx_itr_us"),
    ("x" * 5000 + "=1", "xxxxxxxx"),
]


def refnic_lines(out):
    """The lines the PMD or its device printed (not EAL's or testpmd's)."""
    return [line for line in out.splitlines()
            if line.startswith("refnic") or re.match(r"^\w+\(\): ", line)]


def test_malformed_devargs_through_port_attach(refnic_testpmd):
    """Each malformed devargs string given to testpmd's `port attach`: one
    bounded line from refnic naming the key, a refused attach, no port left
    behind, and testpmd goes on: a good attach works afterwards."""
    tp = refnic_testpmd([])
    for i, (devargs, key) in enumerate(BAD_DEVARGS):
        out = tp.cmd("port attach net_refnic%d,%s" % (i + 1, devargs))
        assert "Failed to attach port" in out, (devargs[:80], out[-2000:])
        lines = refnic_lines(out)
        if "EAL: devargs truncated" in out:
            # 24.11's EAL (and later) refuses a long one itself, before any probe.
            assert len(devargs) > 128 and not lines, (devargs[:80], lines)
            continue
        assert len(lines) == 1, (devargs[:80], lines, out.replace("9" * 100, "")[-1500:])
        assert key in lines[0] and len(lines[0]) < 1000, (devargs[:80], lines[0][:1200])
    assert "Number of available ports: 0" in tp.cmd("show port summary all")
    out = tp.cmd("port attach net_refnic99,cable=loopback", check=True)
    assert re.search(r"Port \d+ is attached", out), out
