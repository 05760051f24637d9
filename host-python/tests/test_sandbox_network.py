"""What a confined command can reach: nothing of the host's network by default, the sandbox's own
loopback, and through the proxy only the hosts the profile lists. The oracle is the connection:
a listener on the host's 127.0.0.1 (or an abstract or path Unix socket) that the test runs and
first reaches unconfined, as a control."""
from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from agentsfence.sandbox import confine, proxy, run
from agentsfence.sandbox.proxy import FilteringProxy, HostList

from .sandbox_support import World, world  # noqa: F401  (fixture)

CURL = "curl -sS --max-time 5 --noproxy '' "


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"hello from the host\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def host_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_the_hosts_loopback_is_unreachable_without_hosts(world: World, host_server: int):
    url = f"http://127.0.0.1:{host_server}/"
    assert "hello" in subprocess.run(["curl", "-sS", url], capture_output=True, text=True, timeout=10).stdout  # control
    done = run(world.profile(), f"{CURL}{url}; echo curl=$?; env | grep -ci proxy", timeout=30)
    assert "hello" not in done.stdout and "curl=7" in done.stdout
    assert done.stdout.strip().endswith("0")  # no proxy variables at all


def test_host_unix_sockets_abstract_or_in_hidden_and_unbound_dirs_are_unreachable(world: World, tmp_path):
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(b"\0agentsfence-test-" + os.urandom(4).hex().encode())
    abstract.listen(1)
    in_hidden = socket.socket(socket.AF_UNIX)
    in_hidden.bind(str(world.home / ".ssh" / "agent.sock"))
    in_hidden.listen(1)
    in_tmp = socket.socket(socket.AF_UNIX)
    in_tmp.bind(str(tmp_path / "host.sock"))
    in_tmp.listen(1)
    names = [abstract.getsockname(), str(world.home / ".ssh" / "agent.sock"), str(tmp_path / "host.sock")]
    probe = ("import socket, sys\n"
             "for name in sys.argv[1:]:\n"
             "    s = socket.socket(socket.AF_UNIX)\n"
             "    addr = name.encode('latin-1').replace(b'@', b'\\0', 1) if name.startswith('@') else name\n"
             "    try: s.connect(addr); print('connected', name)\n"
             "    except OSError as e: print('refused', name, e.errno)\n")
    args = " ".join(__import__("shlex").quote(n.decode("latin-1").replace("\0", "@") if isinstance(n, bytes) else n)
                    for n in names)
    control = subprocess.run(f"python3 -c {__import__('shlex').quote(probe)} {args}", shell=True, capture_output=True,
                             text=True, timeout=10)
    assert control.stdout.count("connected") == 3, control.stdout + control.stderr
    done = run(world.profile(), f"python3 -c {__import__('shlex').quote(probe)} {args}", timeout=30)
    assert done.stdout.count("refused") == 3 and "connected" not in done.stdout, done.stdout + done.stderr
    for s in (abstract, in_hidden, in_tmp):
        s.close()


def test_a_server_on_the_sandboxs_own_loopback_answers(world: World):
    done = run(world.profile(), "python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 &\n"
                                "for i in $(seq 100); do curl -s http://localhost:8765/README && break; sleep 0.05; done",
               timeout=30)
    assert done.stdout == "readme\n", done.stderr


def test_a_listed_ip_is_reached_through_the_proxy_and_others_get_a_403_in_words(world: World, host_server: int,
                                                                                   monkeypatch):
    monkeypatch.setattr(proxy, "PORTS", (80, 443, host_server))
    url = f"127.0.0.1:{host_server}"
    listed = run(world.profile(hosts=("127.0.0.1",)), f"{CURL} -x $HTTP_PROXY http://{url}/; "
                                                       f"{CURL} -p -x $HTTP_PROXY http://{url}/tunnel", timeout=30)
    assert listed.stdout == "hello from the host\n" * 2, listed.stderr
    unlisted = run(world.profile(hosts=("pypi.org", "*.example.com")),
                   f"{CURL} -x $HTTP_PROXY http://{url}/; {CURL} -i -x $HTTP_PROXY http://localhost:{host_server}/",
                   timeout=30)
    assert "hello" not in unlisted.stdout
    assert f"AgentsFence refused 127.0.0.1: an IP address not named by your request." in unlisted.stdout
    assert "HTTP/1.1 403 Forbidden" in unlisted.stdout and "localhost: a host not named by your request" in unlisted.stdout
    assert ("127.0.0.1", "an IP address not named by your request") in unlisted.refused


def test_a_listed_name_that_resolves_to_loopback_and_an_unlisted_port_are_refused(world: World, host_server: int):
    done = run(world.profile(hosts=("localhost", "127.0.0.1")),
               f"{CURL} -x $HTTP_PROXY http://localhost/; {CURL} -x $HTTP_PROXY http://127.0.0.1:{host_server}/",
               timeout=30)
    assert "localhost: the name resolves only to this machine or its private networks" in done.stdout
    assert f"port {host_server} is not 80 or 443" in done.stdout and "hello" not in done.stdout


def test_the_python_bridge_stands_in_when_socat_is_missing(world: World, host_server: int, monkeypatch, tmp_path):
    monkeypatch.setattr(proxy, "PORTS", (80, 443, host_server))
    bin_dir = world.base / "bin"  # not under /tmp: the sandbox has its own
    bin_dir.mkdir()
    for tool in ("python3", "curl", "sleep"):
        (bin_dir / tool).symlink_to(os.path.realpath(sys.executable if tool == "python3" else shutil.which(tool)))
    env = dict(os.environ, PATH=str(bin_dir))
    with confine(world.profile(hosts=("127.0.0.1",)), environ=env) as handle:
        done = handle.run(f"command -v socat; {CURL} -x $HTTP_PROXY http://127.0.0.1:{host_server}/", timeout=30)
    assert done.stdout == "hello from the host\n", done.stdout + done.stderr


def test_host_list_lookups_are_exact_or_a_listed_parent_domain():
    hosts = HostList(["PyPI.org.", "*.example.com", "10.0.0.1", "::1"])
    assert hosts.lists("pypi.org") and hosts.lists("a.b.example.com") and hosts.lists("[::1]")
    assert not hosts.lists("example.com") and not hosts.lists("badexample.com") and not hosts.lists("files.pypi.org")
    assert hosts.lists("10.0.0.1") and not hosts.lists("10.0.0.2") and not hosts.lists("evil.pypi.org")


def _ask(path: str, data: bytes) -> bytes:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    s.sendall(data)
    answer = b""
    while chunk := s.recv(65536):
        answer += chunk
    s.close()
    return answer


def test_the_proxy_is_bounded_and_stops_cleanly():
    gate = FilteringProxy(["pypi.org"]).start()
    try:
        assert _ask(gate.socket_path, b"GET http://pypi.org/ HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n").startswith(
            b"HTTP/1.1 431")
        assert b"only CONNECT" in _ask(gate.socket_path, b"GET /relative HTTP/1.1\r\nHost: pypi.org\r\n\r\n")
        spoof = _ask(gate.socket_path, b"GET http://pypi.org/ HTTP/1.1\r\nHost: evil.test\r\n\r\n")
        assert spoof.startswith(b"HTTP/1.1 403") and b"Host header" in spoof
        assert b"not named" in _ask(gate.socket_path, b"CONNECT evil.test:443 HTTP/1.1\r\n\r\n")
        assert oct(os.stat(gate.socket_dir).st_mode & 0o777) == "0o700"
    finally:
        gate.stop()
    assert not os.path.exists(gate.socket_dir) and not gate._thread.is_alive()
    with pytest.raises(OSError):
        _ask(gate.socket_path, b"CONNECT pypi.org:443 HTTP/1.1\r\n\r\n")


def test_host_sockets_in_the_tree_and_the_home_are_not_visible(world: World):
    """A socket file in a visible folder still connects (a read-only mount does not stop
    connect()): every socket the walk finds is hidden, as an ssh or 1Password agent's in the
    home, a docker socket, a service's in the tree."""
    listeners = []
    names = [str(world.home / "agent.sock"), str(world.tree / "sub" / "service.sock")]
    for name in names:
        s = socket.socket(socket.AF_UNIX)
        s.bind(name)
        s.listen(1)
        listeners.append(s)
    probe = ("import socket, sys\n"
             "for name in sys.argv[1:]:\n"
             "    s = socket.socket(socket.AF_UNIX)\n"
             "    try: s.connect(name); print('connected', name)\n"
             "    except OSError as e: print('refused', name, e.errno)\n")
    command = f"python3 -c {__import__('shlex').quote(probe)} " + " ".join(names)
    control = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=10)
    assert control.stdout.count("connected") == 2, control.stdout + control.stderr
    done = run(world.profile(), command, timeout=30)
    assert done.stdout.count("refused") == 2 and "connected" not in done.stdout, done.stdout + done.stderr
    for s in listeners:
        s.close()
