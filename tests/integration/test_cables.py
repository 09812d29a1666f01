"""Cables that leave the process, through stock testpmd: an shm cable between
two testpmd processes (traffic, a side that quits, a side that is killed),
and a TAP cable that lets the kernel ping a DPDK responder.
"""

import os
import shutil
import subprocess
import time

import pytest

from test_testpmd_control import lsc_events, wait_link
from test_testpmd_refnic import refnic

HERE = os.path.dirname(os.path.abspath(__file__))


def shm_vdev(tag):
    return "net_refnic0,cable=shm:it%d%s" % (os.getpid(), tag)


def test_shm_two_processes_forward_and_restart():
    vdev = shm_vdev("a")
    with refnic([vdev]) as a:
        assert a.port_info(0).get("Link status") == "down"
        with refnic([vdev]) as b:
            wait_link(a, 0, "up", 1)
            a.cmd("set fwd rxonly", check=True)
            b.cmd("set fwd txonly", check=True)
            a.cmd("start", check=True)
            b.cmd("start", check=True)
            time.sleep(1)
            sent = b.stop()[0]["TX-packets"]
            received = a.stop()[0]["RX-packets"]
            assert sent > 0 and 0 < received <= sent, (sent, received)
        # b quit: a sees its link go, then come back with a new process.
        wait_link(a, 0, "down", 2)
        with refnic([vdev]):
            wait_link(a, 0, "up", 3)


def test_shm_peer_killed():
    vdev = shm_vdev("k")
    with refnic([vdev]) as a:
        b = refnic([vdev]).start()
        wait_link(a, 0, "up", 1)
        b.proc.kill()           # no clean detach: the end is left taken
        b.close()
        wait_link(a, 0, "down", 2)
        # The dead process's end is free again.
        with refnic([vdev]):
            wait_link(a, 0, "up", 3)


def _run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=30)


def test_tap_ping_from_a_namespace():
    ip = shutil.which("ip")
    if not os.path.exists("/dev/net/tun") or ip is None:
        pytest.skip("needs /dev/net/tun and iproute2's ip")
    ns = "refnic-it%d" % os.getpid()
    ifname = "rfit%d" % (os.getpid() % 100000)
    if _run([ip, "netns", "add", ns]).returncode != 0:
        pytest.skip("this machine forbids network namespaces")
    try:
        with refnic(["net_refnic0,cable=tap:" + ifname]) as tp:
            tp.cmd("set fwd icmpecho", check=True)
            tp.cmd("start", check=True)
            for argv in ([ip, "link", "set", ifname, "netns", ns],
                         [ip, "-n", ns, "addr", "add", "10.231.0.1/24", "dev", ifname],
                         [ip, "-n", ns, "link", "set", ifname, "up"]):
                r = _run(argv)
                assert r.returncode == 0, (argv, r.stdout)
            r = _run([ip, "netns", "exec", ns, "python3",
                      os.path.join(HERE, "icmp_ping.py"), "10.231.0.2", "3"])
            assert r.returncode == 0 and "3/3 replies" in r.stdout, r.stdout
            fwd = tp.stop()[0]
            # ARP request + 3 echo requests in; ARP reply + 3 echo replies out.
            assert fwd["RX-packets"] >= 4 and fwd["TX-packets"] >= 4, fwd
    finally:
        _run([ip, "netns", "del", ns])
