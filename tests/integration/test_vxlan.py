"""cable=vxlan: a refnic port as a VXLAN tunnel endpoint (RFC 7348), against
peers no one here wrote: the Linux kernel's vxlan device, a stock testpmd
on another "host" (a network namespace), and hostile datagrams from Python
sockets. Every address lives inside the namespaces these tests make; testpmd
runs inside them (ip netns exec)."""

import json
import os
import shutil
import subprocess
import textwrap
import time

import pytest

from helpers import must, netns_make, run, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
IP = shutil.which("ip")
VNI = 4242



class Hosts:
    """Network namespaces "refnic-vx<pid><tag><i>", each the i-th "host",
    joined by a veth pair with 10.<net>.0.<i+1>/24 at each end, IPv6 off
    (no router solicitations, no MLD: the counts stay exact)."""

    def __init__(self, tag, net, n=2):
        if IP is None:
            pytest.skip("needs iproute2's ip")
        pid = os.getpid() % 100000
        self.ns = ["refnic-vx%d%s%d" % (pid, tag, i) for i in range(n)]
        self.addr = ["10.%d.0.%d" % (net, i + 1) for i in range(n)]
        self.made = []
        for ns in self.ns:
            if not netns_make(ns):
                self.close()
                pytest.skip("this machine forbids network namespaces")
            self.made.append(ns)
        if n == 2:
            veth = ["vxv%d%s0" % (pid, tag), "vxv%d%s1" % (pid, tag)]
            must([IP, "link", "add", veth[0], "netns", self.ns[0], "type", "veth",
                   "peer", "name", veth[1], "netns", self.ns[1]])
            for i in (0, 1):
                must([IP, "-n", self.ns[i], "addr", "add", self.addr[i] + "/24",
                       "dev", veth[i]])
                must([IP, "-n", self.ns[i], "link", "set", veth[i], "up"])
            self.veth = veth

    def wrapper(self, i):
        return [IP, "netns", "exec", self.ns[i]]

    def close(self):
        for ns in self.made:
            run([IP, "netns", "del", ns])


@pytest.fixture
def hosts2(request):
    h = Hosts(request.node.name[-4:].replace("_", ""), 236 + len(request.node.name) % 10)
    yield h
    h.close()


def _vxlan_port(remote, local, vni=VNI):
    return "net_refnic0,cable=vxlan:%s,vxlan_vni=%d,vxlan_local=%s" % (remote, vni, local)



def _link_stats(ns, ifname):
    out = must([IP, "-n", ns, "-s", "-j", "link", "show", ifname])
    s = json.loads(out)[0]["stats64"]
    return s["rx"]["packets"], s["tx"]["packets"]


DROPS = ("cable_rx_foreign", "cable_rx_truncated", "cable_rx_bad_header", "cable_rx_bad_vni",
         "cable_rx_oversize", "cable_tx_oversize", "cable_rx_dropped", "cable_tx_dropped",
         "rx_no_buffer", "rx_filtered", "rx_oversize")


def _no_drops(xs):
    bad = {k: xs[k] for k in DROPS if xs[k] != 0}
    assert not bad, bad


def test_vxlan_kernel_peer_pings_icmpecho(refnic_testpmd, hosts2):
    """A namespace with the kernel's vxlan device (VNI 4242 over the veth)
    pings an address behind it; testpmd's icmpecho answers on a refnic port
    whose cable is vxlan: to the kernel's end, in the other namespace."""
    h, n = hosts2, 5
    must([IP, "-n", h.ns[1], "link", "add", "vx0", "type", "vxlan", "id", str(VNI),
           "remote", h.addr[0], "local", h.addr[1], "dstport", "4789", "nolearning"])
    must([IP, "-n", h.ns[1], "addr", "add", "10.235.0.2/24", "dev", "vx0"])
    must([IP, "-n", h.ns[1], "link", "set", "vx0", "up"])
    tp = refnic_testpmd([_vxlan_port(h.addr[1], h.addr[0])], wrapper=h.wrapper(0))
    assert "Link status: up" in tp.cmd("show port info 0")
    tp.cmd("set fwd icmpecho", check=True)
    tp.cmd("start", check=True)
    k_rx0, k_tx0 = _link_stats(h.ns[1], "vx0")
    r = run(h.wrapper(1) + ["python3", os.path.join(HERE, "icmp_ping.py"),
                             "10.235.0.1", str(n)])
    assert r.returncode == 0 and "%d/%d replies" % (n, n) in r.stdout, r.stdout
    fwd = tp.stop()[0]
    xs = tp.xstats(0)
    k_rx, k_tx = _link_stats(h.ns[1], "vx0")
    # One ARP request and n echo requests crossed each way, nothing else.
    assert fwd["RX-packets"] == n + 1 and fwd["TX-packets"] == n + 1, fwd
    assert (k_tx - k_tx0, k_rx - k_rx0) == (n + 1, n + 1), (k_tx, k_rx)
    assert xs["rx_good_packets"] == n + 1 and xs["tx_good_packets"] == n + 1, xs
    _no_drops(xs)


def test_vxlan_two_hosts_testpmd_io(refnic_testpmd, hosts2):
    """Two "hosts", a stock testpmd on a refnic vxlan port in each: host 0
    sends 4 bursts of many flows (start tx_first 4), host 1 forwards them back
    (io), host 0 takes them (rxonly). Every frame crosses twice, none is
    lost; on the wire, host 0's datagrams come from source ports hashed per
    flow, in RFC 7348's range (a sniffer on host 1's veth)."""
    h, bursts = hosts2, 4
    sent = 32 * bursts
    sniff = subprocess.Popen(h.wrapper(1) + ["python3", os.path.join(HERE, "vxlan_sniff.py"),
                                             h.veth[1], str(sent), "30"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert sniff.stdout.readline().strip() == "ready"
        b = refnic_testpmd([_vxlan_port(h.addr[0], h.addr[1])], wrapper=h.wrapper(1))
        a = refnic_testpmd([_vxlan_port(h.addr[1], h.addr[0])], wrapper=h.wrapper(0),
                           testpmd_args=["--txonly-multi-flow"])
        b.cmd("start", check=True)
        a.cmd("set fwd rxonly", check=True)
        a.cmd("start tx_first %d" % bursts, check=True)
        got = wait_until(lambda: a.port_stats(0)["RX-packets"], lambda v: v >= sent)
        time.sleep(0.5)     # anything beyond would show
        fa, fb = a.stop()[0], b.stop()[0]
        xa, xb = a.xstats(0), b.xstats(0)
        ports = json.loads(sniff.communicate(timeout=40)[0])
    finally:
        sniff.kill()
    assert got == sent, (got, fa, fb)
    assert len(ports) == sent and all(49152 <= p <= 65535 for p in ports), ports
    assert len(set(ports)) > 1, ports
    assert fa["TX-packets"] == fb["RX-packets"] == fb["TX-packets"] == fa["RX-packets"] == sent, \
        (fa, fb)
    for xs in (xa, xb):
        _no_drops(xs)


HOSTILE = textwrap.dedent("""
    import socket, struct, sys
    dst = (sys.argv[1], 4789)
    remote, foreign, vni = sys.argv[2], sys.argv[3], int(sys.argv[4])
    frame = bytes.fromhex("02aabbccddee" "02112233445566" "88b5") + bytes(46)
    def hdr(flags=0x08, r0=0, v=vni, r1=0):
        return struct.pack("!B3s3sB", flags, r0.to_bytes(3, "big"), v.to_bytes(3, "big"), r1)
    def send(src, payload):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((src, 0))
        s.sendto(payload, dst)
        s.close()
    send(foreign, hdr() + frame)                    # cable_rx_foreign
    send(remote, hdr() + frame[:13])                # cable_rx_truncated
    send(remote, hdr(flags=0) + frame)              # cable_rx_bad_header: no I flag
    send(remote, hdr(r0=1) + frame)                 # cable_rx_bad_header: reserved bit
    send(remote, hdr(v=vni + 1) + frame)            # cable_rx_bad_vni
    send(remote, hdr() + frame + bytes(9100))       # cable_rx_oversize
    send(remote, hdr() + frame)                     # the one delivered
""")


def test_vxlan_hostile_datagrams_counted_not_delivered(refnic_testpmd, hosts2):
    """Each kind of bad datagram from Python sockets on the far host bumps
    its own counter by exactly one; only the well-formed one is delivered."""
    h = hosts2
    foreign = "10.%s.0.9" % h.addr[1].split(".")[1]
    must([IP, "-n", h.ns[1], "addr", "add", foreign + "/24", "dev", h.veth[1]])
    tp = refnic_testpmd([_vxlan_port(h.addr[1], h.addr[0])], wrapper=h.wrapper(0))
    tp.cmd("set fwd rxonly", check=True)
    tp.cmd("start", check=True)
    must(h.wrapper(1) + ["python3", "-c", HOSTILE, h.addr[0], h.addr[1], foreign,
                          str(VNI)])
    wait_until(lambda: tp.port_stats(0)["RX-packets"], lambda v: v >= 1)
    time.sleep(0.3)
    fwd = tp.stop()[0]
    xs = tp.xstats(0)
    want = {"cable_rx_foreign": 1, "cable_rx_truncated": 1, "cable_rx_bad_header": 2,
            "cable_rx_bad_vni": 1, "cable_rx_oversize": 1}
    assert {k: xs[k] for k in want} == want, xs
    assert fwd["RX-packets"] == 1 and xs["rx_good_packets"] == 1, (fwd, xs)
    assert xs["cable_rx_dropped"] == 0 and xs["rx_filtered"] == 0, xs


def test_vxlan_oversize_frames_counted_never_cut(refnic_testpmd, hosts2):
    """On a path of MTU 1200, a 1200-byte frame does not fit with VXLAN's 36
    bytes (IPv4, UDP, VXLAN): it is counted (cable_tx_oversize), neither
    fragmented nor cut; a 1000-byte frame crosses."""
    h = hosts2
    for i in (0, 1):
        must([IP, "-n", h.ns[i], "link", "set", h.veth[i], "mtu", "1200"])
    b = refnic_testpmd([_vxlan_port(h.addr[0], h.addr[1])], wrapper=h.wrapper(1))
    a = refnic_testpmd([_vxlan_port(h.addr[1], h.addr[0])], wrapper=h.wrapper(0))
    b.cmd("set fwd rxonly", check=True)
    b.cmd("start", check=True)
    a.cmd("set fwd rxonly", check=True)
    a.cmd("set txpkts 1200", check=True)
    a.cmd("start tx_first", check=True)
    oversize = wait_until(lambda: a.xstats(0)["cable_tx_oversize"], lambda v: v >= 32)
    a.cmd("stop")
    a.cmd("set txpkts 1000", check=True)
    a.cmd("start tx_first", check=True)
    got = wait_until(lambda: b.port_stats(0)["RX-packets"], lambda v: v >= 32)
    time.sleep(0.3)
    xa, xb = a.xstats(0), b.xstats(0)
    a.cmd("stop")
    assert oversize == 32 and xa["cable_tx_oversize"] == 32, xa
    assert got == 32 and xb["rx_good_packets"] == 32 and xb["rx_good_bytes"] == 32 * 1000, xb
    assert xa["cable_tx_dropped"] == 0, xa


def test_vxlan_ipv6_two_ports_on_loopback(refnic_testpmd):
    """IPv6: two ports of one testpmd cabled to each other over ::1 (the
    raw socket's UDP checksum is the kernel's: a wrong one is dropped by
    the receiving UDP stack, uncounted here, and the counts would fall)."""
    h = Hosts("v6", 0, n=1)
    try:
        must([IP, "netns", "exec", h.ns[0], "sysctl", "-qw", "net.ipv6.conf.lo.disable_ipv6=0"])
        ports = ["net_refnic%d,cable=vxlan:[::1]:%d,vxlan_vni=7,vxlan_local=[::1]:%d"
                 % (i, 4791 - i, 4790 + i) for i in (0, 1)]
        tp = refnic_testpmd(ports, wrapper=h.wrapper(0))
        tp.cmd("set fwd rxonly", check=True)
        tp.cmd("start tx_first 2", check=True)
        wait_until(lambda: tp.port_stats("all"),
              lambda s: s[0]["RX-packets"] >= 64 and s[1]["RX-packets"] >= 64)
        time.sleep(0.3)
        fwd = tp.stop()
        xs = [tp.xstats(0), tp.xstats(1)]
    finally:
        h.close()
    for p in (0, 1):
        assert fwd[p]["RX-packets"] == fwd[p]["TX-packets"] == 64, fwd
        _no_drops(xs[p])


def test_vxlan_kernel_tcp_with_checksum_and_tso_offloads(refnic_testpmd):
    """Offloads are applied before encapsulation. Two kernels (namespaces
    a and b), each with a vxlan device whose far end is a refnic port of one
    testpmd (namespace d); testpmd's csum engine forwards between the ports
    with IP and TCP checksums in hardware and `tso set 1400` on both. A's
    kernel sends a 1 MiB TCP stream in frames of up to 8950 bytes; b's
    kernel, after decapsulation, checks every segment: the server gets the
    bytes sent (same SHA-256), no checksum error is counted, and port 1's
    device did the TSO (tx_tso_packets > 0)."""
    from helpers import netns_snmp
    stream, mss, mtu = 1 << 20, 1400, 9000
    pid = os.getpid() % 100000
    ns = ["refnic-vx%dt%s" % (pid, x) for x in "abd"]
    veth = [("vxt%da" % pid, "vxt%dda" % pid), ("vxt%db" % pid, "vxt%ddb" % pid)]
    macs, far = ["02:00:00:0d:7a:01", "02:00:00:0d:7a:02"], "02:00:00:0d:7a:ff"
    made, server = [], None
    try:
        for n in ns:
            if not netns_make(n):
                pytest.skip("this machine forbids network namespaces")
            made.append(n)
        for i in (0, 1):
            under, inner = "10.233.%d.2" % (i + 1), "10.232.0.%d" % (i + 1)
            d_side = "10.233.%d.1" % (i + 1)
            must([IP, "link", "add", veth[i][0], "netns", ns[i], "mtu", str(mtu), "type",
                   "veth", "peer", "name", veth[i][1], "netns", ns[2], "mtu", str(mtu)])
            must([IP, "-n", ns[i], "addr", "add", under + "/24", "dev", veth[i][0]])
            must([IP, "-n", ns[2], "addr", "add", d_side + "/24", "dev", veth[i][1]])
            must([IP, "-n", ns[i], "link", "set", veth[i][0], "up"])
            must([IP, "-n", ns[2], "link", "set", veth[i][1], "up"])
            # gso_max_size: over a veth, the kernel hands the UDP socket its
            # tunnel GSO packets unsegmented (inner frames up to 64 KB, which
            # the cable refuses as oversize); a NIC would segment them.
            must([IP, "-n", ns[i], "link", "add", "vx0", "address", macs[i], "mtu",
                   str(mtu - 50), "gso_max_size", str(mtu - 50), "type", "vxlan", "id",
                   str(VNI), "remote", d_side, "local", under, "dstport", "4789",
                   "nolearning"])
            must([IP, "-n", ns[i], "addr", "add", inner + "/24", "dev", "vx0"])
            must([IP, "-n", ns[i], "link", "set", "vx0", "up"])
            must([IP, "-n", ns[i], "neigh", "add", "10.232.0.%d" % (2 - i), "lladdr", far,
                   "dev", "vx0"])
        ports = ["net_refnic%d,cable=vxlan:10.233.%d.2,vxlan_vni=%d,vxlan_local=10.233.%d.1"
                 % (i, i + 1, VNI, i + 1) for i in (0, 1)]
        tp = refnic_testpmd(ports, wrapper=[IP, "netns", "exec", ns[2]],
                            testpmd_args=["--eth-peer=0,%s" % macs[0],
                                          "--eth-peer=1,%s" % macs[1]])
        tp.cmd("port stop all", check=True)
        for port in (0, 1):
            tp.cmd("port config mtu %d %d" % (port, mtu), check=True)
            for proto in ("ip", "tcp"):
                tp.cmd("csum set %s hw %d" % (proto, port), check=True)
            tp.cmd("tso set %d %d" % (mss, port))
        tp.cmd("port start all", check=True)
        tp.cmd("set fwd csum", check=True)
        tp.cmd("start", check=True)
        before = netns_snmp(IP, ns[1])
        peer = os.path.join(HERE, "tso_peer.py")
        server = subprocess.Popen([IP, "netns", "exec", ns[1], "python3", peer, "serve",
                                   "10.232.0.2", "9998"], stdout=subprocess.PIPE, text=True)
        assert server.stdout.readline().strip() == "ready"
        r = run([IP, "netns", "exec", ns[0], "python3", peer, "send", "10.232.0.2", "9998",
                 str(stream)])
        got = server.communicate(timeout=30)[0].split()
        after = netns_snmp(IP, ns[1])
        tp.stop()
        xs = [tp.xstats(0), tp.xstats(1)]
    finally:
        if server is not None and server.poll() is None:
            server.kill()
        for n in made:
            run([IP, "netns", "del", n])
    sent = r.stdout.split()
    assert r.returncode == 0 and sent[:2] == ["sent", str(stream)], r.stdout
    assert got == ["got", str(stream), sent[2]], (got, sent)
    for key in (("Tcp", "InCsumErrors"), ("Tcp", "InErrs"), ("Ip", "InHdrErrors")):
        assert after.get(key, 0) == before.get(key, 0), (key, after)
    assert xs[1]["tx_tso_packets"] > 0 and xs[1]["tx_tso_segments"] >= stream // mss, xs[1]
    for x in xs:
        _no_drops(x)
