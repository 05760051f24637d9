"""Audit off the box: every audit record sent to the operator's collector as RFC 5424 syslog over
TCP, framed by octet counting (RFC 6587), optionally in TLS (docs/operators.md).

The message is `<134>1 TIMESTAMP HOSTNAME agentsfence - audit - RECORD`: facility local0,
severity info, the record's own time, and the record's JSON line (without its newline) as MSG,
byte for byte, so a collector that writes MSG alone (rsyslog: `%msg%\\n`) holds a copy of the
chain that `agentsfence audit verify --collector FILE` checks.

Nothing waits for the network on the decision path: AuditLog hands each line to `enqueue`,
which appends it to the spool (`agentsfence/shipping/spool`) under the audit log's lock, so the
spool holds the chain's order, also with several processes in one home; a background thread
sends from the spool. One process at a time sends (it holds `sender.lock`); the others only append.

What "sent" means: syslog over TCP has no acknowledgement from the collector's application; TCP's
own ack says the collector's kernel has the bytes, not that they were written. So a record leaves
the spool only after it was sent and flushed AND the connection was still open SETTLE_SECONDS
later: a collector that stops or restarts closes or resets the connection, the sender sees it
(a syslog collector never sends on the connection, so any readable byte or end of stream means
it is going away), reconnects and sends again from the first record not yet confirmed. Records
the collector had written before it went away may so arrive twice: `--collector` verification
notes exact duplicates and does not count them as tampering. What this cannot cover: a collector
that takes bytes into its own memory and then dies without writing them within SETTLE_SECONDS
(a crash, a full disk) loses them; a collector with application acknowledgements (RELP) would be
needed for that. The spool is trimmed when everything in it is confirmed; `spool.sent` holds the
offset of the first unconfirmed byte, so a restart resends from there.
"""
from __future__ import annotations

import atexit
import collections
import fcntl
import logging
import os
import re
import select
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .settings import Settings

logger = logging.getLogger("agentsfence")

FOLDER = "shipping"  # in the state folder
PRI = 16 * 8 + 6  # local0.info
SETTLE_SECONDS = 1.0
CHUNK_BYTES = 256 * 1024  # read from the spool per send
MAX_RETRY_SECONDS = 30.0
CONNECT_TIMEOUT = 10.0
DRAIN_SECONDS = 5.0
_TIME = re.compile(rb'"time":([0-9]+(?:\.[0-9]+)?)')


def frame(line: bytes, hostname: str) -> bytes:
    """One record as an RFC 6587 octet-counted RFC 5424 message."""
    found = _TIME.search(line, 0, 64)
    stamp = float(found.group(1)) if found else time.time()
    seconds = int(stamp)
    timestamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int((stamp - seconds) * 1e6):06d}Z"
    message = f"<{PRI}>1 {timestamp} {hostname} agentsfence - audit - ".encode("ascii") + line.rstrip(b"\n")
    return str(len(message)).encode("ascii") + b" " + message


def _hostname() -> str:
    """RFC 5424 HOSTNAME: printable US-ASCII, at most 255 characters."""
    name = "".join(c for c in socket.gethostname() if 33 <= ord(c) <= 126)[:255]
    return name or "-"


class SyslogShipper:
    """The spool and the thread that empties it into one collector."""

    def __init__(self, folder: Path, address: str, ca_file: str | None = None, settle: float = SETTLE_SECONDS):
        scheme, _, rest = address.partition("://")
        host, _, port = rest.rpartition(":")
        self.address = address
        self.host, self.port, self.tls = host.strip("[]"), int(port), scheme == "tls"
        self.ca_file = ca_file or None
        self.settle = settle
        self.folder = Path(folder)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.spool = self.folder / "spool"
        self.sent_file = self.folder / "spool.sent"
        self.hostname = _hostname()
        self._append_fd = os.open(self.spool, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lost_logged = False
        self.last_error = ""
        self._confirmed_all = threading.Event()  # set while everything the sender saw in the spool is confirmed
        self._confirmed_size = -1  # the spool's size when it was
        self._sending = False  # this process holds sender.lock (another process of the home may)
        self._lock_tried = threading.Event()

    # ---- the decision path: one append ----

    def enqueue(self, line: bytes) -> None:
        """Appends a record to the spool (one write, under the spool's lock) and wakes the sender.
        A spool that cannot be written is logged: the record is in the audit log all the same, and
        the collector's copy will show the gap."""
        try:
            fcntl.flock(self._append_fd, fcntl.LOCK_EX)
            try:
                written = os.write(self._append_fd, line)
                while written < len(line):
                    written += os.write(self._append_fd, line[written:])
            finally:
                fcntl.flock(self._append_fd, fcntl.LOCK_UN)
        except OSError as error:
            if not self._lost_logged:
                logger.error("AgentsFence: the audit spool %s cannot be written (%s): records are not shipped",
                             self.spool, error.strerror or error)
                self._lost_logged = True
            return
        self._wake.set()

    # ---- the sender ----

    def start(self) -> SyslogShipper:
        """Starts the sender, and at the process's exit gives it DRAIN_SECONDS to finish (a
        `hermes chat -q` exits right after its last record): what is left waits in the spool."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="agentsfence-shipping", daemon=True)
            self._thread.start()
            atexit.register(self.drain)
        return self

    def drain(self, timeout: float = DRAIN_SECONDS) -> bool:
        """Waits until every record spooled so far is confirmed, while the collector is reachable;
        whether it was."""
        deadline = time.monotonic() + timeout
        self._wake.set()
        self._lock_tried.wait(timeout)
        while time.monotonic() < deadline and self._sending and self._thread is not None and self._thread.is_alive():
            if self._confirmed_all.is_set() and self._confirmed_size == _size(self.spool):
                return True
            if self.last_error:
                return False
            time.sleep(0.05)
        return False

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        lock_fd = os.open(self.folder / "sender.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while not self._stop.is_set():  # another process of this home may be the sender
                try:
                    fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    self._sending = True
                except BlockingIOError:
                    pass
                self._lock_tried.set()
                if self._sending:
                    break
                self._stop.wait(1.0)
            else:
                return
            self._send_loop()
        except Exception as error:  # logged, never raised into Hermes; the spool keeps every record
            logger.error("AgentsFence: audit shipping to %s stopped: %s: %s", self.address, type(error).__name__, error)
        finally:
            os.close(lock_fd)

    def _send_loop(self) -> None:
        read_fd = os.open(self.spool, os.O_RDWR)
        connection: socket.socket | None = None
        confirmed = self._read_sent(os.fstat(read_fd).st_size)
        position = confirmed  # the next byte to send
        in_flight: collections.deque[tuple[int, float]] = collections.deque()  # (end offset, when sent)
        retry = 0.5
        try:
            while not self._stop.is_set():
                if connection is not None and not _still_open(connection):
                    logger.warning("AgentsFence: the audit collector %s closed the connection; resending from the "
                                   "first record it has not confirmed", self.address)
                    connection = _close(connection)
                if connection is None:
                    position = confirmed
                    in_flight.clear()
                now = time.monotonic()
                while in_flight and connection is not None and in_flight[0][1] <= now - self.settle:
                    confirmed = in_flight.popleft()[0]
                    self._write_sent(confirmed)
                size = os.fstat(read_fd).st_size
                if confirmed == size and size > 0 and self._trim(read_fd, confirmed):
                    confirmed = position = 0
                    size = 0
                self._confirmed_size = confirmed
                if confirmed == size:
                    self._confirmed_all.set()
                else:
                    self._confirmed_all.clear()
                if position < size:
                    if connection is None:
                        try:
                            connection = self._connect()
                            retry = 0.5
                            self.last_error = ""
                        except (OSError, ssl.SSLError) as error:
                            self._note_down(error)
                            self._stop.wait(retry)
                            retry = min(retry * 2, MAX_RETRY_SECONDS)
                            continue
                    chunk = os.pread(read_fd, min(size - position, CHUNK_BYTES), position)
                    end = chunk.rfind(b"\n") + 1
                    if end == 0:  # one record longer than a chunk
                        chunk = os.pread(read_fd, size - position, position)
                        end = chunk.rfind(b"\n") + 1
                    if end == 0:
                        self._wake.wait(0.05)  # an append under way
                        self._wake.clear()
                        continue
                    payload = b"".join(frame(line, self.hostname) for line in chunk[:end].split(b"\n")[:-1])
                    try:
                        connection.sendall(payload)
                    except (OSError, ssl.SSLError) as error:
                        self._note_down(error)
                        connection = _close(connection)
                        continue
                    position += end
                    in_flight.append((position, time.monotonic()))
                    continue
                self._wake.wait(self.settle / 2 if in_flight else 1.0)
                self._wake.clear()
        finally:
            _close(connection)
            os.close(read_fd)

    def _connect(self) -> socket.socket:
        raw = socket.create_connection((self.host, self.port), timeout=CONNECT_TIMEOUT)
        try:
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if not self.tls:
                return raw
            context = ssl.create_default_context(cafile=self.ca_file)
            return context.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise

    def _note_down(self, error: BaseException) -> None:
        why = f"{type(error).__name__}: {error}"
        if why != self.last_error:
            logger.warning("AgentsFence: the audit collector %s cannot be reached (%s); records wait in %s",
                           self.address, why, self.spool)
        self.last_error = why

    def _trim(self, read_fd: int, confirmed: int) -> bool:
        """Empties a spool whose every record is confirmed, unless one was appended meanwhile."""
        fcntl.flock(read_fd, fcntl.LOCK_EX)
        try:
            if os.fstat(read_fd).st_size != confirmed:
                return False
            os.ftruncate(read_fd, 0)
        finally:
            fcntl.flock(read_fd, fcntl.LOCK_UN)
        self._write_sent(0)  # after the truncation: a crash between resends nothing (the offset is past the end)
        return True

    def _read_sent(self, size: int) -> int:
        try:
            offset = int(self.sent_file.read_text().strip() or 0)
        except (OSError, ValueError):
            return 0
        return offset if 0 <= offset <= size else 0

    def _write_sent(self, offset: int) -> None:
        temporary = self.sent_file.with_name(f"{self.sent_file.name}.{os.getpid()}.tmp")
        temporary.write_text(f"{offset}\n")
        os.replace(temporary, self.sent_file)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _still_open(connection: socket.socket) -> bool:
    """False when the collector closed or reset the connection (it never sends anything else)."""
    try:  # poll, not select: select cannot watch a descriptor numbered 1024 or more
        poller = select.poll()
        poller.register(connection, select.POLLIN)
        return not poller.poll(0)
    except (OSError, ValueError):
        return False


def _close(connection: socket.socket | None) -> None:
    if connection is not None:
        try:
            connection.close()
        except OSError:
            pass
    return None


def backlog(state_dir: Path) -> int:
    """Bytes of records in the spool not yet confirmed sent (what `hermes fence status` shows)."""
    folder = Path(state_dir) / FOLDER
    try:
        size = (folder / "spool").stat().st_size
    except FileNotFoundError:
        return 0
    try:
        sent = int((folder / "spool.sent").read_text().strip() or 0)
    except (OSError, ValueError):
        sent = 0
    return size - sent if 0 <= sent <= size else size


def start_shipping(settings: Settings, state_dir: Path) -> SyslogShipper | None:
    """The running shipper for a home whose settings name a collector, else None."""
    if not settings.audit_syslog:
        return None
    return SyslogShipper(Path(state_dir) / FOLDER, settings.audit_syslog, settings.audit_syslog_ca).start()
