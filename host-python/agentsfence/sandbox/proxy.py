"""The filtering HTTP proxy a confined command reaches its listed hosts through.

It runs in the host process (threads), listens on a Unix socket in a private 0700 directory that
is bound read-only into the sandbox, and takes two kinds of request:

    CONNECT host:port HTTP/1.1        a tunnel (HTTPS), relayed byte for byte
    GET http://host[:port]/path ...   plain HTTP in absolute form, forwarded with Connection: close

A host passes when the profile lists it: the lookups are exact, in the list as given (lowercased,
without a trailing dot): the host itself, then `*.` + each of its parent domains (so `*.example.com`
lists the subdomains of example.com, not example.com). An IP address passes only when listed
itself. Ports 80 and 443 only: the listed hosts are named for the web (package indexes, APIs,
git over HTTPS); another port is another service the request did not name. A name is resolved
here, on the host, and connected to only at an address that is not loopback, link-local (the
cloud metadata address), unspecified or multicast: a listed name must not become a way to the
host's own services (an IP literal listed on purpose may be one). Everything else gets a 403
whose body says, in plain words, which host was refused and why.

Bounded: at most MAX_CONNECTIONS at once, a request head of at most MAX_HEAD bytes read within
HEAD_TIMEOUT, a tunnel closed after IDLE_TIMEOUT without traffic. stop() closes the listener and
every open connection.

Not covered (the limit of any proxy that filters by name): inside a CONNECT tunnel the bytes are
TLS, so a client could ask a listed CDN for another site it serves (domain fronting); plain HTTP
requests after the first on one connection go to the same upstream.
"""
from __future__ import annotations

import ipaddress
import os
import select
import socket
import tempfile
import threading
from collections.abc import Iterable

MAX_CONNECTIONS = 64
MAX_HEAD = 16 * 1024
HEAD_TIMEOUT = 10.0
CONNECT_TIMEOUT = 10.0
IDLE_TIMEOUT = 120.0
PORTS = (80, 443)  # read at each request (a test lists its own server's port)
MAX_REFUSED = 100  # refusals kept for the caller's report
SOCKET_NAME = "proxy.sock"


class Refused(Exception):
    def __init__(self, status: int, host: str, why: str):
        super().__init__(why)
        self.status, self.host, self.why = status, host, why


def _normal_host(host: str) -> str:
    host = host.strip().lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


class HostList:
    """The profile's hosts, looked up exactly (see the module's doc)."""

    def __init__(self, hosts: Iterable[str]):
        self.hosts = frozenset(_normal_host(h) for h in hosts if h.strip())

    def lists(self, host: str) -> bool:
        host = _normal_host(host)
        if host in self.hosts:
            return True
        if _is_ip(host):
            return False  # an address passes only when listed itself
        labels = host.split(".")
        return any("*." + ".".join(labels[i:]) in self.hosts for i in range(1, len(labels)))


def _split_host_port(target: str, default: int | None) -> tuple[str, int]:
    if target.startswith("["):
        host, _, rest = target[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif target.count(":") == 1:
        host, port = target.split(":")
    else:
        host, port = target, ""
    if not port:
        if default is None:
            raise Refused(400, target, "the request names no port")
        return host, default
    if not port.isdigit():
        raise Refused(400, target, f"the port {port!r} is not a number")
    return host, int(port)


class FilteringProxy:
    """The proxy for one confinement: start() it, hand `socket_dir` to the sandbox, stop() it."""

    def __init__(self, hosts: Iterable[str], *, parent_dir: str | None = None):
        self.allowed = HostList(hosts)
        self.socket_dir = tempfile.mkdtemp(prefix="agentsfence-proxy-", dir=parent_dir)  # 0700
        self.socket_path = os.path.join(self.socket_dir, SOCKET_NAME)
        self.refused: list[tuple[str, str]] = []  # (host, why), for the caller's report
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def start(self) -> FilteringProxy:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.socket_path)
        os.chmod(self.socket_path, 0o600)
        listener.listen(MAX_CONNECTIONS)
        self._listener = listener
        self._thread = threading.Thread(target=self._accept, name="agentsfence-proxy", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
        with self._lock:
            for conn in list(self._open):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            os.unlink(self.socket_path)
        except OSError:
            pass
        try:
            os.rmdir(self.socket_dir)
        except OSError:
            pass

    def __enter__(self) -> FilteringProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the connections

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            if not self._slots.acquire(blocking=False):
                self._answer(conn, 503, "", "too many connections at once through the sandbox's proxy")
                conn.close()
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _track(self, sock: socket.socket, on: bool) -> None:
        with self._lock:
            (self._open.add if on else self._open.discard)(sock)

    def _serve(self, conn: socket.socket) -> None:
        upstream: socket.socket | None = None
        self._track(conn, True)
        try:
            head, rest = self._read_head(conn)
            if head is None:
                return
            try:
                upstream, reply, forward = self._open_upstream(head)
            except Refused as refused:
                if len(self.refused) < MAX_REFUSED:
                    self.refused.append((refused.host, refused.why))
                self._answer(conn, refused.status, refused.host, refused.why)
                return
            self._track(upstream, True)
            if reply:
                conn.sendall(reply)
            if forward:
                upstream.sendall(forward)
            if rest:
                upstream.sendall(rest)
            self._relay(conn, upstream)
        except OSError:
            pass
        finally:
            for sock in (conn, upstream):
                if sock is not None:
                    self._track(sock, False)
                    sock.close()
            self._slots.release()

    def _read_head(self, conn: socket.socket) -> tuple[bytes | None, bytes]:
        conn.settimeout(HEAD_TIMEOUT)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                if len(data) > MAX_HEAD:
                    self._answer(conn, 431, "", f"the request head is longer than {MAX_HEAD} bytes")
                    return None, b""
                chunk = conn.recv(4096)
                if not chunk:
                    return None, b""
                data += chunk
        except (socket.timeout, OSError):
            return None, b""
        head, _, rest = data.partition(b"\r\n\r\n")
        if len(head) > MAX_HEAD:
            self._answer(conn, 431, "", f"the request head is longer than {MAX_HEAD} bytes")
            return None, b""
        conn.settimeout(None)
        return head, rest

    def _open_upstream(self, head: bytes) -> tuple[socket.socket, bytes, bytes]:
        """The upstream connection for a request head, the reply owed to the client first, and the
        bytes to send upstream first."""
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            raise Refused(400, "", "the request line is not HTTP/1.x")
        method, target, version = parts
        if method == "CONNECT":
            host, port = _split_host_port(target, None)
            upstream = self._connect(host, port)
            return upstream, f"{version} 200 Connection established\r\n\r\n".encode(), b""
        if not target.lower().startswith("http://"):
            raise Refused(400, target, "only CONNECT (for https) and http:// requests go through this proxy")
        authority, slash, path = target[len("http://"):].partition("/")
        authority = authority.rpartition("@")[2]  # userinfo is not part of the host
        host, port = _split_host_port(authority, 80)
        headers = [line for line in lines[1:] if line]
        for line in headers:
            name, _, value = line.partition(":")
            if name.strip().lower() == "host" and _normal_host(_split_host_port(value.strip(), port)[0]) != _normal_host(host):
                raise Refused(403, value.strip(), f"the Host header ({value.strip()}) is not the host of the URL ({host})")
        upstream = self._connect(host, port)
        kept = [line for line in headers
                if line.partition(":")[0].strip().lower() not in ("proxy-connection", "proxy-authorization", "connection", "keep-alive")]
        request = f"{method} {slash or '/'}{path} {version}\r\n" + "".join(line + "\r\n" for line in kept) + "Connection: close\r\n\r\n"
        return upstream, b"", request.encode("latin-1")

    def _connect(self, host: str, port: int) -> socket.socket:
        name = _normal_host(host)
        if not name or not self.allowed.lists(name):
            kind = "an IP address" if _is_ip(name) else "a host"
            raise Refused(403, name, f"{kind} not named by your request")
        if port not in PORTS:
            raise Refused(403, f"{name}:{port}", f"port {port} is not 80 or 443 (only web ports go through the sandbox's proxy)")
        try:
            addresses = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
        except socket.gaierror as error:
            raise Refused(502, name, f"the name does not resolve ({error.strerror})") from None
        if not _is_ip(name):
            addresses = [a for a in addresses if _routable(a[4][0])]
            if not addresses:
                raise Refused(403, name, "the name resolves only to this machine or its private networks (loopback, "
                              "link-local, private ranges, this machine's own addresses)")
        last: OSError | None = None
        for family, kind, proto, _, address in addresses:
            sock = socket.socket(family, kind, proto)
            sock.settimeout(CONNECT_TIMEOUT)
            try:
                sock.connect(address)
                sock.settimeout(None)
                return sock
            except OSError as error:
                last = error
                sock.close()
        raise Refused(502, name, f"the host could not be reached ({last})")

    def _relay(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        by_fd = {a.fileno(): a, b.fileno(): b}
        open_ends = {a, b}
        # poll, not select: select cannot watch a descriptor numbered 1024 or more, which a
        # long-running Hermes with many sessions and files open reaches.
        poller = select.poll()
        for sock in open_ends:
            poller.register(sock, select.POLLIN)
        while open_ends and not self._stopping.is_set():
            ready = [by_fd[fd] for fd, _ in poller.poll(IDLE_TIMEOUT * 1000)]
            if not ready:
                return  # idle
            for sock in ready:
                if sock not in open_ends:
                    continue
                data = sock.recv(65536)
                if not data:
                    open_ends.discard(sock)
                    poller.unregister(sock)
                    try:
                        peers[sock].shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    continue
                peers[sock].sendall(data)

    def _answer(self, conn: socket.socket, status: int, host: str, why: str) -> None:
        reason = {400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large",
                  502: "Bad Gateway", 503: "Service Unavailable"}.get(status, "Error")
        subject = f"{host}: " if host else ""
        body = (f"AgentsFence refused {subject}{why}.\n"
                "This command runs in a sandbox that reaches only the hosts your request named.\n").encode()
        head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
        try:
            conn.sendall(head + body)
        except OSError:
            pass


def _routable(address: str) -> bool:
    """Whether a name's address lies outside this machine and its private networks: a named host
    whose DNS an attacker controls must not lead the sandbox to the host's own services (an IP
    literal the request named itself is reached as named)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast or ip.is_private or ip.is_reserved:
        return False
    return ip not in _own_addresses()


def _own_addresses() -> set[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """This machine's addresses, as the resolver gives them for its own name."""
    own: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            own.add(ipaddress.ip_address(info[4][0].split("%", 1)[0]))
    except (OSError, ValueError):
        pass
    return own
