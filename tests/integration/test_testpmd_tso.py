"""TSO end to end through stock testpmd: the csum engine with `tso set`
between two refnic ports wired to TAP interfaces, each in a network
namespace, and the kernel behind them as the witness."""

import os
import re
import subprocess

import pytest

from helpers import kernel_peers, netns_snmp, run

HERE = os.path.dirname(os.path.abspath(__file__))

MSS = 1400
STREAM = 2 * 1024 * 1024        # bytes the sender's kernel sends
MTU = 9000


@pytest.mark.parametrize("v6", [False, True], ids=["ipv4", "ipv6"])
def test_csum_engine_tso_judged_by_the_kernel(refnic_testpmd, v6):
    """A kernel (namespace a, MTU 9000, no offloads on its TAP) sends a 2 MiB
    TCP stream in frames of up to 9 KB to a server in namespace b. testpmd's
    csum engine forwards them from refnic port 0 to port 1 with `tso set
    1400 1`; port 1's device cuts them into 1400-byte segments. The kernel in
    b, not the device, judges: the server gets exactly the bytes sent (same
    length, same SHA-256), no TCP or IP checksum error is counted, and it
    took at least STREAM / 1400 segments (the uncut frames would be some
    240). The device's counts line up exactly with testpmd's: port 1's
    frames on the wire are the packets testpmd's lcore sent to it, each TSO
    packet replaced by its segments.

    Two queues a port, so that testpmd prints its per-stream counts: what
    the lcore took from port 0 and sent to port 1. Port 0's own RX count is
    no witness here: the device counts a frame when it lands in the ring, so
    one the kernel sends (an IPv6 router solicitation, a late ACK) just
    before `start` or `stop` is counted on one side of the boundary and
    forwarded on the other."""
    if v6:
        addr = ["fd00:5a::1", "fd00:5a::2"]
    else:
        addr = ["10.234.0.1", "10.234.0.2"]
    with kernel_peers(refnic_testpmd, "ts", addr, ["02:00:00:0d:5a:01", "02:00:00:0d:5a:02"],
                      "02:00:00:0d:5a:ff", v6=v6, mtu=MTU, queues=2) as k:
        ip, tp, ns = k.ip, k.tp, k.ns
        server = None
        try:
            tp.cmd("port stop all", check=True)
            for port in (0, 1):
                tp.cmd("port config mtu %d %d" % (port, MTU), check=True)
                for proto in ("ip", "tcp"):
                    tp.cmd("csum set %s hw %d" % (proto, port), check=True)
                out = tp.cmd("tso set %d %d" % (MSS, port))
                # "TSO segment size N" on 22.11, "segment size for
                # non-tunneled packets is N" later (after a warning that the
                # port has no UFO).
                assert "not supported" not in out and re.search(
                    r"(TSO segment size|segment size for non-tunneled packets is) %d"
                    % MSS, out), out
            tp.cmd("port start all", check=True)
            tp.cmd("set fwd csum", check=True)
            tp.cmd("start", check=True)
            before = netns_snmp(ip, ns[1], v6)
            peer = os.path.join(HERE, "tso_peer.py")
            server = subprocess.Popen([ip, "netns", "exec", ns[1], "python3", peer, "serve",
                                       addr[1], "9998"], stdout=subprocess.PIPE, text=True)
            assert server.stdout.readline().strip() == "ready"
            r = run([ip, "netns", "exec", ns[0], "python3", peer, "send", addr[1], "9998",
                    str(STREAM)])
            got = server.communicate(timeout=30)[0].split()
            after = netns_snmp(ip, ns[1], v6)
            fwd, streams = tp.stop(streams=True)
            nic = tp.port_stats()
            xs = tp.xstats(1)
            sent = r.stdout.split()
            assert r.returncode == 0 and sent[:2] == ["sent", str(STREAM)], r.stdout
            assert got == ["got", str(STREAM), sent[2]], (got, sent, fwd)
            errors = [("Tcp", "InCsumErrors"), ("Tcp", "InErrs")]
            errors += [("Ip6", "InHdrErrors")] if v6 else [("Ip", "InHdrErrors")]
            for key in errors:
                assert after.get(key, 0) == before.get(key, 0), (key, after)
            segs = after[("Tcp", "InSegs")] - before[("Tcp", "InSegs")]
            assert segs >= STREAM // MSS, (segs, xs)
            # What the lcore sent to port 1, port 1 put on the wire: what
            # went with TSO as the segments counted, the rest as it was.
            # Port 1 sends nothing but what it is given; nothing was dropped.
            to_port1 = [st for st in streams if st["tx"][0] == 1]
            assert to_port1 and all(st["TX-dropped"] == 0 for st in streams), streams
            assert fwd[1]["TX-dropped"] == 0, fwd
            assert xs["tx_tso_packets"] > 0 and xs["tx_tso_segments"] >= STREAM // MSS, xs
            sent_to_port1 = sum(st["TX-packets"] for st in to_port1)
            assert nic[1]["TX-packets"] == (sent_to_port1 - xs["tx_tso_packets"] +
                                            xs["tx_tso_segments"]), (nic, streams, xs)
            assert xs["tx_malformed"] == 0 and nic[1]["TX-errors"] == 0, (xs, nic)
        finally:
            if server is not None and server.poll() is None:
                server.kill()
