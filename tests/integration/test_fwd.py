"""refnic-fwd as a user runs it: counts from its --json summary, the headers
it prints with --print-headers, its exit status and what it says.

The app is $REFNIC_BUILD/app/refnic-fwd (devtools/test.sh exports
REFNIC_BUILD), else build/app/refnic-fwd; without it every test skips. It
links the refnic PMD, so no -d. Every run has its own --file-prefix and a
timeout. Nothing here asserts a rate: only counts and behaviour.

Header rewrites are checked on four refnic ports: 0 and 2 share cable a,
1 and 3 cable b. Port 2 sends --count frames (txonly) to port 0; port 0,
in the mode under test, forwards them out of port 1 (its forwarding peer);
they arrive on port 3 (rxonly), which prints their headers:

    port 2 (txonly) -a-> port 0 (MODE) => port 1 -b-> port 3 (rxonly)
"""

import ctypes
import glob
import itertools
import json
import os
import re
import resource
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import time

import pytest

from helpers import REPO, dpdk_series
TIMEOUT_S = 90                  # bound on one run; runs take a few seconds
_seq = itertools.count()
_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1

FOUR_PORTS = ["net_refnic0,cable=fwda", "net_refnic1,cable=fwdb",
              "net_refnic2,cable=fwda", "net_refnic3,cable=fwdb"]
PAIR = ["net_refnic0,cable=fwdpair", "net_refnic1,cable=fwdpair"]
HEADER_LINE = re.compile(r"^rx port (\d+) queue (\d+): src=(\S+) dst=(\S+) "
                         r"type=0x([0-9a-f]{4}) length=(\d+)$", re.M)


def _die_with_parent():
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def app():
    build = os.environ.get("REFNIC_BUILD") or os.path.join(REPO, "build")
    path = os.path.join(build, "app", "refnic-fwd")
    if not os.access(path, os.X_OK):
        pytest.skip("%s is not built" % path)
    return path


def runtime_dir(prefix):
    # Where EAL puts --file-prefix files even with --no-shconf.
    base = "/var/run" if os.geteuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", prefix)


class Fwd:
    """argv for one refnic-fwd run, and the clean-up after it."""

    def __init__(self, vdevs, args, eal_args=("-l", "0-1")):
        self.prefix = "fwdtest%d_%d" % (os.getpid(), next(_seq))
        self.argv = [app()] + list(eal_args) + [
            "--no-huge", "-m", "512", "--no-pci", "--no-shconf", "--no-telemetry",
            "--file-prefix=" + self.prefix, "--log-level=warning"]
        for vdev in vdevs:
            self.argv += ["--vdev", vdev]
        self.argv += ["--"] + list(args)

    def run(self, timeout=TIMEOUT_S):
        try:
            return subprocess.run(self.argv, capture_output=True, text=True, timeout=timeout,
                                  start_new_session=True, preexec_fn=_die_with_parent)
        finally:
            shutil.rmtree(runtime_dir(self.prefix), ignore_errors=True)


def report(res):
    return "exit %d\nstdout:\n%s\nstderr:\n%s" % (res.returncode, res.stdout[-3000:],
                                                   res.stderr[-3000:])


def run_json(vdevs, args, eal_args=("-l", "0-1")):
    """Run with --json; stdout must be exactly one JSON object. Returns (summary, result)."""
    res = Fwd(vdevs, list(args) + ["--json", "--stats-period", "0"], eal_args).run()
    assert res.returncode == 0, report(res)
    try:
        summary = json.loads(res.stdout)
    except ValueError as exc:
        raise AssertionError("stdout is not one JSON object (%s)\n%s" % (exc, report(res)))
    return summary, res


def port(summary, n):
    ports = {p["port"]: p for p in summary["ports"]}
    assert n in ports, summary
    return ports[n]


def mac(text):
    return text.lower()


# Counts.

def test_fwd_txonly_count_reaches_rxonly_port():
    """txonly --count N on port 0, rxonly on port 1: both count exactly N.

    Nothing paces a sender: at full rate it can overrun the receiver's ring
    (counted as rx_missed) if the receiving lcore is held up. An RX ring that
    holds all N frames keeps this a test of counting, not of scheduling.
    """
    n = 3000
    summary, _ = run_json(PAIR, ["--mode", "rxonly", "--port-mode", "0,txonly",
                                 "--count", str(n), "--rxd", "4096", "--duration", "3"])
    tx, rx = port(summary, 0), port(summary, 1)
    assert (tx["mode"], rx["mode"]) == ("txonly", "rxonly"), summary
    assert tx["tx_packets"] == n and rx["rx_packets"] == n, summary
    assert tx["tx_bytes"] == n * 64 and rx["rx_bytes"] == n * 64, summary
    assert tx["rx_packets"] == 0 and rx["tx_packets"] == 0, summary
    assert tx["dropped"] == 0 and rx["dropped"] == 0, summary
    assert summary["stopped_by"] == "duration" and summary["duration_s"] >= 3, summary


def test_fwd_count_spread_over_queues_and_jumbo_frames():
    """--count is per port, whatever the queues; 9000-byte frames pass whole."""
    n = 301
    summary, _ = run_json(PAIR, ["--mode", "rxonly", "--port-mode", "0,txonly",
                                 "--count", str(n), "--rxq", "2", "--txq", "2",
                                 "--pkt-size", "9000", "--duration", "3"])
    assert port(summary, 0)["tx_packets"] == n, summary
    assert port(summary, 1)["rx_packets"] == n, summary
    assert port(summary, 1)["rx_bytes"] == n * 9000, summary


# Header rewrites, seen by a receiving port.

def rewrite_run(mode, extra=()):
    """The chain of the module docstring; returns (summary, headers seen on port 3)."""
    n = 200
    summary, res = run_json(FOUR_PORTS, ["--mode", mode, "--port-mode", "2,txonly",
                                         "--port-mode", "3,rxonly", "--count", str(n),
                                         "--print-headers", str(n), "--duration", "2"]
                            + list(extra))
    for p, key in ((2, "tx_packets"), (0, "rx_packets"), (1, "tx_packets"), (3, "rx_packets")):
        assert port(summary, p)[key] == n, "port %d %s != %d: %s" % (p, key, n, summary)
    assert all(p["dropped"] == 0 for p in summary["ports"]), summary
    seen = [m.groups() for m in HEADER_LINE.finditer(res.stderr) if m.group(1) == "3"]
    assert len(seen) == n, "%d header lines for port 3, not %d:\n%s" % (len(seen), n, report(res))
    return summary, [(mac(src), mac(dst), etype, int(length))
                     for _, _, src, dst, etype, length in seen]


def test_fwd_io_forwards_unchanged():
    summary, seen = rewrite_run("io")
    sender = mac(port(summary, 2)["mac"])
    assert set(seen) == {(sender, "02:00:00:00:00:02", "0800", 64)}, set(seen)


def test_fwd_mac_sets_tx_port_and_peer_addresses():
    summary, seen = rewrite_run("mac", ["--eth-peer", "1,02:AA:BB:CC:DD:EE"])
    tx_port = mac(port(summary, 1)["mac"])
    assert set(seen) == {(tx_port, "02:aa:bb:cc:dd:ee", "0800", 64)}, set(seen)


def test_fwd_macswap_swaps_addresses():
    summary, seen = rewrite_run("macswap")
    sender = mac(port(summary, 2)["mac"])
    assert set(seen) == {("02:00:00:00:00:02", sender, "0800", 64)}, set(seen)


def test_fwd_tx_first_keeps_a_loop_going_in_every_forward_mode():
    """--tx-first on a wired pair: the two bursts circulate; none lost or made up."""
    for mode in ("io", "mac", "macswap"):
        summary, _ = run_json(PAIR, ["--mode", mode, "--tx-first", "--burst", "16",
                                     "--duration", "1"])
        for tx, rx in ((0, 1), (1, 0)):
            sent, got = port(summary, tx)["tx_packets"], port(summary, rx)["rx_packets"]
            assert got > 16, "%s: port %d received only %d: %s" % (mode, rx, got, summary)
            # In flight at most the 2 x 16 frames the loop started with.
            assert 0 <= sent - got <= 32, "%s: %d sent, %d received: %s" % (
                mode, sent, got, summary)
        assert all(p["dropped"] == 0 for p in summary["ports"]), (mode, summary)


# Other ethdevs.

def test_fwd_null_io_forwards_every_frame():
    """net_null: every frame one port receives, the other sends (or counts dropped)."""
    summary, _ = run_json(["net_null0", "net_null1"], ["--duration", "1"])
    for rx, tx in ((0, 1), (1, 0)):
        got = port(summary, rx)["rx_packets"]
        assert got > 0, summary
        assert port(summary, tx)["tx_packets"] + port(summary, tx)["tx_dropped"] == got, summary
    # net_null counts no bytes up to DPDK 24.11: no made-up Gbps; since
    # 25.11 it counts them, and the rate follows.
    if dpdk_series() in ("22.11", "24.11"):
        assert port(summary, 0)["rx_gbps"] is None, summary
    else:
        assert port(summary, 0)["rx_gbps"] > 0, summary


def memif_pair():
    if not os.access("/run", os.W_OK):
        pytest.skip("/run is not writable for the memif socket")
    sock = "/run/refnic-fwd-test-%d-%d.sock" % (os.getpid(), next(_seq))
    return sock, ["net_memif0,role=server,socket=" + sock, "net_memif1,role=client,socket=" + sock]


def test_fwd_memif_txonly_count_reaches_rxonly_port():
    sock, vdevs = memif_pair()
    n = 3000
    try:
        summary, _ = run_json(vdevs, ["--mode", "rxonly", "--port-mode", "0,txonly",
                                      "--count", str(n), "--duration", "2"])
    finally:
        if os.path.exists(sock):
            os.unlink(sock)
    assert port(summary, 0)["tx_packets"] == n, summary
    assert port(summary, 1)["rx_packets"] == n, summary


def test_fwd_memif_tx_first_starts_both_loops():
    """A --tx-first burst TX refuses while memif connects is kept, not lost."""
    sock, vdevs = memif_pair()
    try:
        summary, _ = run_json(vdevs, ["--tx-first", "--duration", "1"])
    finally:
        if os.path.exists(sock):
            os.unlink(sock)
    for p in summary["ports"]:
        assert p["rx_packets"] > 0 and p["tx_packets"] > 0 and p["dropped"] == 0, summary


def test_fwd_tap_txonly_count():
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or not shutil.which("unshare"):
        pytest.skip("needs root, /dev/net/tun and unshare for a TAP in its own namespace")
    n = 50
    fwd = Fwd(["net_tap0,iface=fwdtap0"],
              ["--mode", "txonly", "--count", str(n), "--duration", "1", "--json",
               "--stats-period", "0"])
    # A network namespace of its own: the interface touches nothing outside.
    fwd.argv = ["unshare", "-n"] + fwd.argv
    res = fwd.run()
    assert res.returncode == 0, report(res)
    summary = json.loads(res.stdout)
    assert port(summary, 0)["tx_packets"] == n, summary


# Generated frames, byte by byte, through net_pcap (where installed).

def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data)[0]
    endian = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    frames, off = [], 24
    while off < len(data):
        _, _, caplen, _ = struct.unpack_from(endian + "IIII", data, off)
        frames.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return frames


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for frame in frames:
            f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)


def ip_checksum(header):
    total = sum(struct.unpack("!%dH" % (len(header) // 2), header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def need_pcap():
    if not glob.glob("/usr/lib/*/dpdk/pmds-*/librte_net_pcap.so*"):
        pytest.skip("net_pcap is not installed (Debian: librte-net-pcap23)")


def test_fwd_txonly_frames_are_udp_ipv4_of_pkt_size():
    need_pcap()
    n, size = 10, 100
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tx.pcap")
        summary, _ = run_json(["net_pcap0,tx_pcap=" + out],
                              ["--mode", "txonly", "--count", str(n), "--pkt-size", str(size),
                               "--eth-peer", "0,02:01:02:03:04:05", "--duration", "1"])
        frames = read_pcap(out)
    assert port(summary, 0)["tx_packets"] == n, summary
    assert len(frames) == n, "%d frames in the capture, not %d" % (len(frames), n)
    src = bytes.fromhex(port(summary, 0)["mac"].replace(":", ""))
    for frame in frames:
        assert len(frame) == size, len(frame)
        assert frame[0:6] == bytes.fromhex("020102030405") and frame[6:12] == src, frame[:14].hex()
        assert frame[12:14] == b"\x08\x00", frame[:14].hex()
        ip = frame[14:34]
        assert ip[0] == 0x45 and ip[9] == 17, ip.hex()                       # IPv4, UDP
        assert struct.unpack("!H", ip[2:4])[0] == size - 14, ip.hex()        # total length
        assert ip_checksum(ip) == 0, "bad IPv4 header checksum: %s" % ip.hex()
        assert ip[12:16] == bytes([198, 18, 0, 1]) and ip[16:20] == bytes([198, 18, 0, 2])
        sport, dport, ulen, _ = struct.unpack("!HHHH", frame[34:42])
        assert (sport, dport, ulen) == (9, 9, size - 34), frame[34:42].hex()
        assert frame[42:] == bytes(size - 42), "payload is not zeros"


def test_fwd_pcap_mac_modes_rewrite_only_addresses():
    """One pcap port forwards to itself: frames read from a file, written to another."""
    need_pcap()
    peer = "02:0a:0b:0c:0d:0e"
    frames = [bytes.fromhex("0a0000000001" "0a0000000002" "88b5") + bytes([i]) * (60 + i)
              for i in range(20)]
    for mode in ("mac", "macswap", "io"):
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, "in.pcap"), os.path.join(tmp, "out.pcap")
            write_pcap(src, frames)
            summary, _ = run_json(["net_pcap0,rx_pcap=%s,tx_pcap=%s" % (src, out)],
                                  ["--mode", mode, "--eth-peer", "0," + peer,
                                   "--duration", "1"])
            got = read_pcap(out)
        assert len(got) == len(frames), (mode, len(got), summary)
        own = bytes.fromhex(port(summary, 0)["mac"].replace(":", ""))
        for sent, back in zip(frames, got):
            if mode == "mac":
                expect = bytes.fromhex(peer.replace(":", "")) + own + sent[12:]
            elif mode == "macswap":
                expect = sent[6:12] + sent[0:6] + sent[12:]
            else:
                expect = sent
            assert back == expect, "%s: sent %s, got %s" % (mode, sent[:16].hex(), back[:16].hex())


# What a user sees: arguments, signals, progress.

# Sleeping on Rx interrupts (--wait intr).

def cpu_seconds(fwd):
    """Run; returns (result, CPU seconds the process used, as the kernel counts them)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = fwd.run()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return res, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_fwd_wait_intr_idle_lcore_sleeps():
    """Nothing to forward for 2 s: polling, the forwarding lcore spins on a
    CPU the whole time; with --wait intr it sleeps in epoll. Margins are
    wide: other work on the machine only lowers the polling figure."""
    args = ["--duration", "2", "--json", "--stats-period", "0"]
    res, poll_cpu = cpu_seconds(Fwd(PAIR, args))
    assert res.returncode == 0, report(res)
    assert json.loads(res.stdout)["wait"] == "poll"
    res, intr_cpu = cpu_seconds(Fwd(PAIR, args + ["--wait", "intr"]))
    assert res.returncode == 0, report(res)
    summary = json.loads(res.stdout)
    assert summary["wait"] == "intr" and summary["intr_waits"] > 0, summary
    assert poll_cpu > 0.8, "a polling lcore used %.2f s of CPU in 2 s" % poll_cpu
    assert intr_cpu < 0.5 and intr_cpu < poll_cpu / 3, (
        "--wait intr used %.2f s of CPU in 2 s idle (polling: %.2f s)" % (intr_cpu, poll_cpu))


def test_fwd_wait_intr_wakes_for_frames_from_another_process():
    """A receiver sleeping on its Rx interrupt (cable=shm:NAME) gets every
    frame a second process sends: the device raises the vector that wakes it.
    The count fits the cable's 256 slots: a sender at full speed outruns a
    receiving engine that has to wake first, and the cable drops the rest
    (counted by the sender as cable_tx_dropped), as a wire would."""
    vdev = ["net_refnic0,cable=shm:%s" % ("fwdintr%d_%d" % (os.getpid(), next(_seq)))]
    n = 200
    rx = Fwd(vdev, ["--mode", "rxonly", "--wait", "intr", "--rxd", "4096", "--duration", "5",
                    "--json", "--stats-period", "0"])
    proc = subprocess.Popen(rx.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_die_with_parent)
    try:
        time.sleep(1)       # the receiver is up and asleep before anything comes
        tx, _ = run_json(vdev, ["--mode", "txonly", "--count", str(n), "--duration", "1"],
                         eal_args=("-l", "0-1"))
        out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        shutil.rmtree(runtime_dir(rx.prefix), ignore_errors=True)
    assert proc.returncode == 0, "exit %d\n%s" % (proc.returncode, err[-3000:])
    summary = json.loads(out)
    assert port(tx, 0)["tx_packets"] == n, tx
    assert port(summary, 0)["rx_packets"] == n and port(summary, 0)["dropped"] == 0, (summary, tx)
    assert summary["intr_wakeups"] > 0, summary


def test_fwd_wait_intr_without_rx_interrupts_exits_1():
    res = Fwd(["net_null0", "net_null1"], ["--wait", "intr", "--duration", "1"]).run()
    assert res.returncode == 1, report(res)
    assert any(line.endswith("refnic-fwd: port 0 (net_null) has no Rx interrupts; "
                             "use --wait poll") for line in res.stderr.splitlines()), report(res)


BAD_ARGS = [["--bogus"], ["--burst", "0"], ["--burst", "513"], ["--pkt-size", "59"],
            ["--pkt-size", "9001"], ["--mode", "fast"], ["--eth-peer", "0,zz"],
            ["--port-mode", "0"], ["--duration", "-1"], ["--count", "1x"], ["stray"],
            ["--rxd", "0"], ["--txq", "0"], ["--duration"], ["--wait", "sometimes"]]


def test_fwd_bad_arguments_print_usage_and_exit_2():
    for args in BAD_ARGS:
        res = Fwd(["net_null0"], args).run()
        assert res.returncode == 2, "%s: %s" % (args, report(res))
        assert "Usage:" in res.stderr, "%s: no usage on stderr: %s" % (args, report(res))
        assert res.stdout == "", "%s: %s" % (args, report(res))
    # A port named that does not exist: found once EAL has probed.
    res = Fwd(["net_null0"], ["--port-mode", "3,txonly"]).run()
    assert res.returncode == 2 and "no such port" in res.stderr, report(res)
    # Too few mbufs for the rings would stall forwarding: refused.
    res = Fwd(["net_null0"], ["--mbufs", "100"]).run()
    assert res.returncode == 2 and "--mbufs 100 is fewer than" in res.stderr, report(res)


def test_fwd_help_and_eal_errors():
    res = Fwd(["net_null0"], ["--help"]).run()
    assert res.returncode == 0 and "--eth-peer PORT,MAC" in res.stdout, report(res)
    assert "24 bytes per frame" in res.stdout, "--help does not say what Gbps counts"
    res = Fwd(["net_null0"], [], eal_args=("-l", "0-1", "--no-such-eal-option")).run()
    if dpdk_series() in ("22.11", "24.11"):
        assert res.returncode == 1, report(res)
        assert "cannot initialise EAL" in res.stderr, report(res)
    else:
        # 25.11's EAL parses with argparse, which exits on an unknown option.
        assert res.returncode != 0, report(res)
        assert "unknown argument --no-such-eal-option" in res.stderr, report(res)
    res = Fwd(["net_null0"], [], eal_args=("-l", "0")).run()
    assert res.returncode == 2 and "two lcores" in res.stderr, report(res)


def read_until(fd, pattern, timeout):
    """Read fd until a line matches pattern or timeout; (matched, text read)."""
    deadline, text = time.monotonic() + timeout, b""
    while not re.search(pattern, text.decode(errors="replace"), re.M):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return False, text.decode(errors="replace")
        data = os.read(fd, 65536)
        if not data:
            return False, text.decode(errors="replace")
        text += data
    return True, text.decode(errors="replace")


def stop_with(sig, args, stats_on_stderr=False):
    """Run until a stats line, send sig; return (exit status, stdout, stderr)."""
    fwd = Fwd(PAIR, ["--tx-first", "--duration", "0"] + args)
    proc = subprocess.Popen(fwd.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            bufsize=0, start_new_session=True, preexec_fn=_die_with_parent)
    try:
        watched = proc.stderr if stats_on_stderr else proc.stdout
        found, before = read_until(watched.fileno(), r"^\[\s*\d+s\] port 0 rx", TIMEOUT_S)
        assert found, "no stats line within %ds:\n%s" % (TIMEOUT_S, before)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=TIMEOUT_S)
        out, err = out.decode(errors="replace"), err.decode(errors="replace")
        if stats_on_stderr:
            return proc.returncode, out, before + err
        return proc.returncode, before + out, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(runtime_dir(fwd.prefix), ignore_errors=True)


def test_fwd_sigint_stops_cleanly_with_totals():
    rc, out, err = stop_with(signal.SIGINT, [])
    assert rc == 0, "exit %d\n%s\n%s" % (rc, out, err)
    assert re.search(r"^totals after [\d.]+ s \(signal\):$", out, re.M), out
    for p in (0, 1):
        m = re.search(r"^port %d: rx (\d+) packets .* tx (\d+) packets" % p, out, re.M)
        assert m and int(m.group(1)) > 0 and int(m.group(2)) > 0, out


def test_fwd_sigterm_with_json_gives_one_object_on_stdout():
    """--json: stats lines and totals on stderr, the summary alone on stdout."""
    rc, out, err = stop_with(signal.SIGTERM, ["--json"], stats_on_stderr=True)
    assert rc == 0, "exit %d\n%s\n%s" % (rc, out, err)
    summary = json.loads(out)
    assert summary["stopped_by"] == "signal" and summary["mode"] == "io", summary
    assert all(p["rx_packets"] > 0 and p["tx_packets"] > 0 for p in summary["ports"]), summary
    assert "totals after" in err, err


def test_fwd_timed_run_shows_progress():
    res = Fwd(PAIR, ["--tx-first", "--duration", "2", "--stats-period", "1"]).run()
    assert res.returncode == 0, report(res)
    progress = re.findall(r"^\[(\d)/2s\] port 0 rx .* Mpps .* Gbps tx .* \| port 1 rx ", res.stdout,
                          re.M)
    assert progress and progress[-1] == "2", report(res)
    assert "totals after" in res.stdout and "(duration)" in res.stdout, report(res)
