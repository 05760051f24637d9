"""A long-running Hermes (a gateway with many sessions, files and connections open) holds
descriptors numbered 1024 and more: what the fence watches with them must still work there
(select() cannot watch such a descriptor; the sandbox's proxy and the audit shipper must not
depend on it)."""
from __future__ import annotations

import os
import resource
import socket
import threading

import pytest

from agentsfence.sandbox.proxy import FilteringProxy
from agentsfence.shipping import _still_open


@pytest.fixture
def high_descriptors():
    """Descriptors 0..1100 taken, so every socket made inside is numbered above 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"the hard limit on open files is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
    taken = []
    try:
        while not taken or taken[-1] < 1100:
            taken.append(os.dup(0 if taken == [] else taken[0]))
        yield
    finally:
        for fd in taken:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_proxy_relays_between_descriptors_above_1024(high_descriptors, tmp_path):
    proxy = FilteringProxy([], parent_dir=str(tmp_path))
    inside_a, inside_b = socket.socketpair()
    outside_a, outside_b = socket.socketpair()
    assert min(s.fileno() for s in (inside_b, outside_a)) >= 1024
    for s in (inside_a, outside_b):
        s.settimeout(10)  # a relay that died leaves these waiting: fail, do not hang
    relay = threading.Thread(target=proxy._relay, args=(inside_b, outside_a), daemon=True)
    relay.start()
    inside_a.sendall(b"GET / HTTP/1.0\r\n\r\n")
    assert outside_b.recv(100) == b"GET / HTTP/1.0\r\n\r\n"
    outside_b.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello")
    outside_b.shutdown(socket.SHUT_WR)
    inside_a.shutdown(socket.SHUT_WR)
    received = b""
    while chunk := inside_a.recv(100):
        received += chunk
    relay.join(5)
    assert received == b"HTTP/1.0 200 OK\r\n\r\nhello" and not relay.is_alive()
    for s in (inside_a, inside_b, outside_a, outside_b):
        s.close()


def test_the_shipper_tells_an_open_connection_from_a_closed_one_above_1024(high_descriptors):
    ours, collector = socket.socketpair()
    assert ours.fileno() >= 1024
    assert _still_open(ours)  # the collector sends nothing: the connection is open
    collector.close()
    assert not _still_open(ours)
    ours.close()
