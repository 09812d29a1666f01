"""The data path through stock testpmd: the csum forwarding engine with
checksums done by the device on both sides, and judged by the kernel, and
multi-queue forwarding."""

import os
import re
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))

from helpers import _HW_PTYPE, PAIR, kernel_peers, netns_snmp, received_ptypes, run


def test_fwd_csum_with_hw_checksums(pair):
    tp = pair
    tp.cmd("port stop all", check=True)
    for port in (0, 1):
        for proto in ("ip", "udp", "tcp"):
            tp.cmd("csum set %s hw %d" % (proto, port), check=True)
        for offload in ("ipv4_cksum", "udp_cksum", "tcp_cksum"):
            tp.cmd("port config %d rx_offload %s on" % (port, offload), check=True)
    tp.cmd("port start all", check=True)
    tp.cmd("set fwd csum", check=True)
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    fwd = tp.stop()
    for port in (0, 1):
        # The engine runs with checksums offloaded and nothing refused. The
        # frames of tx_first already carry right checksums, which the
        # engine leaves in place: whether the device inserts them is
        # judged by the kernel in the test below, not here.
        assert fwd[port]["RX-packets"] > 0, fwd
        assert fwd[port]["Bad-ipcsum"] == 0 and fwd[port]["Bad-l4csum"] == 0, fwd
        assert tp.xstats(port)["tx_malformed"] == 0


def test_csum_engine_checksums_judged_by_the_kernel(refnic_testpmd):
    """testpmd's csum engine between two refnic ports wired to TAP interfaces,
    each in a network namespace, with the IPv4, UDP and TCP checksums set to
    hw on both ports. A sender writes frames with wrong checksums (IPv4
    header 0, UDP and TCP garbage) onto one TAP; the engine leaves them as
    they are and asks the device for them; the kernel behind the other TAP,
    not the device, judges: all 200 UDP datagrams reach its socket in order,
    its listening TCP port answers the SYN, and the SYN-ACK that comes back
    (through the device again) has right checksums by the sender's own
    count. A device that skipped the insertion fails."""
    # What a port's csum engine sends goes to the other side's kernel.
    with kernel_peers(refnic_testpmd, "cs", ["10.233.0.1", "10.233.0.2"],
                      ["02:00:00:0c:5a:01", "02:00:00:0c:5a:02"], "02:00:00:0c:5a:ff") as k:
        ip, tp, ns, ifs, addr = k.ip, k.tp, k.ns, k.ifs, k.addr
        server = None
        try:
            tp.cmd("port stop all", check=True)
            for port in (0, 1):
                for proto in ("ip", "udp", "tcp"):
                    tp.cmd("csum set %s hw %d" % (proto, port), check=True)
            tp.cmd("port start all", check=True)
            tp.cmd("set fwd csum", check=True)
            tp.cmd("start", check=True)
            before = [netns_snmp(ip, n) for n in ns]
            peer = os.path.join(HERE, "kernel_peer.py")
            server = subprocess.Popen([ip, "netns", "exec", ns[1], "python3", peer, "serve",
                                       addr[1], "9999", "200"], stdout=subprocess.PIPE, text=True)
            assert server.stdout.readline().strip() == "ready"
            r = run([ip, "netns", "exec", ns[0], "python3", peer, "send", ifs[0], addr[0],
                    addr[1], "9999", "200"])
            served = server.communicate(timeout=30)[0].split()
            after = netns_snmp(ip, ns[1])
            fwd = tp.stop()
            assert served == ["udp", "200"], (served, fwd, after)
            assert r.returncode == 0 and "syn-ack ok" in r.stdout, (r.stdout, fwd)
            for key in (("Udp", "InCsumErrors"), ("Tcp", "InCsumErrors"),
                        ("Ip", "InHdrErrors")):
                assert after.get(key, 0) == before[1].get(key, 0), (key, after)
        finally:
            if server is not None and server.poll() is None:
                server.kill()


def test_multi_queue_rss_spreads_flows(refnic_testpmd):
    # txonly with many flows (source addresses vary before DPDK 23.07, UDP
    # source ports since): RSS on addresses and ports puts them on every queue.
    tp = refnic_testpmd(PAIR, testpmd_args=["--txonly-multi-flow"])
    tp.cmd("port stop all", check=True)
    tp.cmd("port config all rxq 4", check=True)
    tp.cmd("port config all txq 4", check=True)
    tp.cmd("port start all", check=True)
    tp.cmd("port config all rss udp", check=True)
    tp.cmd("set fwd txonly", check=True)
    tp.cmd("start", check=True)
    time.sleep(1)
    tp.stop()
    xs = tp.xstats(1)
    per_queue = [xs.get("rx_q%d_packets" % q, 0) for q in range(4)]
    assert all(n > 0 for n in per_queue), per_queue


def test_fast_free_recycles_mbufs(pair):
    # testpmd turns MBUF_FAST_FREE on by default; forwarding many times the
    # pool's 8192 mbufs with none missing shows they all come back.
    tp = pair
    out = tp.cmd("show port 0 tx_offload configuration", check=True)
    assert "MBUF_FAST_FREE" in out, out
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    fwd = tp.stop()
    stats = tp.port_stats()
    assert fwd[0]["RX-packets"] > 10 * 8192, fwd
    assert stats[0]["RX-nombuf"] == 0 and stats[1]["RX-nombuf"] == 0, stats


JUMBO_SEGS = (2048, 2048, 2048, 2048, 816)     # one 9008-byte frame, 5 mbufs


def test_jumbo_frames_on_default_mbufs(pair):
    """MTU 9000 on testpmd's default 2 KiB mbufs, scatter never asked for
    (as on ixgbe and i40e): the ports start, their RX queues say they are
    scattered, and 9008-byte frames loop through both ports' drivers many
    times. Each port receives exactly what the other sent, every frame of
    exactly 9008 bytes: a frame the driver assembled wrong would come back
    shorter or longer at the next hop."""
    tp = pair
    tp.cmd("port stop all", check=True)
    for port in (0, 1):
        tp.cmd("port config mtu %d 9000" % port, check=True)
    tp.cmd("port start all", check=True)
    for port in (0, 1):
        assert "SCATTER" not in tp.cmd("show port %d rx_offload configuration" % port)
        rxq = tp.cmd("show rxq info %d 0" % port, check=True)
        assert "RX scattered packets: on" in rxq and "RX buffer size: 2048" in rxq, rxq
        assert tp.port_info(port)["MTU"] == "9000"
    tp.cmd("set txpkts %s" % ",".join(str(n) for n in JUMBO_SEGS), check=True)
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    fwd = tp.stop()
    nic = tp.port_stats()
    frame = sum(JUMBO_SEGS)
    for port, peer in ((0, 1), (1, 0)):
        # Forwarded again and again: far beyond tx_first's 32 per port.
        assert fwd[port]["RX-packets"] > 10 * 32, fwd
        assert nic[port]["RX-packets"] == nic[peer]["TX-packets"], nic
        assert nic[port]["RX-bytes"] == frame * nic[port]["RX-packets"], nic
        assert nic[port]["TX-bytes"] == frame * nic[port]["TX-packets"], nic
        assert nic[port]["RX-errors"] == 0 and nic[port]["RX-missed"] == 0, nic
        xs = tp.xstats(port)
        assert xs["rx_oversize"] == 0 and xs["queue_errors"] == 0, xs


def test_ptype_mask_honoured(pair):
    """'set port N ptype_mask': the packet type layers not asked for are
    reported unknown. Each port receives the other's 32 txonly UDP/IPv4
    frames (tx_first in rxonly mode); testpmd's own parse of each (sw ptype)
    is the witness of what they are. Port 0 with mask 0 reports nothing,
    port 1 with L2 and L3 only (0xff) no L4; L2, L3 and L4 (0xfff) again
    all three."""
    tp = pair

    def mask(port, value):
        out = tp.cmd("set port %d ptype_mask %s" % (port, value), check=True)
        assert "Successfully set" in out, out

    mask(0, "0")
    mask(1, "0xff")
    tp.cmd("set fwd rxonly", check=True)
    tp.cmd("set verbose 1", check=True)

    def burst():
        tp.send("start tx_first")
        text = tp.wait_output(_HW_PTYPE, 64)
        tp.stop()
        return received_ptypes(text)

    got = burst()
    assert sorted(got) == [0, 1] and [len(got[p]) for p in (0, 1)] == [32, 32], got
    sw = "L2_ETHER L3_IPV4 L4_UDP"
    assert got[0] == [("UNKNOWN", sw)] * 32, got[0][:2]
    assert got[1] == [("L2_ETHER L3_IPV4_EXT_UNKNOWN", sw)] * 32, got[1][:2]
    mask(0, "0xfff")
    got = burst()
    assert got[0] == [("L2_ETHER L3_IPV4_EXT_UNKNOWN L4_UDP", sw)] * 32, got[0][:2]


def test_rx_timestamp_offload_accepted(pair):
    """'port config 0 rx_offload timestamp on' is taken (testpmd refuses
    offloads a port does not offer), the port starts with it, runs the
    scalar RX (the stamps follow the completions: the vector RX reads
    16-byte ones only) while port 1 keeps the vector one, and forwards."""
    tp = pair
    tp.cmd("port stop all", check=True)
    tp.cmd("port config 0 rx_offload timestamp on", check=True)
    tp.cmd("port start all", check=True)
    assert "TIMESTAMP" in tp.cmd("show port 0 rx_offload configuration")
    modes = [re.search(r"Burst mode: (.*)", tp.cmd("show rxq info %d 0" % p)).group(1)
             for p in (0, 1)]
    assert modes[0] == "Scalar", modes
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    fwd = tp.stop()
    assert fwd[0]["RX-packets"] > 64 and fwd[1]["RX-packets"] > 64, fwd
