#!/usr/bin/env python3
"""Send ICMP echo requests and count the matching replies (ping without iputils).

    python3 icmp_ping.py DST COUNT

Prints "N/COUNT replies"; exits 0 only if every request was answered.
"""

import os
import socket
import struct
import sys
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff


def ping(dst, count, timeout=2.0):
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    ident = os.getpid() & 0xffff
    answered = 0
    for seq in range(count):
        payload = b"refnic-ping-%04d" % seq
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        sock.sendto(struct.pack("!BBHHH", 8, 0, checksum(hdr + payload), ident, seq) + payload,
                    (dst, 0))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                data = sock.recv(2048)
            except socket.timeout:
                break
            ihl = (data[0] & 15) * 4
            kind, _, _, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            if kind == 0 and rid == ident and rseq == seq and data[ihl + 8:] == payload:
                answered += 1
                break
    return answered


if __name__ == "__main__":
    n = int(sys.argv[2])
    got = ping(sys.argv[1], n)
    print("%d/%d replies" % (got, n))
    sys.exit(0 if got == n else 1)
