"""Large TCP sends: the device's TSO against testpmd's software GSO, one run.

Stock testpmd, csum engine, one forwarding lcore (-l 0-1). The generator is
DPDK's net_pcap replaying one large TCP/IPv4 packet forever (infinite_rx;
its packets must fit one mbuf, hence 32 KiB mbufs); testpmd forwards it to
refnic port 1, which either hands it whole to the device (`tso set MSS 1`)
or cuts it first in software (`set port 1 gso on`, `set gso segsz`, the
segments' checksums still the device's). Port 1's cable peer (port 2) is
not polled: once its ring is full the device drops there, the same for
both. The payload is a whole number of segments: 22.11's GSO gives a short
last segment the IP length of a full one, a frame the device refuses.

Measured: frames port 1 put on the wire (its opackets) per second, i.e.
TCP payload sent, with device work inline (the default) and on the
device's engine thread (exec=thread). Rounds interleave the modes.

    tso.py [SECONDS] [ROUNDS] [MSS] [SEGMENTS]

Default 5 s x 3 rounds, MSS 1400, 22 segments per packet (a 30854-byte
frame). Prints a markdown table (medians) and one JSON line per mode.
"""

import json
import os
import statistics
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from testpmd import TestPmd  # noqa: E402

WARMUP_S = 1.0
HDR = 14 + 20 + 20


def write_pcap(path, mss, segments):
    """One TCP/IPv4 frame of segments * mss payload bytes."""
    pay = bytes((i * 7) & 0xff for i in range(mss * segments))
    tcp = struct.pack("!HHIIBBHHH", 5001, 80, 1000, 1, 5 << 4, 0x18, 65535, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + len(pay), 1, 0x4000, 64, 6, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    frame = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + tcp + pay
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)))
        f.write(frame)
    return len(frame)


def measure(pcap, mode, exec_arg, mss, seconds):
    refnic = "cable=benchtso" + ("," + exec_arg if exec_arg else "")
    vdevs = ["net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap,
             "net_refnic0," + refnic, "net_refnic1," + refnic]
    args = ["--port-topology=chained", "--total-num-mbufs=8192", "--mbuf-size=32512",
            "--rxd=512", "--txd=4096"]
    with TestPmd(vdevs, testpmd_args=args, timeout=120) as tp:
        tp.cmd("port stop all", check=True)
        # GSO's segments are indirect mbufs: no fast free, for both modes.
        tp.cmd("port config 1 tx_offload mbuf_fast_free off", check=True)
        tp.cmd("csum set ip hw 1", check=True)
        tp.cmd("csum set tcp hw 1", check=True)
        if mode == "tso":
            tp.cmd("tso set %d 1" % mss, check=True)
        else:
            tp.cmd("set port 1 gso on", check=True)
            tp.cmd("set gso segsz %d" % (HDR + mss), check=True)
        tp.cmd("port start all", check=True)
        tp.cmd("set fwd csum", check=True)
        tp.cmd("set portlist 0,1", check=True)
        tp.cmd("start", check=True)
        time.sleep(WARMUP_S)
        s0, t0 = tp.port_stats(1), time.monotonic()
        time.sleep(seconds)
        s1, t1 = tp.port_stats(1), time.monotonic()
        tp.stop()
        xs = tp.xstats(1)
    if xs.get("tx_malformed", 0) != 0:
        raise RuntimeError("%s: the device refused %d frames" % (mode, xs["tx_malformed"]))
    return (s1["TX-packets"] - s0["TX-packets"]) / (t1 - t0)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    mss = int(sys.argv[3]) if len(sys.argv) > 3 else 1400
    segments = int(sys.argv[4]) if len(sys.argv) > 4 else 22
    modes = [(m, e) for e in ("", "exec=thread") for m in ("tso", "gso")]
    results = {k: [] for k in modes}
    with tempfile.TemporaryDirectory(prefix="refnic-bench-tso") as d:
        pcap = os.path.join(d, "big.pcap")
        frame = write_pcap(pcap, mss, segments)
        for _ in range(rounds):
            for m, e in modes:
                results[(m, e)].append(measure(pcap, m, e, mss, seconds))
    print("%d-byte TCP/IPv4 frames cut into %d segments of %d bytes" % (frame, segments, mss))
    print()
    print("| device work | segmentation | Mframes/s on the wire | payload Gbit/s | TSO / GSO |")
    print("| --- | --- | ---: | ---: | ---: |")
    for m, e in modes:
        fps = statistics.median(results[(m, e)])
        gso = statistics.median(results[("gso", e)])
        print("| %s | %s | %.3f | %.2f | %s |"
              % (e or "inline (default)", "TSO (device)" if m == "tso" else "GSO (testpmd)",
                 fps / 1e6, fps * mss * 8 / 1e9,
                 "%.2fx" % (fps / gso) if m == "tso" and gso else ""))
    for m, e in modes:
        print(json.dumps({"mode": m, "exec": e or "inline", "seconds": seconds, "rounds": rounds,
                          "mss": mss, "segments": segments,
                          "frames_per_s": statistics.median(results[(m, e)])}))


if __name__ == "__main__":
    main()
