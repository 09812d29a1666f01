#!/usr/bin/env python3
"""Both ends of a TCP stream through refnic, each run in a network namespace
(`ip netns exec`): the receiving kernel checks every segment's checksums and
puts the stream together from the sequence numbers, so the bytes it hands
the server are the witness that segmentation (done by whatever forwards the
sender's large frames) cut them right.

    tso_peer.py serve ADDR PORT
        accept one connection on ADDR:PORT; print "ready", then
        "got N SHA256" once the sender closes
    tso_peer.py send ADDR PORT N
        connect to ADDR:PORT, send N bytes of pattern(); print "sent N SHA256"
"""

import hashlib
import socket
import sys


def pattern(n):
    """n bytes in which every 4-byte word says where it is."""
    words = (n + 3) // 4
    return b"".join(i.to_bytes(4, "big") for i in range(words))[:n]


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def serve(addr, port):
    srv = socket.socket(family(addr), socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(1)
    srv.settimeout(30)
    print("ready", flush=True)
    conn, _ = srv.accept()
    conn.settimeout(30)
    h, n = hashlib.sha256(), 0
    while True:
        data = conn.recv(1 << 16)
        if not data:
            break
        h.update(data)
        n += len(data)
    print("got %d %s" % (n, h.hexdigest()), flush=True)
    return 0


def send(addr, port, n):
    data = pattern(n)
    sock = socket.create_connection((addr, port), timeout=30)
    sock.sendall(data)
    sock.shutdown(socket.SHUT_WR)
    sock.recv(1)        # the server's close: everything was taken
    print("sent %d %s" % (n, hashlib.sha256(data).hexdigest()), flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        sys.exit(serve(sys.argv[2], int(sys.argv[3])))
    sys.exit(send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
