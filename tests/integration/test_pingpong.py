"""refnic-pingpong as a user runs it: over a refnic pair in one process, over
memif in one and in two processes, over the cross-process refnic cable
(cable=shm:NAME), and with Rx interrupts where a PMD has them.

What is asserted is what a user reads: the number of samples asked for,
percentiles in order, JSON that parses, CSV buckets that add up, usage and
exit status 2 on bad arguments, one clear line when a port has no Rx
interrupts, a report after SIGINT. Never a speed: the machine is shared.

Needs REFNIC_BUILD (exported by devtools/test.sh).
"""

import csv
import ctypes
import itertools
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from helpers import built

TIMEOUT = 30
_seq = itertools.count()
_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # If the runner dies, even by SIGKILL, the kernel ends the app too.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def pingpong_bin():
    return built("app/refnic-pingpong")


def unique(tag):
    return "pp%s%d_%d" % (tag, os.getpid(), next(_seq))


def refnic_pair(cable):
    return ["net_refnic0,cable=" + cable, "net_refnic1,cable=" + cable]


def memif_pair(sock):
    return ["net_memif0,role=server,socket=" + sock, "net_memif1,role=client,socket=" + sock]


class PingPong:
    """One refnic-pingpong process: started, waited for, always reaped."""

    def __init__(self, vdevs, args, lcore=0, env=None):
        self.prefix = unique("")
        argv = [pingpong_bin(), "-l", str(lcore), "--no-huge", "-m", "512", "--no-pci",
                "--no-telemetry", "--file-prefix=" + self.prefix]
        for vdev in vdevs:
            argv += ["--vdev", vdev]
        self.argv = argv + ["--"] + list(args)
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env,
                                     start_new_session=True, preexec_fn=_die_with_parent)
        self.err = ""
        self.out = ""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    def wait_running(self, timeout=TIMEOUT):
        """Read stderr until the app says it is probing (or serving)."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stderr.fileno()  # raw reads: select sees no buffered lines
        while "running:" not in self.err:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.kill()
                raise AssertionError("not running within %gs:\n%s" % (timeout, self.err))
            data = os.read(fd, 65536)
            if not data:
                self.finish()
                raise AssertionError("exited with %s before running:\n%s"
                                     % (self.proc.returncode, self.err))
            self.err += data.decode(errors="replace")

    def finish(self, timeout=TIMEOUT):
        """Wait for exit; returns (returncode, stdout, stderr)."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("no exit within %gs: %s\n%s" % (timeout, " ".join(self.argv),
                                                                 self.err))
        self.out += out
        self.err += err
        shutil.rmtree(os.path.join("/var/run/dpdk", self.prefix), ignore_errors=True)
        return self.proc.returncode, self.out, self.err

    def kill(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.communicate()
        shutil.rmtree(os.path.join("/var/run/dpdk", self.prefix), ignore_errors=True)


def run(vdevs, args, env=None, timeout=TIMEOUT):
    with PingPong(vdevs, args, env=env) as pp:
        return pp.finish(timeout)


def run_json(vdevs, args, expect_rc=0):
    rc, out, err = run(vdevs, list(args) + ["--json"])
    assert rc == expect_rc, "exit %d, not %d:\n%s" % (rc, expect_rc, err[-3000:])
    lines = out.splitlines()
    assert len(lines) == 1, "stdout is not one JSON line:\n%s" % out
    return json.loads(lines[0]), err


def assert_ordered(r):
    keys = ["min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"]
    vals = [r[k] for k in keys]
    assert vals == sorted(vals) and vals[0] > 0, "percentiles out of order: %s" % (
        dict(zip(keys, vals)))


# Probes are re-sent when lost, so samples == count holds even on a loaded
# machine; a long probe timeout keeps a slow run from counting as losses.
# So samples == count says nothing about loss: every run also reads `lost`
# (and `stray`, frames that answer no probe), which must be 0.
BASE = ["--warmup", "100", "--timeout-ms", "2000"]


def assert_nothing_lost(r):
    assert r["lost"] == 0 and r["late"] == 0 and r["stray"] == 0, \
        "probes lost, late or stray: %s" % r


def test_pingpong_refnic_one_process_json_and_csv():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "hist.csv")
        r, _ = run_json(refnic_pair(unique("c")), BASE + ["--count", "2000", "--csv", path])
        with open(path) as f:
            rows = list(csv.DictReader(f))
    assert r["samples"] == 2000, r
    assert r["driver"] == "net_refnic" and r["server_driver"] == "net_refnic", r
    assert r["role"] == "both" and r["inflight"] == 1 and r["size"] == 64, r
    assert_nothing_lost(r)
    assert r["sent"] == 2100, r      # 100 warm-up probes and 2000, none sent twice
    assert_ordered(r)
    assert rows, "empty CSV"
    assert sum(int(row["count"]) for row in rows) == 2000, rows
    for row in rows:
        assert int(row["lower_ns"]) < int(row["upper_ns"]), row
    assert int(rows[0]["lower_ns"]) <= r["min_ns"] < int(rows[0]["upper_ns"]), (rows[0], r)
    assert int(rows[-1]["lower_ns"]) <= r["max_ns"] < int(rows[-1]["upper_ns"]), (rows[-1], r)


def test_pingpong_text_report():
    rc, out, err = run(refnic_pair(unique("c")), BASE + ["--count", "500", "--size", "256"])
    assert rc == 0, err
    assert "samples 500 " in out, out
    assert " 0 lost, 0 late, 0 stray" in out, out
    for word in ("p50", "p90", "p99", "p99.9", "max", "256 B frames"):
        assert word in out, "%r not in report:\n%s" % (word, out)
    assert "EAL:" not in out, "EAL logs belong on stderr:\n%s" % out


def test_pingpong_inflight_and_duration():
    r, _ = run_json(refnic_pair(unique("c")), BASE + ["--count", "3000", "--inflight", "8"])
    assert r["samples"] == 3000 and r["inflight"] == 8, r
    assert_ordered(r)
    assert_nothing_lost(r)
    r, _ = run_json(refnic_pair(unique("c")), BASE + ["--duration", "0.3"])
    assert r["samples"] > 0 and r["elapsed_s"] >= 0.3, r
    assert_ordered(r)
    assert_nothing_lost(r)


def test_pingpong_one_way_from_rx_timestamps():
    """--one-way on a refnic pair: both ports stamp (RX timestamp offload)
    and read their clocks, which share a time base, so every sample has a
    latency each way; both lie inside the round trip (the clocks are read
    after the RTT starts and before it ends): their means add up to at most
    the RTT's (1% for the TSC's rate estimate against the clocks'). On memif,
    which has no stamps, there is none, and every sample says so."""
    r, _ = run_json(refnic_pair(unique("c")), BASE + ["--count", "2000", "--one-way",
                                                     "--size", "128"])
    ow = r["one_way"]
    assert r["samples"] == 2000 and ow["samples"] == 2000, r
    assert ow["unstamped"] == 0 and ow["negative"] == 0, ow
    assert_nothing_lost(r)
    for d in ("there", "back"):
        assert_ordered(ow[d])
    assert ow["there"]["mean_ns"] + ow["back"]["mean_ns"] <= r["mean_ns"] * 1.01 + 10, r
    assert ow["there"]["min_ns"] + ow["back"]["min_ns"] <= r["min_ns"] * 1.01 + 10, r
    sock = "/run/%s.sock" % unique("m")
    try:
        r, _ = run_json(memif_pair(sock), BASE + ["--count", "200", "--one-way",
                                                  "--size", "128"])
    finally:
        if os.path.exists(sock):
            os.unlink(sock)
    assert r["one_way"] == {"samples": 0, "unstamped": 200, "negative": 0}, r


def test_pingpong_one_way_needs_room_for_the_clocks():
    rc, out, err = run(refnic_pair(unique("c")), BASE + ["--count", "10", "--one-way"])
    assert rc == 2, "exit %d:\n%s" % (rc, err)
    assert "refnic-pingpong: --one-way carries clock readings: --size 86 or more" in \
        err.splitlines(), err[-3000:]


def test_pingpong_memif_one_process():
    sock = "/run/%s.sock" % unique("m")
    try:
        r, _ = run_json(memif_pair(sock), BASE + ["--count", "2000"])
    finally:
        if os.path.exists(sock):
            os.unlink(sock)
    assert r["samples"] == 2000 and r["driver"] == "net_memif", r
    assert_ordered(r)
    assert_nothing_lost(r)


def two_processes(server_vdev, client_vdev, client_args, server_args=()):
    """A server process and a client process; returns (client JSON, server JSON)."""
    with PingPong([server_vdev], ["--role", "server", "--json"] + list(server_args)) as srv:
        srv.wait_running()
        with PingPong([client_vdev], ["--role", "client", "--json", "--link-timeout", "20"]
                      + BASE + list(client_args), lcore=1) as cli:
            crc, cout, cerr = cli.finish()
        srv.proc.send_signal(signal.SIGINT)
        src, sout, serr = srv.finish()
    assert crc == 0, "client exited %d:\n%s\nserver:\n%s" % (crc, cerr[-3000:], serr[-2000:])
    assert src == 0, "server exited %d after SIGINT:\n%s" % (src, serr[-3000:])
    return json.loads(cout), json.loads(sout)


def test_pingpong_memif_two_processes():
    sock = "/run/%s.sock" % unique("m")
    try:
        c, s = two_processes("net_memif0,role=server,socket=" + sock,
                             "net_memif0,role=client,socket=" + sock, ["--count", "1000"])
    finally:
        if os.path.exists(sock):
            os.unlink(sock)
    assert c["samples"] == 1000 and c["role"] == "client", c
    assert_ordered(c)
    assert_nothing_lost(c)
    assert s["role"] == "server" and s["interrupted"] and s["reflected"] >= 1100, s
    # The client left only once the server had stopped touching the port:
    # memif unmaps the shared rings when its peer leaves, under a burst in
    # flight (the server crashed so in 4 runs of 100 before the goodbye).
    assert c["bye_acked"] and s["goodbyes"] == 1, (c, s)


def test_pingpong_refnic_shm_two_processes():
    """Two processes over cable=shm:NAME. Each has its app lcore and its
    device engine polling: four busy threads on this 2-core machine, so a
    round trip waits for the scheduler (~20 ms) and the count stays small."""
    cable = "shm:" + unique("s")
    c, s = two_processes("net_refnic0,cable=" + cable, "net_refnic0,cable=" + cable,
                         ["--count", "100", "--warmup", "10"])
    assert c["samples"] == 100 and c["driver"] == "net_refnic", c
    assert_ordered(c)
    assert_nothing_lost(c)
    assert s["reflected"] >= 110 and s["server_driver"] == "net_refnic", s


def test_pingpong_one_way_refnic_shm_two_processes():
    """--one-way across two processes over cable=shm: the sending process
    delivers into the receiving port's ring and stamps with that port's
    clock (mapped from its memory), so both legs are measured, none before
    its send, and together inside the round trip."""
    cable = "shm:" + unique("s")
    c, s = two_processes("net_refnic0,cable=" + cable, "net_refnic0,cable=" + cable,
                         ["--count", "100", "--warmup", "10", "--one-way", "--size", "128"],
                         ["--one-way", "--size", "128"])
    ow = c["one_way"]
    assert c["samples"] == 100 and ow["samples"] == 100, c
    assert ow["unstamped"] == 0 and ow["negative"] == 0, ow
    assert_nothing_lost(c)
    assert ow["there"]["mean_ns"] + ow["back"]["mean_ns"] <= c["mean_ns"] * 1.01 + 10, c


def test_pingpong_wait_intr_refnic_shm_two_processes():
    """Both sides sleep in epoll on refnic Rx interrupts, across processes
    (cable=shm:NAME): the frames that wake them come through the device
    engine, which raises the vector."""
    cable = "shm:" + unique("s")
    c, s = two_processes("net_refnic0,cable=" + cable, "net_refnic0,cable=" + cable,
                         ["--count", "200", "--warmup", "10", "--wait", "intr"],
                         ["--wait", "intr"])
    assert c["samples"] == 200 and c["driver"] == "net_refnic", c
    assert c["wait"] == "intr" and s["wait"] == "intr", (c, s)
    assert c["intr_wakeups"] > 0 and s["intr_wakeups"] > 0, (c, s)
    assert s["reflected"] >= 210, s
    assert_ordered(c)
    assert_nothing_lost(c)


def test_pingpong_wait_intr_without_rx_interrupts_says_use_poll():
    rc, out, err = run(["net_null0", "net_null1"], BASE + ["--count", "10", "--wait", "intr"])
    assert rc != 0 and rc != 2, "exit %d:\n%s" % (rc, err)
    line = "refnic-pingpong: port 0 (net_null) has no Rx interrupts; use --wait poll"
    assert line in err.splitlines(), err[-3000:]
    assert out == "", out


def test_pingpong_wait_intr_vhost_virtio_user():
    """The interrupt path on PMDs that have Rx interrupts: a vhost server
    process and a virtio-user client process, both sleeping in epoll."""
    sock = "/run/%s.sock" % unique("v")
    try:
        c, s = two_processes("net_vhost0,iface=" + sock, "net_virtio_user0,path=" + sock,
                             ["--count", "300", "--wait", "intr"], ["--wait", "intr"])
    finally:
        if os.path.exists(sock):
            os.unlink(sock)
    assert c["samples"] == 300 and c["driver"] == "net_virtio_user", c
    assert c["wait"] == "intr" and s["wait"] == "intr", (c, s)
    # The client slept between probes and frames woke it.
    assert c["intr_wakeups"] > 0, c
    assert_ordered(c)
    assert_nothing_lost(c)


def test_pingpong_sigint_ends_with_a_report():
    with PingPong(refnic_pair(unique("c")), BASE + ["--duration", "60", "--warmup", "0", "--json"]) as pp:
        pp.wait_running()
        time.sleep(0.5)
        pp.proc.send_signal(signal.SIGINT)
        rc, out, err = pp.finish(timeout=10)
    assert rc == 0, "exit %d after SIGINT:\n%s" % (rc, err[-3000:])
    r = json.loads(out)
    assert r["interrupted"] and r["samples"] > 0, r
    assert_ordered(r)
    assert_nothing_lost(r)


def test_pingpong_bad_args_print_usage_and_exit_2():
    bad = [
        ["--role", "mirror"],
        ["--count", "0"],
        ["--count", "10", "--duration", "1"],
        ["--duration", "-1"],
        ["--inflight", "0"],
        ["--inflight", "100000"],
        ["--size", "10"],
        ["--wait", "sometimes"],
        ["--no-such-option"],
        ["--count"],
        ["surplus"],
        ["--role", "server", "--csv", "x.csv"],
    ]
    for args in bad:
        p = subprocess.run([pingpong_bin(), "--"] + args, capture_output=True, text=True,
                           timeout=TIMEOUT)
        assert p.returncode == 2, "%s: exit %d\n%s" % (args, p.returncode, p.stderr)
        assert "Usage: refnic-pingpong" in p.stderr, "%s: no usage:\n%s" % (args, p.stderr)
    p = subprocess.run([pingpong_bin(), "--", "--help"], capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert p.returncode == 0 and "Usage: refnic-pingpong" in p.stdout, p
    # A port that is not there is a usage error too, found after EAL.
    rc, out, err = run(refnic_pair(unique("c")), ["--port", "5"])
    assert rc == 2 and "port 5 does not exist" in err, (rc, err[-2000:])


def test_pingpong_plot_without_gnuplot_says_how_to_get_it():
    env = dict(os.environ, PATH="/nonexistent")
    p = subprocess.run([pingpong_bin(), "--", "--plot", "x.png"], capture_output=True,
                       text=True, env=env, timeout=TIMEOUT)
    assert p.returncode == 1, p
    assert "gnuplot not found: apt-get install gnuplot-nox" in p.stderr, p.stderr


def test_pingpong_plot_png():
    if shutil.which("gnuplot") is None:
        pytest.skip("gnuplot is not installed (apt-get install gnuplot-nox); "
                   "--plot's PNG is not checked here")
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "rtt.png")
        r, err = run_json(refnic_pair(unique("c")), BASE + ["--count", "500", "--plot", png])
        with open(png, "rb") as f:
            head = f.read(8)
    assert r["samples"] == 500, r
    assert head == b"\x89PNG\r\n\x1a\n", "not a PNG: %r\n%s" % (head, err[-2000:])
