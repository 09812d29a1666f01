"""DPDK's own unit suites (Debian's dpdk-test) that take an ethdev port, run
on a refnic port: the PMD loaded with -d, the port given with --vdev.

    pmd_perf_autotest              RX/TX cycles per packet on every port;
                                   refnic's default cable=loopback brings back
                                   what the port sends
    event_eth_rx_adapter_autotest  the event Rx adapter on every port there
                                   is (8 Rx queues of refnic port 0), with an
                                   event_skeleton device it creates
    event_eth_rx_intr_adapter_autotest
                                   the same adapter on Rx interrupts: queues
                                   added and removed in interrupt mode (the
                                   adapter's epoll on refnic's queue vectors)

The others in dpdk-test that touch ethdev ports make their own (net_ring,
net_null) and leave ours alone (event_eth_tx_adapter_autotest,
link_bonding*, ring_pmd*), or need an inline security context
(inline_ipsec_autotest skips them all).
"""

import os
import re
import shutil
import subprocess

import pytest

TIMEOUT_S = 300


def dpdk_test(name, vdevs, pmd, memory_mb=1024, lcores="0-1"):
    """Run one dpdk-test suite non-interactively (DPDK_TEST=name)."""
    tool = shutil.which("dpdk-test")
    if tool is None:
        pytest.skip("dpdk-test is not installed (Debian: dpdk-dev)")
    prefix = "dpdktest%d" % os.getpid()
    argv = [tool, "-l", lcores, "--no-huge", "-m", str(memory_mb), "--no-pci",
            "--no-shconf", "--no-telemetry", "--file-prefix=" + prefix, "-d", pmd]
    for vdev in vdevs:
        argv += ["--vdev", vdev]
    env = dict(os.environ, DPDK_TEST=name)
    try:
        return subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    finally:
        base = "/var/run" if os.geteuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
        shutil.rmtree(os.path.join(base, "dpdk", prefix), ignore_errors=True)


def test_dpdk_test_pmd_perf_on_refnic(refnic_pmd, measured):
    res = dpdk_test("pmd_perf_autotest", ["net_refnic0"], refnic_pmd)
    out = res.stdout + res.stderr
    assert res.returncode == 0 and "Test OK" in out, out[-3000:]
    # It ran on the refnic port, the only one there is.
    ports = sorted(set(re.findall(r"inject \d+ packet to port (\d+)", out)))
    assert ports == ["0"], out[-3000:]
    assert re.search(r"Port 0 Link up", out), out[-3000:]
    received = re.search(r"^(\d+) packet, (\d+) drop", out, re.M)
    target = re.search(r"Test will stop after at least (\d+) packets received", out)
    assert received and target and int(received.group(1)) >= int(target.group(1)), out[-3000:]
    cycles = re.search(r"Result: (\d+) cycles per packet", out)
    assert cycles and int(cycles.group(1)) > 0, out[-3000:]
    measured("pmd_perf_autotest on net_refnic0: %s cycles per packet (%s packets, %s drops)"
             % (cycles.group(1), received.group(1), received.group(2)))


def suite_counts(out):
    return {k: int(v) for k, v in re.findall(r"Tests (\w+) :\s+(\d+)", out)}


def test_dpdk_test_event_eth_rx_adapter_on_refnic(refnic_pmd):
    # Its mbuf pool is sized for 64 queues a port (8192 * ports * 64
    # mbufs): more than -m 1024 holds.
    res = dpdk_test("event_eth_rx_adapter_autotest", ["net_refnic0"], refnic_pmd,
                    memory_mb=3072)
    out = res.stdout + res.stderr
    assert res.returncode == 0 and "Test OK" in out, out[-3000:]
    # Its set-up started every port there was: refnic port 0.
    assert re.search(r"^Port 0 MAC: ", out, re.M), out[-3000:]
    counts = suite_counts(out)
    assert counts.get("Total", 0) > 0, out[-3000:]
    assert counts.get("Passed") == counts["Total"] and counts.get("Failed") == 0, counts


def test_dpdk_test_event_eth_rx_intr_adapter_on_refnic(refnic_pmd):
    res = dpdk_test("event_eth_rx_intr_adapter_autotest", ["net_refnic0"], refnic_pmd,
                    memory_mb=3072)
    out = res.stdout + res.stderr
    assert res.returncode == 0 and "Test OK" in out, out[-3000:]
    assert re.search(r"^Port 0 MAC: ", out, re.M), out[-3000:]
    assert "adapter_intr_queue_add_del succeeded" in out, out[-3000:]
    counts = suite_counts(out)
    assert counts.get("Total", 0) > 0, out[-3000:]
    assert counts.get("Passed") == counts["Total"] and counts.get("Failed") == 0, counts
