"""Real servers on 127.0.0.1 for the bundle and shipping tests: a CA made here, an HTTPS server
that serves a bundle with ETags (Python's http.server), and Debian's rsyslogd as the audit
collector, started with a config of its own (scripts/install-fleet-servers.sh installs it)."""
from __future__ import annotations

import datetime
import hashlib
import http.server
import ipaddress
import os
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class Certificates:
    ca: Path  # the CA's certificate: what a client trusts
    cert: Path  # 127.0.0.1's certificate, signed by the CA
    key: Path


def make_certificates(folder: Path, name: str = "test") -> Certificates:
    """A CA and a server certificate for 127.0.0.1 signed by it."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = Certificates(folder / f"{name}-ca.pem", folder / f"{name}-cert.pem", folder / f"{name}-key.pem")
    paths.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                            serialization.NoEncryption()))
    return paths


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ---- the bundle server ----

@dataclass
class Served:
    body: bytes = b""
    requests: list[tuple[int, str]] = field(default_factory=list)  # (status answered, If-None-Match sent)

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest()[:20] + '"'


class _BundleHandler(http.server.BaseHTTPRequestHandler):
    served: Served

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        served = self.server.served  # type: ignore[attr-defined]
        asked = self.headers.get("If-None-Match", "")
        if served.etag in [tag.strip() for tag in asked.split(",")] or asked.strip() == "*":
            served.requests.append((304, asked))
            self.send_response(304)
            self.send_header("ETag", served.etag)
            self.end_headers()
            return
        served.requests.append((200, asked))
        self.send_response(200)
        self.send_header("Content-Type", "application/gzip")
        self.send_header("ETag", served.etag)
        self.send_header("Content-Length", str(len(served.body)))
        self.end_headers()
        self.wfile.write(served.body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class BundleServer:
    """HTTPS on 127.0.0.1 with the given certificate; `served.body` is the bundle."""

    def __init__(self, certificates: Certificates, port: int = 0):
        self.served = Served()
        self.certificates = certificates
        self.port = port
        self._server: http.server.ThreadingHTTPServer | None = None

    def start(self) -> BundleServer:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), _BundleHandler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.certificates.cert, self.certificates.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        server.served = self.served  # type: ignore[attr-defined]
        self.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._server = server
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/fleet/bundle.tar.gz"


# ---- the collector ----

RSYSLOGD = shutil.which("rsyslogd") or shutil.which("rsyslogd", path="/usr/sbin:/sbin")
RSYSLOG_MODULES = next((str(p) for p in (Path("/usr/lib/x86_64-linux-gnu/rsyslog"), Path("/usr/lib/aarch64-linux-gnu/rsyslog"),
                                           Path("/usr/lib/rsyslog")) if (p / "imtcp.so").exists()), "")


class Collector:
    """rsyslogd in the foreground on 127.0.0.1:port, writing each message's MSG alone to `output`
    (the template docs/operators.md gives), with TLS (GnuTLS) when given certificates."""

    def __init__(self, folder: Path, certificates: Certificates | None = None, config: str = "", output: Path | None = None):
        """config: a whole rsyslog config to run instead of this class's own (it must listen on
        self.port and write to `output`)."""
        assert RSYSLOGD and RSYSLOG_MODULES, "rsyslogd is missing: scripts/install-fleet-servers.sh installs it"
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.output = output or folder / "collected.jsonl"
        self.certificates = certificates
        self.config = config
        self._process: subprocess.Popen | None = None

    def _config(self) -> Path:
        config = self.folder / "rsyslog.conf"
        if self.config:
            config.write_text(self.config)
            return config
        tls = self.certificates
        driver = (f' defaultNetstreamDriver="gtls" defaultNetstreamDriverCAFile="{tls.ca}"'
                  f' defaultNetstreamDriverCertFile="{tls.cert}" defaultNetstreamDriverKeyFile="{tls.key}"') if tls else ""
        listener = ('module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")'
                    if tls else 'module(load="imtcp")')
        config.write_text(
            f'global(workDirectory="{self.folder}" maxMessageSize="64k"{driver})\n'
            f"{listener}\n"
            f'input(type="imtcp" port="{self.port}" address="127.0.0.1")\n'
            'template(name="AgentsFenceRecord" type="string" string="%msg%\\n")\n'
            f'action(type="omfile" file="{self.output}" template="AgentsFenceRecord")\n')
        return config

    def start(self) -> Collector:
        pid_file = self.folder / "rsyslogd.pid"
        self._process = subprocess.Popen(
            [RSYSLOGD, "-n", "-f", str(self._config()), "-i", str(pid_file), "-M", RSYSLOG_MODULES],
            stdout=subprocess.DEVNULL, stderr=open(self.folder / "rsyslogd.log", "ab"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # listening: a connection is accepted
            if self._process.poll() is not None:
                raise RuntimeError(f"rsyslogd exited: {(self.folder / 'rsyslogd.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("rsyslogd did not listen within 10 s")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            os.kill(self._process.pid, signal.SIGTERM)
            self._process.wait(timeout=15)
        self._process = None

    def lines(self) -> list[bytes]:
        try:
            return [line for line in self.output.read_bytes().split(b"\n") if line]
        except FileNotFoundError:
            return []

    def wait_for(self, count: int, timeout: float = 20.0) -> list[bytes]:
        """The collected lines once `count` distinct ones are there (duplicates are allowed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.lines()
            if len(set(lines)) >= count:
                return lines
            time.sleep(0.05)
        raise AssertionError(f"the collector holds {len(set(self.lines()))} distinct records, not {count}")
