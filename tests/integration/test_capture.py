"""DPDK's packet capture tools, dpdk-dumpcap and dpdk-pdump, as secondary
processes capturing what a primary testpmd forwards over two refnic ports.

Neither tool takes -d, so both run where the PMD is installed: EAL finds it
in its plugin directory (helpers.installed_pmd), as on a user's machine
after `meson install` or the package. The witness is the capture file,
read here block by block: the frames testpmd's tx_first sent, as many as
asked for.
"""

import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time

import pytest

from helpers import PAIR, dpdk_series, installed_pmd
from testpmd import TestPmd

DUMPCAP = shutil.which("dpdk-dumpcap")
PDUMP = shutil.which("dpdk-pdump")
FRAMES = 2000                   # a few ms of forwarding, many bursts


def pcapng_frames(path):
    """Lengths (captured, original) of each Enhanced Packet Block."""
    frames = []
    with open(path, "rb") as f:
        data = f.read()
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or off + blen > len(data):
            raise AssertionError("bad pcapng block at %d: type %#x length %d" % (off, btype, blen))
        if btype == 6:
            cap, orig = struct.unpack_from("<II", data, off + 20)
            frames.append((cap, orig))
        off += blen
    return frames


def pcap_frames(path):
    """Lengths (captured, original) of each record of a libpcap file."""
    frames = []
    with open(path, "rb") as f:
        data = f.read()
    assert len(data) >= 24 and struct.unpack_from("<I", data)[0] in (0xa1b2c3d4, 0xa1b23c4d), \
        "not a pcap file: %r" % data[:4]
    off = 24
    while off + 16 <= len(data):
        cap, orig = struct.unpack_from("<II", data, off + 8)
        frames.append((cap, orig))
        off += 16 + cap
    return frames


@pytest.fixture
def primary(refnic_pmd, hugepages):
    """A primary testpmd forwarding between two wired refnic ports, with the
    PMD installed (no -d), and the prefix the tools run under."""
    if dpdk_series() == "22.11":
        pytest.skip("DPDK 22.11's capture framework hands dumpcap and pdump no frame from "
                    "testpmd here, on net_null ports as on refnic's (22.11.11); 24.11 and "
                    "25.11 capture")
    with installed_pmd(refnic_pmd) as under:
        prefix = "captest%d" % os.getpid()
        with TestPmd(PAIR, plugins=[], wrapper=under, proc_type="primary",
                     file_prefix=prefix) as tp:
            tp.cmd("start tx_first", check=True)
            yield tp, under


def test_dumpcap_captures_a_refnic_port(primary):
    """dpdk-dumpcap -i 0 -c N: N frames in the pcapng file (dumpcap writes
    the whole burst that reaches N: up to 31 more), each a whole 64-byte
    frame as testpmd sent it."""
    if DUMPCAP is None:
        pytest.skip("dpdk-dumpcap is not installed (Debian: dpdk)")
    tp, under = primary
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "refnic.pcapng")
        res = subprocess.run(under + [DUMPCAP, "--file-prefix=" + tp.file_prefix, "-i", "0",
                                      "-c", str(FRAMES), "-w", out, "-q"],
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stdout + res.stderr
        frames = pcapng_frames(out)
    assert FRAMES <= len(frames) < FRAMES + 32, (len(frames), res.stdout + res.stderr)
    assert all(orig == cap and orig >= 60 for cap, orig in frames), set(frames)


def test_pdump_captures_a_refnic_port(primary):
    """dpdk-pdump port=0 rx-dev=FILE until SIGINT: the file holds the frames
    port 0 received, whole, and not more than testpmd counted."""
    if PDUMP is None:
        pytest.skip("dpdk-pdump is not installed (Debian: dpdk)")
    tp, under = primary
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rx.pcap")
        proc = subprocess.Popen(under + [PDUMP, "-l", "0", "--file-prefix=" + tp.file_prefix,
                                         "--", "--pdump", "port=0,queue=*,rx-dev=" + out],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            # Until it captures (its net_pcap port writes as frames come).
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and proc.poll() is None and \
                    (not os.path.exists(out) or os.path.getsize(out) < 24 + FRAMES * 76):
                time.sleep(0.1)
        finally:
            proc.send_signal(signal.SIGINT)
            text = proc.communicate(timeout=30)[0]
        assert proc.returncode == 0, text
        frames = pcap_frames(out)
    tp.stop()
    received = tp.port_stats()[0]["RX-packets"]
    assert FRAMES <= len(frames) <= received, (len(frames), received, text)
    assert all(orig == cap and orig >= 60 for cap, orig in frames), set(frames)
