"""dpdk-proc-info, DPDK's monitoring tool, as a secondary process against a
primary testpmd on two refnic ports (the primary started as in
test_multiprocess.py: --proc-type=primary and a --file-prefix of its own).

The primary is the witness: what proc-info reads or resets is checked
against what the primary's own testpmd shows.
"""

import itertools
import os
import re
import shutil
import subprocess
import time

import pytest

from helpers import _HW_PTYPE, PAIR, dump_priv, received_ptypes
from testpmd import TestPmd

PROC_INFO = shutil.which("dpdk-proc-info")
_seq = itertools.count()


@pytest.fixture
def primary(refnic_pmd, hugepages):
    """A primary testpmd on a wired refnic pair, two queue pairs a port, that
    has forwarded a while; its telemetry on for the private dump."""
    if PROC_INFO is None:
        pytest.skip("dpdk-proc-info is not installed (Debian: dpdk)")
    prefix = "pitest%d_%d" % (os.getpid(), next(_seq))
    tp = TestPmd(PAIR, testpmd_args=["--rxq=2", "--txq=2"], plugins=[refnic_pmd],
                 proc_type="primary", file_prefix=prefix, telemetry=True)
    with tp:
        tp.cmd("start tx_first", check=True)
        time.sleep(0.5)
        tp.stop()
        yield tp


def proc_info(tp, refnic_pmd, *args):
    """Run dpdk-proc-info against tp's ports; (exit status, output)."""
    # proc-info adds -c1 and --proc-type=secondary itself.
    argv = [PROC_INFO, "--file-prefix=" + tp.file_prefix, "--no-pci",
            "-d", refnic_pmd, "--log-level=notice", "--", "-p", "0x3"] + list(args)
    res = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    return res.returncode, res.stdout + res.stderr


_NIC_BLOCK = re.compile(r"NIC statistics for port (\d+)\s+#+\n((?:.*\S.*\n)+)")
_COUNTER = re.compile(r"([A-Za-z][\w-]*):\s+(\d+)")


def nic_stats(out):
    """{port: {name: int}} from proc-info's --stats blocks: the port's own
    lines, up to the per-queue "Stats reg" ones after a blank line."""
    return {int(m.group(1)): {k: int(v) for k, v in _COUNTER.findall(m.group(2))}
            for m in _NIC_BLOCK.finditer(out)}


def test_proc_info_leaves_cleanly(primary, refnic_pmd):
    """Every run closes each port once: no 'Invalid port_id' at exit."""
    rc, out = proc_info(primary, refnic_pmd, "--stats")
    assert rc == 0, out
    assert "Invalid port_id" not in out, out
    stats = nic_stats(out)
    assert sorted(stats) == [0, 1], out
    # What the primary counted, port by port (nothing moves: it has stopped).
    nic = primary.port_stats()
    for p in (0, 1):
        for key in ("RX-packets", "RX-bytes", "TX-packets", "TX-bytes", "RX-errors"):
            assert stats[p][key] == nic[p][key], (p, key, stats, nic)


def test_proc_info_stats_reset_clears_the_primarys_counters(primary, refnic_pmd):
    """--stats-reset and --xstats-reset from the secondary reset the port's
    counters: the primary then shows zero, and proc-info says "cleared"
    only when it is true."""
    before = primary.port_stats()
    assert all(before[p]["RX-packets"] > 0 for p in (0, 1)), before
    rc, out = proc_info(primary, refnic_pmd, "--stats-reset")
    assert rc == 0 and out.count("NIC statistics for port") == 2, out
    assert "belongs to the primary" not in out, out
    after = primary.port_stats()
    for p in (0, 1):
        for key in ("RX-packets", "RX-bytes", "TX-packets", "TX-bytes"):
            assert after[p][key] == 0, (p, key, after)
    assert primary.xstats(0)["admin_commands"] > 0
    rc, out = proc_info(primary, refnic_pmd, "--xstats-reset")
    assert rc == 0 and out.count("NIC extended statistics for port") == 2, out
    assert "Error" not in out, out
    for p in (0, 1):
        # The first reads after the reset: only the commands that fetched them.
        xs = primary.xstats(p)
        assert xs["rx_good_packets"] == 0 and xs["queue_errors"] == 0, xs


_XSTATS_BLOCK = re.compile(r"NIC extended statistics for port (\d+)\s+#+\n#+\n((?:\w+: \d+\n)+)")


def xstats(out):
    """{port: {name: int}} from proc-info's --xstats blocks."""
    return {int(m.group(1)): {k: int(v) for k, v in re.findall(r"^(\w+): (\d+)$", m.group(2), re.M)}
            for m in _XSTATS_BLOCK.finditer(out)}


def moving(name):
    """Counters a read itself moves (each fetch is an admin command) or time
    moves (adaptive moderation): compared by name only."""
    return name.startswith("admin_") or name.endswith("_itr_us")


def test_proc_info_xstats_are_the_primarys(primary, refnic_pmd):
    """--xstats in the secondary lists the refnic xstats, not only ethdev's
    generic ones: the same names as the primary's, in the same order, with
    the same values; --xstats-name finds tx_doorbell_writes (proc-info
    prints its id) and --xstats-ids reads its value by that id."""
    rc, out = proc_info(primary, refnic_pmd, "--xstats")
    assert rc == 0, out
    got = xstats(out)
    assert sorted(got) == [0, 1], out
    for p in (0, 1):
        want = primary.xstats(p)
        assert list(got[p]) == list(want), (p, list(got[p]), list(want))
        assert len(want) > 49 and want["tx_doorbell_writes"] > 0, want
        for name, value in want.items():
            if not moving(name):
                assert got[p][name] == value, (p, name, got[p][name], value)
    rc, out = proc_info(primary, refnic_pmd, "--xstats-name", "tx_doorbell_writes")
    ids = {int(i) for i in re.findall(r"^tx_doorbell_writes: (\d+)$", out, re.M)}
    assert rc == 0 and len(ids) == 1, out
    rc, out = proc_info(primary, refnic_pmd, "--xstats-ids", str(ids.pop()))
    values = [int(v) for v in re.findall(r"^\s*tx_doorbell_writes: (\d+)$", out, re.M)]
    assert rc == 0 and values == [primary.xstats(p)["tx_doorbell_writes"] for p in (0, 1)], out


def test_proc_info_rss_reta_and_key_are_the_primarys(primary, refnic_pmd):
    """--show-rss-reta and --show-port's RSS key, read in the secondary, are
    what the primary's testpmd shows, after the primary changed the table."""
    primary.cmd("port config 0 rss reta (0,1),(1,0),(127,1)", check=True)
    rc, out = proc_info(primary, refnic_pmd, "--show-rss-reta")
    assert rc == 0 and "Error" not in out, out
    line = re.compile(r"^RSS RETA configuration: hash index=\d+, queue=\d+$", re.M)
    port0 = out[out.index("Port 0"):out.index("Port 1")]
    want = primary.cmd("show port 0 rss reta 128 (0xffffffffffffffff,0xffffffffffffffff)")
    assert line.findall(port0) == line.findall(want) and len(line.findall(want)) == 128, out
    assert "hash index=0, queue=1" in port0 and "hash index=127, queue=1" in port0, out
    rc, out = proc_info(primary, refnic_pmd, "--show-port")
    keys = re.findall(r"-- key \(hex\) : ([0-9a-f]+)$", out, re.M)
    for p in (0, 1):
        want = re.search(r"^([0-9A-F]{80})$", primary.cmd("show port %d rss-hash key" % p), re.M)
        assert want and keys[p] == want.group(1).lower(), (keys, want)


def test_proc_info_private_dump_is_the_primarys(primary, refnic_pmd):
    """--show-port-private prints the PMD's private dump in the secondary:
    line for line the primary's own (telemetry's /ethdev/dump_priv), but for
    the admin line, which counts the fetch each dump makes."""
    rc, out = proc_info(primary, refnic_pmd, "--show-port-private")
    assert rc == 0, out
    for p in (0, 1):
        start = out.index("refnic port %d (net_refnic%d)" % (p, p))
        got = out[start:].split("===== Port", 1)[0].strip().splitlines()
        want = dump_priv(primary, p).strip().splitlines()
        # The title, 5 port groups, 2 RX and 2 TX queues.
        assert len(got) == len(want) == 1 + 5 + 2 + 2, got
        assert [ln for ln in got if not ln.startswith("admin:")] == \
            [ln for ln in want if not ln.startswith("admin:")], (got, want)


def test_secondary_refuses_the_packet_type_mask(primary, refnic_pmd):
    """The packet type mask is the primary's, as the rest of the port's
    configuration: a secondary testpmd's 'set port 0 ptype_mask 0' is
    refused with the one line (not taken and ignored), and the 64 frames
    port 0 then receives still carry every layer. (A secondary testpmd's
    case, beside the proc-info ones for their shared primary.)"""
    # The frames the fixture left in the rings first: the device classified
    # them while packet types were off (testpmd turns them off at port
    # start, as on any PMD), and asking for them later does not re-parse
    # what is already delivered.
    primary.cmd("set fwd rxonly", check=True)
    primary.cmd("start", check=True)
    time.sleep(0.2)
    primary.stop()
    # Then the primary asks for every layer.
    assert "Successfully set" in primary.cmd("set port 0 ptype_mask 0xfff")
    with TestPmd([], plugins=[refnic_pmd], proc_type="secondary",
                 file_prefix=primary.file_prefix) as secondary:
        out = secondary.cmd("set port 0 ptype_mask 0")
    assert "the packet type mask belongs to the primary process" in out, out
    assert "Successfully set" not in out, out
    primary.cmd("set verbose 1", check=True)
    primary.send("start tx_first")
    # tx_first: 32 frames on each of the peer's two TX queues.
    got = received_ptypes(primary.wait_output(_HW_PTYPE, 2 * 64))
    primary.stop()
    assert [hw for hw, _ in got[0]] == ["L2_ETHER L3_IPV4_EXT_UNKNOWN L4_UDP"] * 64, got[0]
