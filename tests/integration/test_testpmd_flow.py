"""rte_flow on refnic ports through stock testpmd's flow commands.

Port 0 and port 1 are wired back to back, 4 queues each. testpmd forwards
in rxonly mode; `start tx_first` makes each port send one burst of 32 txonly
frames (UDP/IPv4 198.18.0.1 -> 198.18.0.2, port 9, 64 bytes) per TX queue:
128 frames from port 0 into port 1. What port 1's rules do with them is
read three ways: testpmd's per-queue stream statistics (what the
application received on each queue), the device's per-queue counters
(xstats rx_qN_packets, rx_filtered) and the rules' own counts (flow query).
"""

import re
import time

import pytest

from helpers import _pair, build_has_rte_flow

pytestmark = pytest.mark.skipif(not build_has_rte_flow(),
                                reason="no rte_flow in this build: DPDK's rte_flow_driver.h "
                                       "was not at hand")

PORTS = ["net_refnic0,cable=flowpair", "net_refnic1,cable=flowpair"]
QUEUES = 4
SENT = 32 * QUEUES              # what tx_first sends from one port
FRAME = 64                      # txonly's default frame length
_STREAM = re.compile(r"Forward Stats for RX Port=\s*(\d+)/Queue=\s*(\d+) .*\n\s*RX-packets:\s+(\d+)")
_CREATED = re.compile(r"Flow rule #(\d+) created")


def setup_ports(tp):
    tp.cmd("port stop all", check=True)
    tp.cmd("port config all rxq %d" % QUEUES, check=True)
    tp.cmd("port config all txq %d" % QUEUES, check=True)
    tp.cmd("port start all", check=True)
    tp.cmd("set fwd rxonly", check=True)


def burst(tp):
    """One tx_first; {queue: frames port 1's application received on it}."""
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    out = tp.cmd("stop")
    per_queue = {q: 0 for q in range(QUEUES)}
    for port, queue, n in _STREAM.findall(out):
        if int(port) == 1:
            per_queue[int(queue)] += int(n)
    return per_queue


def create(tp, rule):
    out = tp.cmd("flow create 1 ingress " + rule)
    m = _CREATED.search(out)
    assert m, out
    return int(m.group(1))


def query(tp, rule_id):
    out = tp.cmd("flow query 1 %d count" % rule_id, check=True)
    hits = re.search(r"hits: (\d+)", out)
    nbytes = re.search(r"bytes: (\d+)", out)
    assert hits and nbytes, out
    return int(hits.group(1)), int(nbytes.group(1))


def xstat_deltas(tp, before):
    now = tp.xstats(1)
    return {k: now[k] - before.get(k, 0) for k in now}


@pytest.fixture
def flowpair(refnic_testpmd):
    tp = refnic_testpmd(PORTS)
    setup_ports(tp)
    return tp


def test_flow_queue_count_destroy_flush(flowpair):
    """A queue rule takes all 128 frames to queue 3, counted 128 by the rule
    and the device; destroyed, they go back where RSS put them; flush
    empties the table and the list."""
    tp = flowpair
    base = burst(tp)
    home = max(base, key=base.get)
    assert base[home] == SENT and sum(base.values()) == SENT, base
    target = 3 if home != 3 else 2

    x0 = tp.xstats(1)
    rule = create(tp, "pattern eth / ipv4 dst is 198.18.0.2 / udp / end "
                      "actions queue index %d / count / end" % target)
    got = burst(tp)
    assert got[target] == SENT and sum(got.values()) == SENT, got
    dx = xstat_deltas(tp, x0)
    assert dx["rx_q%d_packets" % target] == SENT, dx
    assert query(tp, rule) == (SENT, SENT * FRAME)

    out = tp.cmd("flow destroy 1 rule %d" % rule, check=True)
    assert "Flow rule #%d destroyed" % rule in out, out
    got = burst(tp)
    assert got[home] == SENT and sum(got.values()) == SENT, got

    create(tp, "pattern eth / ipv4 / udp / end actions queue index %d / end" % target)
    create(tp, "pattern eth / ipv4 / end actions drop / end")
    assert len(re.findall(r"^\d+\s+0\s+0\s+i--", tp.cmd("flow list 1"), re.M)) == 2
    tp.cmd("flow flush 1", check=True)
    assert not re.search(r"^\d+\s+0\s+0\s+i--", tp.cmd("flow list 1"), re.M)
    got = burst(tp)
    assert got[home] == SENT and sum(got.values()) == SENT, got
    # Port 0 received port 1's frames all along: rules on port 1 are port 1's.
    assert tp.port_stats(0)["RX-packets"] == 4 * SENT


def test_flow_drop_counted(flowpair):
    """drop + count: port 1's application receives nothing, the device counts
    128 rx_filtered, the rule 128 hits of 64 bytes; port 0 still receives."""
    tp = flowpair
    x0 = tp.xstats(1)
    rule = create(tp, "pattern eth / ipv4 src is 198.18.0.1 / udp dst is 9 / end "
                      "actions drop / count / end")
    got = burst(tp)
    assert sum(got.values()) == 0, got
    assert xstat_deltas(tp, x0)["rx_filtered"] == SENT
    assert query(tp, rule) == (SENT, SENT * FRAME)
    assert tp.port_stats(0)["RX-packets"] == SENT


def test_flow_mark_in_verbose_output(flowpair):
    """mark id 0x1234 + queue 2: testpmd's verbose dump shows every frame
    port 1 received on queue 2, each with 'FDIR matched ID=0x1234', and
    port 0's unmarked frames without it."""
    tp = flowpair
    create(tp, "pattern eth / ipv4 / udp dst is 9 / end actions mark id 0x1234 / "
               "queue index 2 / end")
    tp.cmd("set verbose 1", check=True)
    tp.send("start tx_first")
    text = tp.wait_output(r"FDIR matched ID=0x1234", SENT)
    time.sleep(0.5)
    tp.cmd("set verbose 0")
    out = tp.stop()
    text = tp.transcript[tp._sent_at:]
    blocks = re.findall(r"port (\d+)/queue (\d+): received (\d+) packets", text)
    port1 = [(q, int(n)) for p, q, n in blocks if p == "1"]
    assert port1 and all(q == "2" for q, _ in port1), port1
    assert sum(n for _, n in port1) == SENT, port1
    assert len(re.findall(r"FDIR matched ID=0x1234", text)) == SENT
    assert len(re.findall(r"FDIR matched", text)) == SENT, "port 0's frames marked"
    assert out[1]["RX-packets"] == SENT, out


def test_flow_rss_to_queue_group(refnic_testpmd):
    """rss over queues 1 and 2: txonly's many flows (--txonly-multi-flow:
    source addresses vary before DPDK 23.07, UDP source ports since) spread over
    those two and no other."""
    tp = refnic_testpmd(PORTS, testpmd_args=["--txonly-multi-flow"])
    setup_ports(tp)
    create(tp, "pattern eth / ipv4 / udp / end actions rss types ipv4-udp end "
               "queues 1 2 end / end")
    got = burst(tp)
    assert got[0] == 0 and got[3] == 0, got
    assert got[1] > 0 and got[2] > 0 and got[1] + got[2] == SENT, got


def test_flow_invalid_rules_refused_with_a_message(flowpair):
    """What the device cannot do is refused at validate, naming it."""
    tp = flowpair
    cases = [
        ("pattern eth / ipv4 / sctp / end actions queue index 1 / end",
         "item sctp: the device does not match on it"),
        ("pattern eth / end actions queue index 9 / end",
         "action queue: index 9: the port has 4 Rx queues"),
        ("pattern eth / ipv4 tos is 4 / end actions drop / end",
         "item ipv4: the device matches src, dst, proto only"),
        ("group 1 pattern eth / end actions drop / end",
         "group 1: the device has one table"),
        ("pattern eth / end actions queue index 1 / drop / end",
         "a rule has one fate"),
    ]
    for rule, message in cases:
        for verb in ("validate", "create"):
            out = tp.cmd("flow %s 1 ingress %s" % (verb, rule))
            assert "Caught PMD error" in out and message in out, (verb, rule, out)
    assert not re.search(r"^\d+\s+0\s+0\s+i--", tp.cmd("flow list 1"), re.M)
    assert "Flow rule validated" in tp.cmd(
        "flow validate 1 ingress pattern eth / ipv4 / udp / end actions queue index 1 / end")


RECOVERED = re.compile(r"Port 1: error recovery successful event")


def test_flow_rule_survives_fatal_error_recovery(refnic_testpmd):
    """Port 1's device fails (fault_fatal) after its rule was created; the
    PMD recovers the port by itself, and the rule steers and counts again."""
    tp = refnic_testpmd([PORTS[0], PORTS[1] + ",fault_fatal=after_ms:6000"])
    setup_ports(tp)
    rule = create(tp, "pattern eth / ipv4 / udp / end actions queue index 3 / count / end")
    got = burst(tp)
    assert got[3] == SENT and sum(got.values()) == SENT, got
    assert query(tp, rule)[0] == SENT
    assert "error recover" not in tp.transcript, "the device failed too early for the test"
    deadline = time.monotonic() + 20
    while not RECOVERED.search(tp.transcript) and time.monotonic() < deadline:
        tp._read_some(time.monotonic() + 0.2)
    assert RECOVERED.search(tp.transcript), tp.transcript[-3000:]
    got = burst(tp)
    assert got[3] == SENT and sum(got.values()) == SENT, got
    assert query(tp, rule)[0] == 2 * SENT


def test_flow_refused_in_a_secondary_process(refnic_pmd, hugepages):
    """Flow rules are the primary's: a secondary's flow create and validate
    get one clear message, and the primary's table stays empty."""
    primary, secondary = _pair(refnic_pmd)
    with primary, secondary:
        for verb in ("validate", "create"):
            out = secondary.cmd("flow %s 0 ingress pattern eth / end actions drop / end" % verb)
            assert "flow rules belong to the primary process" in out, out
        assert not re.search(r"^\d+\s+0\s+0\s+i--", primary.cmd("flow list 0"), re.M)
        assert "Flow rule #0 created" in primary.cmd(
            "flow create 0 ingress pattern eth / end actions drop / end")
