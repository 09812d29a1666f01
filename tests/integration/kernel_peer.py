#!/usr/bin/env python3
"""Both ends of a checksum check through refnic, each run in a network
namespace (`ip netns exec`). The sender writes frames whose checksums are
wrong (IPv4 header 0, UDP and TCP garbage) straight onto its interface;
whatever forwards them must insert the right ones, because the receiving
kernel checks every IPv4 header, UDP and TCP checksum and drops a bad
packet: it is the witness, not the device that did the work.

    kernel_peer.py serve ADDR PORT COUNT
        bind UDP and TCP PORT on ADDR; print "ready", then "udp N": the
        datagrams that came, in order, with the payload the sender sent
    kernel_peer.py send IFNAME SRC DST PORT COUNT
        COUNT UDP datagrams SRC -> DST:PORT, then one TCP SYN; print
        "syn-ack ok" if the SYN was answered with a SYN-ACK whose IPv4 and
        TCP checksums are right (checked here, in Python), else "syn-ack
        none" or "syn-ack bad"
"""

import random
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800


def payload(i):
    return b"refnic-csum-%06d-" % i + bytes((i * 7 + k) & 0xff for k in range(64 + i % 900))


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(src, dst, proto, l4):
    """An IPv4 header with checksum 0 (wrong), then l4."""
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), random.randrange(65536), 0,
                       64, proto, 0, socket.inet_aton(src), socket.inet_aton(dst)) + l4


def pseudo_ok(ip_pkt):
    """Are the IPv4 header's and its TCP/UDP checksum right?"""
    ihl = (ip_pkt[0] & 15) * 4
    total = struct.unpack("!H", ip_pkt[2:4])[0]
    l4 = ip_pkt[ihl:total]
    pseudo = ip_pkt[12:20] + struct.pack("!BBH", 0, ip_pkt[9], len(l4))
    return csum(ip_pkt[:ihl]) == 0 and csum(pseudo + l4) == 0


def serve(addr, port, count):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((addr, port))
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((addr, port))
    tcp.listen(8)       # the kernel answers SYNs by itself
    print("ready", flush=True)
    udp.settimeout(5)
    good = 0
    try:
        while good < count:
            if udp.recv(4096) == payload(good):
                good += 1
    except socket.timeout:
        pass
    print("udp %d" % good, flush=True)
    time.sleep(3)       # the SYN, answered meanwhile
    return 0


def send(ifname, src, dst, port, count):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    sock.bind((ifname, ETH_P_IP))
    mac = sock.getsockname()[4]
    eth = b"\x02\x00\x00\x0c\x5a\xfe" + mac + struct.pack("!H", ETH_P_IP)
    sport = 40000 + random.randrange(20000)
    for i in range(count):
        data = payload(i)
        udp = struct.pack("!HHHH", sport, port, 8 + len(data), 0x1234) + data
        sock.send(eth + ipv4(src, dst, socket.IPPROTO_UDP, udp))
        time.sleep(0.001)
    seq = random.randrange(1 << 32)
    syn = struct.pack("!HHIIBBHHH", sport, port, seq, 0, 5 << 4, 0x02, 65535, 0xbeef, 0)
    sock.send(eth + ipv4(src, dst, socket.IPPROTO_TCP, syn))
    sock.settimeout(0.5)
    deadline = time.monotonic() + 5
    verdict = "none"
    while time.monotonic() < deadline and verdict == "none":
        try:
            frame = sock.recv(4096)
        except socket.timeout:
            continue
        pkt = frame[14:]
        if pkt[9] != socket.IPPROTO_TCP or pkt[12:16] != socket.inet_aton(dst):
            continue
        ihl = (pkt[0] & 15) * 4
        sp, dp, _, ack, _, flags = struct.unpack("!HHIIBB", pkt[ihl:ihl + 14])
        if sp == port and dp == sport and flags & 0x12 == 0x12 and ack == (seq + 1) % (1 << 32):
            verdict = "ok" if pseudo_ok(pkt) else "bad"
    print("syn-ack %s" % verdict)
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        sys.exit(serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    sys.exit(send(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])))
