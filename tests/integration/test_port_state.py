"""What a user reads about a refnic port's state: the PMD's private dump
(telemetry's /ethdev/dump_priv, i.e. rte_eth_dev_priv_dump(), through
dpdk-telemetry.py) and the burst mode testpmd shows per queue.
"""

import re
import time

import pytest

from helpers import PAIR_PEERS, cpu_has, default_vector, dump_priv, run_traffic

RING = 512      # testpmd's default descriptors per queue on refnic


def queue_line(dump, kind, q):
    m = re.search(r"^%s %d: (.*)$" % (kind, q), dump, re.M)
    assert m, dump
    return m.group(1)


def counter(line, name):
    m = re.search(r"\b%s=(\d+)" % name, line)
    assert m, (name, line)
    return int(m.group(1))


def test_dump_priv_shows_admin_policy_queues_and_counts(refnic_testpmd):
    vdevs = ["net_refnic0,cable=dump,admin_poll=fixed:20", "net_refnic1,cable=dump"]
    tp = refnic_testpmd(vdevs, telemetry=True)
    dump = dump_priv(tp, 0)
    assert dump.startswith("refnic port 0 (net_refnic0)"), dump
    assert "admin_poll=fixed:20" in dump and "link=up" in dump, dump
    assert "admin_poll=backoff" in dump_priv(tp, 1)
    assert counter(dump, "commands") > 0, dump   # probing talked to the device

    run_traffic(tp, PAIR_PEERS)
    time.sleep(0.5)
    dump = dump_priv(tp, 0)
    nic = tp.port_stats(0)
    rxq, txq = queue_line(dump, "rxq", 0), queue_line(dump, "txq", 0)
    assert rxq.startswith("state=started") and txq.startswith("state=started"), dump
    # The driver's counts against the device's (port stats): the driver
    # cannot have taken more than the device delivered, nor be behind by
    # more than a ring; and the other way round for TX.
    rx, tx = counter(rxq, "packets"), counter(txq, "packets")
    assert 0 <= nic["RX-packets"] - rx <= RING, (nic, rxq)
    assert 0 <= tx - nic["TX-packets"] <= RING, (nic, txq)
    assert rx > 0 and tx > 0, dump

    tp.cmd("port stop 0", check=True)
    dump = dump_priv(tp, 0)
    assert queue_line(dump, "rxq", 0).startswith("state=stopped"), dump
    assert queue_line(dump, "txq", 0).startswith("state=stopped"), dump


def burst_mode(tp, kind, port, q):
    out = tp.cmd("show %s info %d %d" % (kind, port, q), check=True)
    m = re.search(r"^Burst mode: (.*)$", out, re.M)
    assert m, out
    return m.group(1).strip()


def test_burst_mode_per_queue(pair):
    """The defaults run the vector bursts here (an x86 CPU, AVX2 where it
    has it, EAL's SIMD limit at its default); testpmd shows them per queue."""
    tp = pair
    vec = default_vector()
    assert burst_mode(tp, "rxq", 0, 0) == vec
    # profile=ideal (the default) maps the push window write-combining.
    assert burst_mode(tp, "txq", 0, 0) == vec + ", WC push"
    tp.cmd("port stop 0", check=True)
    tp.cmd("port config 0 rx_offload scatter on", check=True)
    tp.cmd("port start 0", check=True)
    assert burst_mode(tp, "rxq", 0, 0) == vec + " Scattered"
    assert burst_mode(tp, "rxq", 1, 0) == vec


def test_burst_choice_follows_simd_and_eal(refnic_testpmd):
    """simd=scalar runs the scalar bursts; EAL's --force-max-simd-bitwidth=64
    does too, unless simd=sse or simd=avx2 asks for the vector ones anyway."""
    tp = refnic_testpmd(["net_refnic0,simd=scalar", "net_refnic1", "net_refnic2,simd=sse",
                         "net_refnic3,simd=avx2"],
                        eal_args=["--force-max-simd-bitwidth=64"])
    assert burst_mode(tp, "rxq", 0, 0) == "Scalar"
    assert burst_mode(tp, "txq", 0, 0) == "Scalar, WC push"
    assert burst_mode(tp, "rxq", 1, 0) == "Scalar"
    assert burst_mode(tp, "txq", 1, 0) == "Scalar, WC push"
    assert burst_mode(tp, "rxq", 2, 0) == "Vector SSE"
    assert burst_mode(tp, "txq", 2, 0) == "Vector SSE, WC push"
    # simd=avx2 on a CPU without AVX2 gets what simd=sse would.
    assert burst_mode(tp, "rxq", 3, 0) == default_vector()
    assert burst_mode(tp, "txq", 3, 0) == default_vector() + ", WC push"


@pytest.mark.skipif(not cpu_has("avx2"), reason="the CPU has no AVX2")
def test_burst_choice_at_128_bits(refnic_testpmd):
    """--force-max-simd-bitwidth=128 keeps simd=auto to SSE; simd=avx2
    takes AVX2 anyway."""
    tp = refnic_testpmd(["net_refnic0", "net_refnic1,simd=avx2"],
                        eal_args=["--force-max-simd-bitwidth=128"])
    assert burst_mode(tp, "rxq", 0, 0) == "Vector SSE"
    assert burst_mode(tp, "txq", 0, 0) == "Vector SSE, WC push"
    assert burst_mode(tp, "rxq", 1, 0) == "Vector AVX2"
    assert burst_mode(tp, "txq", 1, 0) == "Vector AVX2, WC push"


def test_tx_path_per_platform(refnic_testpmd):
    """wc=auto pushes where the window is write-combining (baremetal) and
    rings TAIL where it is not (vm); wc=off is obeyed; testpmd shows it."""
    tp = refnic_testpmd(["net_refnic0,profile=vm", "net_refnic1,profile=baremetal",
                         "net_refnic2,profile=baremetal,wc=off"])
    assert burst_mode(tp, "txq", 0, 0).endswith(", doorbell+fetch")
    assert burst_mode(tp, "txq", 1, 0).endswith(", WC push")
    assert burst_mode(tp, "txq", 2, 0).endswith(", doorbell+fetch")
