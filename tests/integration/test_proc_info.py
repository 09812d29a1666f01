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

from testpmd import TestPmd
from test_testpmd_refnic import PAIR

PROC_INFO = shutil.which("dpdk-proc-info")
_seq = itertools.count()


@pytest.fixture
def primary(refnic_pmd, hugepages):
    """A primary testpmd on a wired refnic pair that has forwarded a while."""
    if PROC_INFO is None:
        pytest.skip("dpdk-proc-info is not installed (Debian: dpdk)")
    prefix = "pitest%d_%d" % (os.getpid(), next(_seq))
    tp = TestPmd(PAIR, plugins=[refnic_pmd], proc_type="primary", file_prefix=prefix)
    with tp:
        tp.cmd("start tx_first", check=True)
        time.sleep(0.5)
        tp.stop()
        yield tp


def proc_info(tp, refnic_pmd, *args):
    """Run dpdk-proc-info against tp's ports; (exit status, output)."""
    # proc-info adds -c1 and --proc-type=secondary itself.
    argv = [PROC_INFO, "--file-prefix=" + tp.file_prefix,
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
