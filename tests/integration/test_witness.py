"""Stock testpmd judged frame by frame: refnic-witness (tests/witness/) in
one process sends sequence-numbered frames out of two refnic ports and
checks what comes back; dpdk-testpmd in another process io-forwards them
between its two ports, each on the far end of one of the witness's
`shm` cables. A million frames must come back with none duplicated,
reordered or corrupted, and every one that did not counted lost by a
counter a user reads: a receiving port's missed or no-buffer frames, a
cable's drops, testpmd's forwarding drops.
"""

import json
import os
import subprocess

import pytest

from helpers import built, pmd_path, wait_link
from testpmd import TestPmd

FRAMES_PER_PORT = 300000
TIMEOUT = 120


def witness_bin():
    return built("tests/refnic-witness")


def run_witness(cables, devargs, frames, extra=()):
    prefix = "wit%d_%s" % (os.getpid(), cables[0])
    argv = [witness_bin(), "-l", "0", "--no-huge", "-m", "512", "--no-shconf", "--no-pci",
            "--no-telemetry", "--file-prefix=" + prefix, "-d", pmd_path(),
            "--log-level=pmd.net.refnic.*:error"]
    for i, cable in enumerate(cables):
        argv += ["--vdev", "net_refnic%d,cable=shm:%s%s" % (i, cable, devargs)]
    argv += ["--", "--count", str(frames)] + list(extra)
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("refnic-witness ran over %d s:\n%s" % (
            TIMEOUT, (e.stderr or b"")[-3000:].decode(errors="replace")))
    assert res.returncode == 0, "refnic-witness exited %d:\n%s" % (res.returncode,
                                                                   res.stderr[-3000:])
    lines = [l for l in res.stdout.splitlines() if l.startswith("{")]
    assert len(lines) == 1, res.stdout
    return json.loads(lines[0])


@pytest.mark.parametrize("devargs", ["", ",profile=vm", ",exec=thread"])
def test_testpmd_io_forwarding_judged_by_the_witness(devargs):
    tag = "%d%s" % (os.getpid(), abs(hash(devargs)) % 1000)
    cables = ["wa" + tag, "wb" + tag]
    vdevs = ["net_refnic%d,cable=shm:%s%s" % (i, c, devargs) for i, c in enumerate(cables)]
    with TestPmd(vdevs, plugins=[pmd_path()],
                 testpmd_args=["--disable-link-check"]) as tp:
        tp.cmd("start", check=True)
        w = run_witness(cables, devargs, FRAMES_PER_PORT, ["--idle-ms", "1000"])
        for p in (0, 1):
            wait_link(tp, p, "down", 0)
        fwd = tp.stop()
        stats = tp.port_stats()
        xs = {p: tp.xstats(p) for p in (0, 1)}
    judge(w, fwd, stats, xs)


def judge(w, fwd, stats, xs):
    """The witness's verdict on a testpmd that io-forwarded its frames
    (fwd: its forwarding stats; stats, xs: its ports' counters)."""
    summary = "witness %s\ntestpmd fwd %s\nports %s" % (w, fwd, stats)
    assert w["sent"] == [FRAMES_PER_PORT] * 2, summary
    assert w["duplicated"] == 0 and w["reordered"] == 0 and w["corrupted"] == 0, summary
    # Every frame lost was counted where it was lost, exactly. The counters
    # also count the warm-up's frames (sent until frames came back both
    # ways, some before testpmd's ports could send), which the witness
    # counts apart.
    counted = sum(stats[p]["RX-missed"] + stats[p]["RX-nombuf"] + fwd[p]["TX-dropped"]
                  + xs[p]["cable_tx_dropped"] for p in (0, 1))
    counted += sum(q["imissed"] + q["rx_nombuf"] + q["cable_tx_dropped"] for q in w["ports"])
    warmup_lost = sum(q["warmup_sent"] - q["warmup_back"] for q in w["ports"])
    assert w["lost"] + warmup_lost == counted, summary
    # And the witness's own port counters agree with what it checked.
    for q in w["ports"]:
        assert q["received"] + q["warmup_back"] == q["ipackets"], summary
        assert q["opackets"] == FRAMES_PER_PORT + q["warmup_sent"], summary


def test_secondary_testpmd_forwarding_judged_by_the_witness(refnic_pmd, hugepages):
    """The same, forwarded by a secondary testpmd on a primary's ports: the
    primary owns the ports and forwards nothing; every burst is the
    secondary's (and, inline, the device work its doorbells run)."""
    tag = "%d" % os.getpid()
    cables = ["wsa" + tag, "wsb" + tag]
    vdevs = ["net_refnic%d,cable=shm:%s" % (i, c) for i, c in enumerate(cables)]
    prefix = "witmp%d" % os.getpid()
    # One process forwards: the secondary, on every queue.
    common = ["--disable-link-check", "--num-procs=1", "--proc-id=0"]
    primary = TestPmd(vdevs, testpmd_args=common, plugins=[refnic_pmd],
                      proc_type="primary", file_prefix=prefix)
    secondary = TestPmd([], testpmd_args=common, plugins=[refnic_pmd],
                        proc_type="secondary", file_prefix=prefix)
    with primary:
        with secondary:
            secondary.cmd("start", check=True)
            w = run_witness(cables, "", FRAMES_PER_PORT, ["--idle-ms", "1000"])
            fwd = secondary.stop()
        for p in (0, 1):
            wait_link(primary, p, "down", 0)
        stats = primary.port_stats()
        xs = {p: primary.xstats(p) for p in (0, 1)}
    assert sum(fwd[p]["RX-packets"] for p in (0, 1)) >= FRAMES_PER_PORT, fwd
    judge(w, fwd, stats, xs)
