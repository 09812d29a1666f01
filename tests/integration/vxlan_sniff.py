#!/usr/bin/env python3
"""Watch an interface for VXLAN datagrams (UDP to port 4789, IPv4) and print
their UDP source ports as JSON once COUNT were seen (or after TIMEOUT s).

    python3 vxlan_sniff.py IFNAME COUNT TIMEOUT

Prints "ready" when listening. Needs CAP_NET_RAW (AF_PACKET)."""

import json
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800


def main():
    ifname, count, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
    s.bind((ifname, ETH_P_IP))
    print("ready", flush=True)
    ports, deadline = [], time.monotonic() + timeout
    while len(ports) < count and time.monotonic() < deadline:
        s.settimeout(max(deadline - time.monotonic(), 0.01))
        try:
            pkt, addr = s.recvfrom(65535)
        except socket.timeout:
            break
        if addr[2] == socket.PACKET_OUTGOING or len(pkt) < 28 or pkt[9] != 17:
            continue
        ihl = (pkt[0] & 15) * 4
        sport, dport = struct.unpack("!HH", pkt[ihl:ihl + 4])
        if dport == 4789:
            ports.append(sport)
    print(json.dumps(ports), flush=True)


if __name__ == "__main__":
    main()
