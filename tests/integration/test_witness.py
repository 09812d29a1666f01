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
import threading
import time

import pytest

from helpers import built, pmd_path, wait_link
from testpmd import TestPmd

FRAMES_PER_PORT = 300000
TIMEOUT = 120


def witness_bin():
    return built("tests/refnic-witness")


def witness_argv(cables, devargs, frames, extra=()):
    prefix = "wit%d_%s" % (os.getpid(), cables[0])
    argv = [witness_bin(), "-l", "0", "--no-huge", "-m", "512", "--no-shconf", "--no-pci",
            "--no-telemetry", "--file-prefix=" + prefix, "-d", pmd_path(),
            "--log-level=pmd.net.refnic.*:error"]
    for i, cable in enumerate(cables):
        argv += ["--vdev", "net_refnic%d,cable=shm:%s%s" % (i, cable, devargs)]
    return argv + ["--", "--count", str(frames)] + list(extra)


def witness_result(returncode, stdout, stderr):
    assert returncode == 0, "refnic-witness exited %d:\n%s" % (returncode, stderr[-3000:])
    lines = [l for l in stdout.splitlines() if l.startswith("{")]
    assert len(lines) == 1, stdout
    return json.loads(lines[0])


def run_witness(cables, devargs, frames, extra=()):
    argv = witness_argv(cables, devargs, frames, extra)
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("refnic-witness ran over %d s:\n%s" % (
            TIMEOUT, (e.stderr or b"")[-3000:].decode(errors="replace")))
    return witness_result(res.returncode, res.stdout, res.stderr)


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
        assert q["link_downs"] == 0, summary
    assert w["mbufs_in_use"] == 0, summary


def test_secondary_testpmd_forwarding_judged_by_the_witness(refnic_pmd, hugepages):
    """The same, forwarded by a secondary testpmd on a primary's ports: the
    primary owns the ports and forwards nothing; every burst is the
    secondary's (and, inline, the device work its doorbells run). The
    primary's memory is hugepages, one file a page, with IOVA as PA when
    run as root: the witness delivers into rings and buffers that may span
    two such pages (cables.test_shm_view_spans_pieces), none of it a DMA
    error."""
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
    assert [xs[p]["dma_errors"] for p in (0, 1)] == [0, 0], xs
    judge(w, fwd, stats, xs)


KILL_FRAMES_PER_PORT = 600000   # a kill's worth
KILL_AFTER_FRAMES = 100000      # forwarded by each testpmd before it is killed
RESTART_IDLE_MS = 3000          # once all is sent, the witness waits this long


def testpmd_forwarded(tp):
    return sum(tp.port_stats()[p]["RX-packets"] for p in (0, 1))


class WitnessRun:
    """refnic-witness running, its output read as it comes: it says each
    link change on stderr ("refnic-witness: port P link down"), the moment
    its link poll sees it."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.out, self.err = [], []
        self.cond = threading.Condition()
        self.readers = [threading.Thread(target=self._read, args=(f, lines), daemon=True)
                        for f, lines in ((self.proc.stdout, self.out),
                                         (self.proc.stderr, self.err))]
        for t in self.readers:
            t.start()

    def _read(self, f, lines):
        for line in f:
            with self.cond:
                lines.append(line)
                self.cond.notify_all()

    def stderr_tail(self):
        with self.cond:
            return "".join(self.err)[-3000:]

    def link_downs(self, port):
        with self.cond:
            return sum(l.strip() == "refnic-witness: port %d link down" % port
                       for l in self.err)

    def wait_link_downs(self, ports, n, timeout):
        """Until the witness saw each port's link go down n times."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not all(self.link_downs(p) >= n for p in ports):
                left = deadline - time.monotonic()
                assert left > 0 and self.proc.poll() is None, (
                    "the witness did not see links %s go down %d times:\n%s" % (
                        list(ports), n, self.stderr_tail()))
                self.cond.wait(min(left, 0.5))

    def finish(self, timeout):
        """(returncode, stdout, stderr), the witness killed if it runs over."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("refnic-witness ran over:\n" + "".join(self.err)[-3000:])
        for t in self.readers:
            t.join()
        return self.proc.returncode, "".join(self.out), "".join(self.err)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for t in self.readers:
            t.join()


def test_witness_survives_its_forwarder_killed_and_restarted():
    """The far end of both shm cables, a testpmd forwarding the witness's
    frames, is killed with SIGKILL mid-traffic and a new one started on the
    same cables (REFNIC_WITNESS_KILLS times, 1 by default; devtools/bench.sh
    witness-kill-soak makes it minutes). On the witness's side: none
    duplicated, reordered or corrupted, before or after; every frame lost
    counted by a counter a user reads (the witness's ports', cable drops
    while the link was down among them; each testpmd's, read last just
    before its kill) or out, sent and not back, when the witness's ports
    saw the link go down: what a killed process took with it, which nothing
    that survives it can count frame by frame. Each kill takes each link
    down once, traffic comes back through each new testpmd, and every mbuf
    of the witness is back in its pool."""
    kills = int(os.environ.get("REFNIC_WITNESS_KILLS", "1"))
    tag = "%dk" % os.getpid()
    cables = ["wa" + tag, "wb" + tag]
    vdevs = ["net_refnic%d,cable=shm:%s" % (i, c) for i, c in enumerate(cables)]
    frames = KILL_FRAMES_PER_PORT * kills
    argv = witness_argv(cables, "", frames, ["--idle-ms", str(RESTART_IDLE_MS)])
    counted = 0
    # testpmd drops what its ports received before "start" unless told not
    # to (flush_rx): freed, counted nowhere. A new testpmd's ports start
    # with the witness sending: keep it, forwarded like the rest.
    args = ["--disable-link-check", "--no-flush-rx"]
    tp = TestPmd(vdevs, plugins=[pmd_path()], testpmd_args=args).start()
    witness = None
    try:
        tp.cmd("start", check=True)
        witness = WitnessRun(argv)
        for k in range(kills):
            deadline = time.monotonic() + TIMEOUT
            while testpmd_forwarded(tp) < KILL_AFTER_FRAMES:
                assert witness.proc.poll() is None, "the witness ended before kill %d:\n%s" % (
                    k, witness.stderr_tail())
                assert time.monotonic() < deadline, "no traffic before kill %d" % k
                time.sleep(0.05)
            # What it counted so far, as a user would read it last.
            stats = tp.port_stats()
            counted += sum(stats[p]["RX-missed"] + stats[p]["RX-nombuf"] for p in (0, 1))
            counted += sum(tp.xstats(p)["cable_tx_dropped"] for p in (0, 1))
            tp._kill()          # SIGKILL, mid-traffic
            tp.close()
            # A new process on the ends at once could replace the old one
            # between two looks of the witness's link poll (or of its
            # device's peer check): down and up again unseen. The witness
            # sees its links go down first, as a user would, then the new
            # one comes.
            witness.wait_link_downs((0, 1), k + 1, TIMEOUT)
            tp = TestPmd(vdevs, plugins=[pmd_path()], testpmd_args=args).start()
            tp.cmd("start", check=True)
        returncode, out, err = witness.finish(TIMEOUT * kills)
        for p in (0, 1):
            wait_link(tp, p, "down", 0)
        fwd = tp.stop()
        stats = tp.port_stats()
        xs = {p: tp.xstats(p) for p in (0, 1)}
    finally:
        if witness is not None:
            witness.kill()
        tp.close()
    w = witness_result(returncode, out, err)
    links = [l for l in err.splitlines() if " link " in l]
    summary = "witness %s\nlast testpmd fwd %s\nports %s\nwitness saw %s" % (
        w, fwd, stats, links)
    assert w["sent"] == [frames] * 2, summary
    assert w["duplicated"] == 0 and w["reordered"] == 0 and w["corrupted"] == 0, summary
    assert w["mbufs_in_use"] == 0, summary
    counted += sum(stats[p]["RX-missed"] + stats[p]["RX-nombuf"] + fwd[p]["TX-dropped"]
                   + xs[p]["cable_tx_dropped"] for p in (0, 1))
    counted += sum(q["imissed"] + q["rx_nombuf"] + q["cable_tx_dropped"] for q in w["ports"])
    warmup_lost = sum(q["warmup_sent"] - q["warmup_back"] for q in w["ports"])
    taken = sum(q["out_at_link_down"] for q in w["ports"])
    assert [q["link_downs"] for q in w["ports"]] == [kills, kills], summary
    assert counted <= w["lost"] + warmup_lost <= counted + taken, summary
    # The link was down a while: what the witness sent then was dropped,
    # and counted, on its side of the cables.
    assert sum(q["cable_tx_dropped"] for q in w["ports"]) > 0, summary
    # The last testpmd carried traffic again, all of it judged.
    assert sum(fwd[p]["RX-packets"] for p in (0, 1)) >= KILL_AFTER_FRAMES, summary
    # The witness's ports count what they received, plus what a killed
    # forwarder had written into their rings and counted there but not yet
    # handed over (its device hands completions over in batches): never
    # seen, and at most what was out when the links went down.
    for q in w["ports"]:
        assert 0 <= q["ipackets"] - q["received"] - q["warmup_back"] <= taken, summary
