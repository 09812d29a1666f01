"""cable=vxlan against Open vSwitch (Debian's openvswitch-switch), a peer no
one here wrote, with its userspace datapath (datapath_type=netdev: no
kernel openvswitch module is needed, and this machine has none).

Namespaces the test makes, one "host" each:

    r: testpmd, refnic port   vxlan:10.229.0.2  (underlay 10.229.0.1, veth)
    o: OVS   br-phy  = the veth's other end, underlay 10.229.0.2 on br-phy
             br-int  = vx0 (type=vxlan, remote_ip=10.229.0.1, key=VNI)
                       + the kernel-facing port
    k: a kernel, 10.228.0.2 on a veth whose other end is on br-int

The kernel-facing port is either that veth ([veth]) or br-int's own
internal port, 10.228.0.2 in o ([internal], the guide's commands).

OVS runs privately (tests/integration/ovs.py): its own ovsdb-server and
ovs-vswitchd, everything under the test's tmp dir, killed at the end. Its
userspace tunnel finds the way to 10.229.0.1 the documented way (OVS's
"Userspace Tunneling" guide): the underlay address is on br-phy, so the
route is in OVS's table; the far end's MAC is set in OVS's tunnel
neighbour cache (tnl/arp/set) rather than learned by the first frame.
"""

import json
import os
import shutil
import time

import pytest

from helpers import must, netns_make, run, wait_until
from ovs import PrivateOvs, ovs_missing

HERE = os.path.dirname(os.path.abspath(__file__))
IP = shutil.which("ip")
VNI = 4343
UNDER = ("10.229.0.1", "10.229.0.2")     # refnic's end, OVS's br-phy
INNER = ("10.228.0.1", "10.228.0.2")     # testpmd's icmpecho, the kernel behind OVS
BR_INT_MAC = "02:00:00:0e:22:02"




class OvsHosts:
    """Namespaces r, o and k as drawn above, IPv6 off in each (no router
    solicitations or MLD: the counts stay exact), the kernel's neighbour
    entries kept reachable for the whole test (no ARP probe mid-count)."""

    def __init__(self, kernel_port, vni=VNI):
        if IP is None:
            pytest.skip("needs iproute2's ip")
        self.made = []
        self.vni = vni
        try:
            self._make(kernel_port == "veth")
        except BaseException:
            self.close()        # nothing left behind by a set-up that failed
            raise

    def _make(self, veth):
        pid = os.getpid() % 100000
        self.ns = {x: "refnic-ovs%d%s" % (pid, x) for x in ("rok" if veth else "ro")}
        for ns in self.ns.values():
            if not netns_make(ns):
                pytest.skip("this machine forbids network namespaces")
            self.made.append(ns)
        r, o = self.ns["r"], self.ns["o"]
        self.under = ("ovu%dr" % pid, "ovu%do" % pid)
        must([IP, "link", "add", self.under[0], "netns", r, "type", "veth",
               "peer", "name", self.under[1], "netns", o])
        must([IP, "-n", r, "addr", "add", UNDER[0] + "/24", "dev", self.under[0]])
        up = [(r, self.under[0]), (o, self.under[1])]
        # The kernel behind OVS: a veth from br-int into namespace k, or
        # br-int's own internal port (a TAP, with the userspace datapath).
        self.kside = None
        self.kns, self.kdev = ("o", "br-int")
        if veth:
            self.kside = ("ovk%do" % pid, "ovk%dk" % pid)
            self.kns, self.kdev = ("k", self.kside[1])
            must([IP, "link", "add", self.kside[0], "netns", o, "type", "veth",
                   "peer", "name", self.kside[1], "netns", self.ns["k"]])
            up += [(o, self.kside[0]), (self.ns["k"], self.kside[1])]
        for ns, dev in up:
            must([IP, "-n", ns, "link", "set", dev, "up"])

    def plumb(self, ovs):
        """OVS's two bridges, as OVS's userspace tunneling guide has them."""
        o = self.ns["o"]
        # br-phy's MAC, fixed: OVS otherwise gives the bridge a random one
        # and then its lowest port's, and a datagram sent to the first (the
        # far kernel's ARP answer came before the change) reaches o's
        # kernel instead of OVS's tunnel, lost.
        mac = self.mac("o", self.under[1])
        ovs.vsctl("add-br", "br-phy", "--", "set", "bridge", "br-phy", "datapath_type=netdev",
                  "other-config:hwaddr=\"%s\"" % mac, "--", "add-port", "br-phy", self.under[1])
        got = wait_until(lambda: self.mac("o", "br-phy"), lambda m: m == mac)
        assert got == mac, (got, mac)
        ovs.vsctl("add-br", "br-int", "--", "set", "bridge", "br-int", "datapath_type=netdev",
                  "other-config:hwaddr=\"%s\"" % BR_INT_MAC,
                  "--", "add-port", "br-int", "vx0", "--", "set", "interface", "vx0",
                  "type=vxlan", "options:remote_ip=" + UNDER[0],
                  "options:key=%d" % self.vni)
        if self.kside:
            ovs.vsctl("add-port", "br-int", self.kside[0])
        got = wait_until(lambda: self.mac("o", "br-int"), lambda m: m == BR_INT_MAC)
        assert got == BR_INT_MAC, got
        must([IP, "-n", o, "addr", "add", UNDER[1] + "/24", "dev", "br-phy"])
        must([IP, "-n", o, "link", "set", "br-phy", "up"])
        must([IP, "-n", o, "link", "set", "br-int", "up"])
        kns = self.ns[self.kns]
        must([IP, "-n", kns, "addr", "add", INNER[1] + "/24", "dev", self.kdev])
        must([IP, "netns", "exec", kns, "sysctl", "-qw",
               "net.ipv4.neigh.%s.base_reachable_time_ms=3600000" % self.kdev])
        # OVS caches the kernel's routes; the one through br-phy is the
        # tunnel's way out.
        routes = wait_until(lambda: ovs.appctl("ovs/route/show"),
                       lambda out: "10.229.0.0/24 dev br-phy" in out)
        assert "10.229.0.0/24 dev br-phy" in routes, routes
        # Without the far end's MAC, OVS drops the frame it was to tunnel
        # and sends an ARP request instead: the kernel's first ARP would
        # be lost. Given here as an operator would (tnl/arp/set).
        ovs.appctl("tnl/arp/set", "br-phy", UNDER[0], self.mac("r", self.under[0]))

    def wrapper(self, x):
        return [IP, "netns", "exec", self.ns[x]]

    def link_stats(self, x, dev):
        s = json.loads(must([IP, "-n", self.ns[x], "-s", "-j", "link", "show", dev]))[0]
        return s["stats64"]["rx"]["packets"], s["stats64"]["tx"]["packets"]

    def mac(self, x, dev):
        return json.loads(must([IP, "-n", self.ns[x], "-j", "link", "show", dev]))[0]["address"]

    def close(self):
        for ns in self.made:
            run([IP, "netns", "del", ns])


@pytest.fixture(params=["veth", "internal"])
def ovs_hosts(request, tmp_path):
    why = ovs_missing()
    if why:
        pytest.skip(why)
    h = OvsHosts(request.param)
    ovs = PrivateOvs(str(tmp_path / "ovs"), h.ns["o"])
    try:
        ovs.start()
        h.plumb(ovs)
        yield h, ovs
    finally:
        ovs.close()
        h.close()


DROPS = ("cable_rx_foreign", "cable_rx_truncated", "cable_rx_bad_header", "cable_rx_bad_vni",
         "cable_rx_oversize", "cable_tx_oversize", "cable_rx_dropped", "cable_tx_dropped",
         "rx_no_buffer", "rx_filtered", "rx_oversize")

SEND_UDP = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b"refnic-ovs-%06d" % i + bytes(40), (sys.argv[1], 9))
    time.sleep(0.001)
"""


def test_vxlan_ovs_userspace_tunnel_to_kernel(refnic_testpmd, ovs_hosts):
    """A kernel behind OVS pings an address testpmd's icmpecho answers on
    a refnic vxlan port: ARP and echo requests cross OVS's br-int, its vxlan
    port (tunnel push) and br-phy, then refnic's cable; the replies come
    back the same way (tunnel pop). Then a counted burst each way: 4 x 32
    frames from testpmd (txonly) reach the kernel's interface, and 100 UDP
    datagrams from the kernel reach testpmd (rxonly). Every count is exact,
    at both ends."""
    h, ovs = ovs_hosts
    n, bursts, dgrams = 5, 4, 100
    port = "net_refnic0,cable=vxlan:%s,vxlan_vni=%d,vxlan_local=%s" % (UNDER[1], VNI, UNDER[0])
    tp = refnic_testpmd([port], wrapper=h.wrapper("r"))
    assert "Link status: up" in tp.cmd("show port info 0")
    tp.cmd("set fwd icmpecho", check=True)
    tp.cmd("start", check=True)
    k0 = h.link_stats(h.kns, h.kdev)
    r = run(h.wrapper(h.kns) + ["python3", os.path.join(HERE, "icmp_ping.py"), INNER[0], str(n)])
    k1 = h.link_stats(h.kns, h.kdev)
    assert r.returncode == 0 and "%d/%d replies" % (n, n) in r.stdout, (r.stdout, ovs.logs())
    fwd = tp.stop()[0]
    # Each way, what one end sent the other got: n echo requests or
    # replies and the ARP exchange (a loaded machine may make the kernel
    # ask twice: each request is answered).
    k_tx, k_rx = k1[1] - k0[1], k1[0] - k0[0]
    assert fwd["RX-packets"] == k_tx and k_tx >= n + 1, (fwd, k0, k1)
    assert fwd["TX-packets"] == k_rx == fwd["RX-packets"], (fwd, k0, k1)

    # Bursts: testpmd -> kernel, then kernel -> testpmd.
    tp.cmd("set eth-peer 0 %s" % h.mac(h.kns, h.kdev), check=True)
    tp.cmd("set fwd rxonly", check=True)
    tp.cmd("clear port stats all", check=True)
    k0 = h.link_stats(h.kns, h.kdev)
    tp.cmd("start tx_first %d" % bursts, check=True)
    got_k = wait_until(lambda: h.link_stats(h.kns, h.kdev)[0] - k0[0],
                  lambda v: v >= 32 * bursts)
    must(h.wrapper(h.kns) + ["python3", "-c", SEND_UDP, INNER[0], str(dgrams)])
    got_tp = wait_until(lambda: tp.port_stats(0)["RX-packets"], lambda v: v >= dgrams)
    time.sleep(0.5)     # anything beyond would show
    k1 = h.link_stats(h.kns, h.kdev)
    fwd = tp.stop()[0]
    xs = tp.xstats(0)
    assert got_k == 32 * bursts and k1[0] - k0[0] == 32 * bursts, (k0, k1, ovs.logs())
    assert k1[1] - k0[1] == dgrams, (k0, k1)
    assert got_tp == dgrams and fwd["RX-packets"] == dgrams, (fwd, ovs.logs())
    assert fwd["TX-packets"] == 32 * bursts, fwd
    bad = {k: xs[k] for k in DROPS if xs[k] != 0}
    assert not bad, bad
