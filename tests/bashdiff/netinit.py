"""The sandbox's network: run as the first process of a new network namespace (and the user
namespace that owns it), before the sandbox proper. Standard library only.

    unshare --user --map-root-user --net --fork --kill-child -- python netinit.py PROGRAM ARGS...

It brings up loopback, makes every IPv4 and IPv6 address local to it (so a connect to any
address stays on this machine's loopback: there is no other interface), listens on common
ports with a sink that takes what it is sent and answers HTTP with an empty 200 and DNS with
NXDOMAIN, then runs PROGRAM (bubblewrap, which drops every capability: the command under test
cannot change any of this) and serves the sink until it exits, exiting with its status.
A connect to a port with no sink is refused; either way strace sees it. The sink lets a command
that writes into a connection (`cat key > /dev/tcp/HOST/PORT`) go on to do what it would do.
"""
from __future__ import annotations

import os
import selectors
import shutil
import socket
import subprocess
import sys
import time

RESOLVER = "127.0.0.53"
IDLE = 1.0  # seconds a connection may stay silent
TCP_PORTS = (9, 21, 22, 23, 25, 80, 443, 587, 1080, 1234, 3128, 4444, 5000, 8000, 8080, 8443, 9000, 31337)
HTTP_METHODS = (b"GET ", b"POST ", b"PUT ", b"HEAD ", b"DELETE ", b"PATCH ", b"OPTIONS ", b"CONNECT ")


def ip_program() -> str:
    """iproute2's ip, which Debian keeps in /usr/sbin: not on every user's PATH."""
    return shutil.which("ip", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") or "ip"


def network() -> None:
    ip = ip_program()
    for command in ([ip, "link", "set", "lo", "up"], [ip, "route", "add", "local", "0.0.0.0/0", "dev", "lo"],
                    [ip, "-6", "route", "add", "local", "::/0", "dev", "lo"]):
        subprocess.run(command, check=command[1] != "-6", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def listeners(selector: selectors.BaseSelector) -> None:
    for port in TCP_PORTS:
        for family, address in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
            try:
                s = socket.socket(family, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                s.bind((address, port))
                s.listen(16)
                s.setblocking(False)
                selector.register(s, selectors.EVENT_READ, "accept")
            except OSError:
                continue
    # The resolver of the sandbox's resolv.conf, bound to its own address: an answer must come
    # from the address the query went to.
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((RESOLVER, 53))
    u.setblocking(False)
    selector.register(u, selectors.EVENT_READ, "dns")


def nxdomain(query: bytes) -> bytes | None:
    if len(query) < 12:
        return None
    i = 12
    while i < len(query) and query[i] != 0:
        i += 1 + query[i]
    question = query[12:i + 5]
    return query[:2] + b"\x81\x83" + query[4:6] + b"\x00\x00\x00\x00\x00\x00" + question


def serve(selector: selectors.BaseSelector, child: subprocess.Popen[bytes]) -> None:
    received: dict[socket.socket, bytes] = {}
    last: dict[socket.socket, float] = {}  # when each connection last sent something
    answered: set[socket.socket] = set()
    exited = os.pidfd_open(child.pid)
    selector.register(exited, selectors.EVENT_READ, "exit")
    while True:
        events = selector.select(timeout=IDLE / 4 if received else None)
        now = time.monotonic()
        for key, _ in events:
            if isinstance(key.fileobj, socket.socket) and key.data == "read":
                last[key.fileobj] = now
        # A client that waits for the server to speak first (ssh, smtp) is let go after IDLE seconds.
        for s, seen in list(last.items()):
            if now - seen > IDLE:
                last.pop(s)
                received.pop(s, None)
                try:
                    selector.unregister(s)
                except (KeyError, ValueError):
                    pass
                s.close()
        for key, _ in events:
            if key.data == "exit":
                return
            s = key.fileobj
            if key.data == "read" and s not in last:
                continue  # closed above
            assert isinstance(s, socket.socket)
            try:
                if key.data == "accept":
                    connection, _ = s.accept()
                    connection.setblocking(False)
                    selector.register(connection, selectors.EVENT_READ, "read")
                    received[connection] = b""
                    last[connection] = time.monotonic()
                elif key.data == "dns":
                    query, peer = s.recvfrom(4096)
                    answer = nxdomain(query)
                    if answer:
                        s.sendto(answer, peer)
                else:
                    data = s.recv(65536)
                    if not data:
                        selector.unregister(s)
                        s.close()
                        received.pop(s, None)
                        last.pop(s, None)
                        continue
                    so_far = received[s] = (received.get(s, b"") + data)[-65536:]
                    if so_far.startswith(HTTP_METHODS) and b"\r\n\r\n" in so_far and s not in answered:
                        # An answer, then no more writing: what the client still sends is read
                        # until it closes, so its writes never meet a reset connection.
                        s.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        s.shutdown(socket.SHUT_WR)
                        answered.add(s)
            except OSError:
                try:
                    selector.unregister(s)
                except (KeyError, ValueError):
                    pass
                s.close()
                received.pop(s, None)
                last.pop(s, None)


def main() -> int:
    network()
    selector = selectors.DefaultSelector()
    listeners(selector)
    child = subprocess.Popen(sys.argv[1:])
    serve(selector, child)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
