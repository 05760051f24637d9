"""The audit log: every decision and outcome, one JSON line each, hash-chained.

`$HERMES_HOME/agentsfence/audit.jsonl`. Each record is a JSON object whose last field is
`"hash"`: the SHA-256 (hex) of the record's line with that field left out (the text before
`,"hash":` followed by `}`). Its `"prev"` field is the previous record's hash (64 zeros for the
first record ever) and `"seq"` counts records from 1. So an edited record no longer matches its
own hash, a record edited with its hash recomputed breaks the next record's `prev`, a removed
record leaves a gap in `seq`, and moved records run `seq` backwards: `verify` names each.

Rotation: once the file holds `max_bytes` (it ends at most one record over), the next write
renames it `audit.jsonl.<n>` (n = 1, 2, ...: larger is newer) and starts a new one; its first
record's `prev` is the last hash of the one before, so the chain runs across files.

Crashes: a record is one write(2) of one line. A writer that died mid-write leaves a last line
without its newline; the next writer cuts that torn tail off (only it: every record before
still verifies) and writes a `recovered` record that says how many bytes it dropped. `verify`
reports a torn tail it finds as such, not as tampering.

The chain's head: after each write, the writer hands the last record's seq and hash, with the
file's size and inode, to a thread that saves the latest it was handed in the SQLite store beside
the log (state.db; store/), so no decision waits for that write; it writes at most once every
HEAD_SAVE_SECONDS (10 ms), and close() saves the last head. A writer that finds the file as
the store says (another writer's last record, or its own before a restart) takes the head from
there; otherwise (the store missing or behind: a crash came first) it reads the last record back
from the file, however long it is. `verify` also compares the file with
the store's head: records cut off the end of the log are named, which the chain alone cannot show
(after a crash, records written in its last 10 ms may be past the saved head).

Several processes may share one Hermes home (a CLI and a gateway): each write holds an
exclusive flock on the file and re-reads the chain's head when the file changed under it. A
writer learns that from the size of the file it holds (one lseek: an fstat after a write costs
eight times as much): a file another writer appended to has another size, and one another writer
rotated holds `max_bytes` (rotation waits for that; every writer has the same `max_bytes`). A
file deleted or renamed by hand is found by looking the path up (is it still the inode held?)
at most `link_check_seconds` apart. The records written in between went to the file it held:
kept in a renamed one, gone with a deleted one (as everything before them was).

Redaction is the policy's: a decision's record holds the call's targets as the evaluator made
them under the policy's roles (`"targets"`: [subject, normal form] pairs, docs/bytecode.md §8.1:
e-mail addresses, recipients, URLs, domains, absolute paths, the programs of a command), with
secret-shaped text in them (keys and tokens, passwords in URLs, `Authorization:` values, private
keys: `SECRET_PATTERNS`) replaced by `[secret]` and long text cut. Every argument value is
written as its type and size only (`"args"`, see `argument_shapes`): message bodies, file
content, patches and code never reach the log, and an argument the policy gives no role to
leaves nothing of its value there. An ask or a block also keeps its message (`"message"`, the
question a person was asked or what the model was told), scrubbed the same way.

This is tamper-evident, not tamper-proof: someone who can rewrite the whole file can rewrite
the chain too. `verify` prints the head hash; keeping it elsewhere pins what came before.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import itertools
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    import argparse  # the audit commands' types; the CLI that parses them imports it

    from .records import Decision
    from .shipping import SyslogShipper
    from .store import Store

GENESIS = "0" * 64
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
HEAD_SAVE_SECONDS = 0.01  # the chain's head is saved in the store at most this often (close saves the last)
LINK_CHECK_SECONDS = 1.0  # how often a writer looks for its file deleted or renamed by hand
MAX_VALUE_CHARS = 512  # longer target text is cut: the record says how long it was
_HASH_TAIL = re.compile(r',"hash":"([0-9a-f]{64})"}$')

# Secret-shaped text, each with the lower-case fragments one of which it must contain: a
# pattern runs only on text that holds one (a scan of `in` tests costs far less than the
# regular expressions, and most values hold none). A pattern's group, if any, is kept. Each is
# compiled when first needed: compiling them all took about 1 ms of every start.
SECRET_PATTERNS: list[tuple[tuple[str, ...], str]] = [
    (("-----begin",), r"(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
    (("akia", "asia"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),  # AWS access key ids
    (("sk-", "pk-", "rk-"), r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"),  # OpenAI/Anthropic/Stripe style keys
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub tokens
    (("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),  # Slack tokens
    (("aiza",), r"\bAIza[0-9A-Za-z_-]{30,}"),  # Google API keys
    (("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # JWTs
    (("bearer", "basic", "token"), r"(\b(?i:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}"),  # Authorization values
    (("pass", "secret", "token", "api_key", "api-key", "apikey"),
     r"((?i:pass(?:word|wd)?|secret|token|api[_-]?key)\s*[=:]\s*)[^\s&'\"]+"),  # key=value
    (("@",), r"(?<=://)[^/@\s:]+:[^/@\s]+(?=@)"),  # user:password@ in a URL
]


def _keep_name(match: re.Match[str]) -> str:
    return match.group(1) + "[secret]"


_compiled = functools.cache(re.compile)
_ANY_FRAGMENT = re.compile("|".join(re.escape(f) for fragments, _ in SECRET_PATTERNS for f in fragments))


def scrub(text: str) -> str:
    """Text with every secret-shaped run replaced by [secret], cut to MAX_VALUE_CHARS."""
    lowered = text.lower()
    if _ANY_FRAGMENT.search(lowered):  # one scan; most values stop here
        for fragments, source in SECRET_PATTERNS:  # in order: a private key before the words in it
            if any(fragment in lowered for fragment in fragments):
                pattern = _compiled(source)
                text = pattern.sub(_keep_name if pattern.groups else "[secret]", text)
    if len(text) > MAX_VALUE_CHARS:
        text = f"{text[:MAX_VALUE_CHARS]}…[{len(text)} chars]"
    return text


def _shape(value: Any) -> str:
    """A value as its type and size, as JSON text: nothing of its content."""
    if isinstance(value, str):
        return f'"str, {len(value)} chars"'
    if isinstance(value, (bytes, bytearray)):
        return f'"bytes, {len(value)} bytes"'
    if isinstance(value, (list, tuple, dict, set, frozenset)):  # a subclass names itself: escaped
        return encode_basestring(f"{type(value).__name__}, {len(value)} items")
    return encode_basestring(type(value).__name__)


MAX_ARGUMENTS = 256  # argument names a record lists; more are counted


# An argument's name (cut to 64 characters) as JSON text; tools reuse a few names. The cache
# holds the cut names only, so long hostile names cannot fill memory.
_name = functools.lru_cache(maxsize=4096)(encode_basestring)


def argument_shapes(args: Any) -> str:
    """What a record holds of a call's arguments, as JSON text: each one's name and shape
    (`_shape`), or the shape alone of arguments that are not an object."""
    if not isinstance(args, dict):
        return _shape(args)
    fields = [f"{_name(key[:64]) if isinstance(key, str) else _name(f'[{type(key).__name__} key]'[:64])}:{_shape(value)}"
              for key, value in (args.items() if len(args) <= MAX_ARGUMENTS else itertools.islice(args.items(), MAX_ARGUMENTS))]
    if len(args) > MAX_ARGUMENTS:
        fields.append(f'"[more]":"{len(args) - MAX_ARGUMENTS} arguments"')
    return "{" + ",".join(fields) + "}"


@functools.lru_cache(maxsize=1024)
def _decision_fields(decision: Decision) -> str:
    """A record's fields that come from its decision. The engine hands out one Decision for one
    answer, so the calls a session repeats reuse these, scrubbed targets and all."""
    q = encode_basestring
    targets = ",".join(f"[{q(subject)},{q(scrub(value))}]" for subject, value in decision.targets)
    # The rules of effect `warn` that held: the call went on, and the record says so.
    warned = getattr(decision, "warned", ())
    warned_field = f',"warned":[{",".join(q(rule) for rule in warned)}]' if warned else ""
    # What the person was asked, or the model told: the report lists it beside the targets.
    message = f',"message":{q(scrub(decision.message))}' if decision.kind in ("ask", "block") else ""
    return (f'"kind":{q(decision.kind)},"reason":{q(decision.reason)},"rule":{q(decision.rule)},'
            f'"capability":{q(decision.capability)},"risk":{q(decision.risk)},"targets":[{targets}]{warned_field}{message}')


def _sha256(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


class AuditError(OSError):
    """A record could not be written: the caller must not act as if it had been."""


class AuditLog:
    """Appends records to one chain; thread-safe, and safe beside other processes."""

    def __init__(self, path: Path, max_bytes: int = DEFAULT_MAX_BYTES, link_check_seconds: float = LINK_CHECK_SECONDS,
                 heads: Store | None = None):
        self.path = Path(path)
        # Where the chain's head is saved: the SQLite store beside the log, whatever store the
        # sessions use (the log is this host's file). A crash can leave it behind, never wrong.
        if heads is None:
            from .store.sqlite import SQLiteStore

            heads = SQLiteStore(self.path.parent / "state.db")
        self._heads = heads
        self._heads_error: str | None = None  # the store's last failure, logged once
        self._head_pending: tuple[int, str, int, int] | None = None  # the latest head not yet saved
        self._head_wake = threading.Event()
        self._head_closing = threading.Event()  # cuts the saver's rest short at close
        self._head_stop = False
        self._head_saver: threading.Thread | None = None
        self._head_slot = threading.Lock()  # guards _head_pending; never held over a write
        self._head_lock = threading.Lock()  # one write of a head at a time (the saver's, close's)
        self._head_key = os.path.abspath(self.path)
        self._path_text = str(self.path)  # os.stat of a str skips the Path conversion on every write
        self.max_bytes = max_bytes
        self.link_check_seconds = link_check_seconds
        self._next_link_check = 0.0  # time.monotonic() of the next fstat for a deletion or rename
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._inode: int | None = None
        self._size = -1  # the file's size after our last write; another size means re-read the head
        self._seq = 0
        self._prev = GENESIS
        self.shipper: SyslogShipper | None = None  # audit off the box (shipping.py): each line also goes to its spool

    # ---- records ----

    def decision(self, session: str, tool: str, tool_call_id: str, args: Any, decision: Decision, elapsed_us: float,
                 mode: str = "enforce", error: str = "") -> None:
        """mode `observe`: the decision was recorded and not acted on; its kind is what enforce would have done.
        error: why the host blocked the call when deciding it failed (a fault, not the policy)."""
        q = encode_basestring
        observed = ',"mode":"observe"' if mode == "observe" else ""
        failed = f',"error":{q(scrub(error))}' if error else ""
        self._append(f'"event":"decision","session":{q(session)},"tool":{q(tool)},"call":{q(tool_call_id)},'
                     f'{_decision_fields(decision)}{observed}{failed},"args":{argument_shapes(args)},"us":{elapsed_us:.1f}')

    def event(self, event: str, session: str, tool: str, tool_call_id: str = "", **details: Any) -> None:
        q = encode_basestring
        extra = "".join(f",{q(k)}:{_json(v)}" for k, v in details.items())
        self._append(f'"event":{q(event)},"session":{q(session)},"tool":{q(tool)},"call":{q(tool_call_id)}{extra}')

    # ---- the chain ----

    def _append(self, fields: str) -> None:
        with self._lock:
            try:
                fd = self._open()
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    fd = self._sync_head(fd)
                    if self._size >= self.max_bytes:
                        fd = self._sync_head(self._rotate(fd))
                    line = self._line(fields)
                    self._write(fd, line)
                    self._size += len(line)
                    self._seq += 1
                    self._prev = line[-67:-3].decode("ascii")
                    self._save_head()
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError as error:
                self._size = -1  # re-read the head next time: what reached the file is unknown
                raise AuditError(error.errno, f"the audit log {self.path} cannot be written: {error.strerror or error}") from error

    def _line(self, fields: str) -> bytes:
        # A lone surrogate (a tool name, an argument) cannot be UTF-8: it is written escaped,
        # so the record is still valid JSON and the call is still recorded.
        body = f'{{"seq":{self._seq + 1},"time":{time.time():.6f},"prev":"{self._prev}",{fields}'.encode("utf-8", "backslashreplace")
        return body + b',"hash":"' + _sha256(body + b"}").encode("ascii") + b'"}\n'

    def _write(self, fd: int, line: bytes) -> None:
        _write_all(fd, line)
        if self.shipper is not None:  # still under the flock, so the spool holds the chain's order
            self.shipper.enqueue(line)

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            self._inode = os.fstat(self._fd).st_ino
            self._size = -1
        return self._fd

    def _save_head(self) -> None:
        """Under the flock: hands the head as this write left it to the saver thread."""
        with self._head_slot:
            self._head_pending = (self._seq, self._prev, self._size, self._inode or 0)
        if self._head_saver is None:
            self._head_stop = False
            self._head_saver = threading.Thread(target=self._save_heads, name="agentsfence-audit-head", daemon=True)
            self._head_saver.start()
        if not self._head_wake.is_set():  # set() takes a lock and notifies: once per rest is enough
            self._head_wake.set()

    def _save_heads(self) -> None:
        """The saver thread: the latest head, whenever there is one (many records, one write),
        at most one write per HEAD_SAVE_SECONDS: a store write per record took the GIL from the
        decisions for longer than the record's own write."""
        while not self._head_stop:
            self._head_wake.wait()
            self._head_wake.clear()
            self._write_head()
            self._head_closing.wait(HEAD_SAVE_SECONDS)

    def _write_head(self) -> None:
        """A store that cannot take the head costs nothing but a read of the file's last record later."""
        with self._head_lock:
            with self._head_slot:
                head, self._head_pending = self._head_pending, None
            if head is None:
                return
            try:
                self._heads.set_audit_head(self._head_key, *head)
                self._heads_error = None
            except Exception as error:
                if self._heads_error is None:
                    import logging

                    logging.getLogger("agentsfence").warning("AgentsFence: the audit chain's head cannot be saved in %s: %s",
                                                             getattr(self._heads, "where", "the state store"), error)
                self._heads_error = str(error)

    def _stored_head(self, size: int) -> tuple[int, str] | None:
        """The head the store holds, when it is of this file as it is now."""
        try:
            head = self._heads.audit_head(self._head_key)
        except Exception:
            return None
        if head is None or head[2] != size or head[3] != self._inode:
            return None
        return head[0], head[1]

    def _sync_head(self, fd: int) -> int:
        """Under the flock: follows a rotation by another process, and re-reads the last record
        when the file is not as we left it (another writer, or a torn tail)."""
        size = os.lseek(fd, 0, os.SEEK_END)
        if size == self._size and size < self.max_bytes and time.monotonic() < self._next_link_check:
            return fd  # as our last write left it (the module's docstring says why that is enough)
        try:
            current = os.stat(self._path_text).st_ino
        except FileNotFoundError:
            current = None
        self._next_link_check = time.monotonic() + self.link_check_seconds
        if current != self._inode:
            os.close(fd)
            self._fd = None
            fd = self._open()
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.lseek(fd, 0, os.SEEK_END)
        if size == self._size:
            return fd
        stored = self._stored_head(size) if size else None
        if stored is not None:  # the file ends where the head saved with it says: no read of the file
            self._seq, self._prev = stored
            self._size = size
            return fd
        tail, torn = _read_tail(fd, size)
        if torn:
            os.ftruncate(fd, size - len(torn))
        head = _last_record(tail) if tail else None
        if head is None and size - len(torn) == 0:
            head = self._last_of_rotated()
        self._seq, self._prev = head if head is not None else (0, GENESIS)
        self._size = size - len(torn)
        if torn:
            line = self._line(f'"event":"recovered","dropped_bytes":{len(torn)},"dropped_sha256":"{_sha256(torn)}"')
            self._write(fd, line)
            self._size += len(line)
            self._seq += 1
            self._prev = line[-67:-3].decode("ascii")
        return fd

    def _last_of_rotated(self) -> tuple[int, str] | None:
        rotated = rotated_files(self.path)
        if not rotated:
            return None
        with open(rotated[-1], "rb") as f:
            f.seek(0, os.SEEK_END)
            tail, _ = _read_tail(f.fileno(), f.tell())
        return _last_record(tail)

    def _rotate(self, fd: int) -> int:
        rotated = rotated_files(self.path)
        number = int(rotated[-1].name.rsplit(".", 1)[1]) + 1 if rotated else 1
        os.rename(self.path, self.path.with_name(f"{self.path.name}.{number}"))
        os.close(fd)
        self._fd = None
        fd = self._open()  # forgets the size: the caller re-reads the head, which another writer may have moved
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def close(self) -> None:
        """Closes the file; the last head is saved before this returns."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            saver, self._head_saver = self._head_saver, None
        if saver is not None:
            self._head_stop = True
            self._head_closing.set()
            self._head_wake.set()
            saver.join()
            self._head_closing.clear()
        self._write_head()


# Redacted values are plain JSON (strings, finite numbers, lists, string-keyed objects).
_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _write_all(fd: int, data: bytes) -> None:
    """One write for one line (O_APPEND); a short write (a full disk) is finished or fails."""
    written = os.write(fd, data)
    while written < len(data):
        written += os.write(fd, data[written:])


TAIL_READ = 64 * 1024


def _read_tail(fd: int, size: int) -> tuple[bytes, bytes]:
    """(the last whole line, from the file's start or the newline before it; the torn bytes after
    the last newline). Reads back a window at a time until the line's start: a record of any
    length is read whole."""
    start = max(0, size - TAIL_READ)
    data = os.pread(fd, size - start, start)
    end = data.rfind(b"\n") + 1
    # The last whole line starts after a newline before `end - 1`, or at the file's start.
    while start > 0 and (end == 0 or data.rfind(b"\n", 0, end - 1) < 0):
        step = min(start, max(TAIL_READ, len(data)))
        start -= step
        data = os.pread(fd, step, start) + data
        end = data.rfind(b"\n") + 1
    return data[:end], data[end:]


def _last_record(tail: bytes) -> tuple[int, str] | None:
    lines = tail.rstrip(b"\n").rsplit(b"\n", 1)
    try:
        record = json.loads(lines[-1])
        return int(record["seq"]), str(record["hash"])
    except (ValueError, KeyError, TypeError):
        return None


def rotated_files(path: Path) -> list[Path]:
    found = []
    for candidate in path.parent.glob(path.name + ".*"):
        suffix = candidate.name[len(path.name) + 1:]
        if suffix.isdigit():
            found.append((int(suffix), candidate))
    return [p for _, p in sorted(found)]


# ---- verification ----

@dataclass
class Verdict:
    """What verify found: records read, the chain's head, problems (tampering) and notes."""

    records: int = 0
    head: str = GENESIS
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _records(files: list[Path]) -> Iterator[tuple[Path, int, bytes, bool]]:
    """(file, line number, line, whether it is the torn last line of the newest file)."""
    for index, path in enumerate(files):
        data = path.read_bytes()
        lines = data.split(b"\n")
        torn = lines.pop()  # after the last newline: b"" when the file ends cleanly
        for number, line in enumerate(lines, 1):
            yield path, number, line, False
        if torn:
            yield path, len(lines) + 1, torn, index == len(files) - 1


def verify(path: Path, collector: bool = False) -> Verdict:
    """Checks the chain of `path` and the files rotated out of it, oldest first. collector: `path`
    is a collector's copy (shipping.py), alone: a record delivered twice (the same seq and hash)
    is noted, not a problem, and the copy may start after record 1 (when shipping began). A
    copy's line endings are the collector's, not the records': a CRLF ending and a blank line
    are noted and read past (a record holds no raw CR or newline, JSON escapes them, so neither
    can hide a change to one; a removed record still leaves a gap in the seqs)."""
    files = [path] if collector and path.exists() else [*rotated_files(path), path] if path.exists() else rotated_files(path)
    verdict = Verdict()
    if not files:
        verdict.problems.append(f"{path}: no audit log here")
        return verdict
    parsed: list[tuple[str, int, str, str, bool]] = []  # where, seq, prev, hash, whether the hash holds
    delivered: set[tuple[int, str]] = set()
    twice = crlf = blank = 0
    for file, number, line, torn in _records(files):
        where = f"{file.name}:{number}"
        if collector and line.endswith(b"\r"):
            line, crlf = line[:-1], crlf + 1
        if collector and not line:
            blank += 1
            continue
        if torn:
            verdict.notes.append(f"{where}: an incomplete last record ({len(line)} bytes: a write cut short by a crash) was ignored")
            break
        text = line.decode("utf-8", "replace")
        match = _HASH_TAIL.search(text)
        try:
            record = json.loads(text)
            seq, claimed_prev = int(record["seq"]), str(record["prev"])
        except (ValueError, KeyError, TypeError):
            verdict.problems.append(f"{where}: not a record (unreadable JSON or fields missing)")
            continue
        holds = match is not None and _sha256((text[:match.start()] + "}").encode("utf-8")) == match.group(1)
        if collector and holds and (seq, match.group(1)) in delivered:
            twice += 1
            continue
        delivered.add((seq, match.group(1) if match else ""))
        parsed.append((where, seq, claimed_prev, match.group(1) if match else "", holds))
    found_at = {seq: where for where, seq, _, _, _ in parsed}
    expected, last_seq, prev, prev_where = 1, 0, GENESIS, "the start of the chain"
    if twice:
        verdict.notes.append(f"{twice} record(s) arrived twice (shipping resends what the collector had not confirmed); "
                             "each copy has the same hash and was counted once")
    if crlf or blank:
        verdict.notes.append(f"the copy has {crlf} line(s) ending in CRLF and {blank} blank line(s): the collector's "
                             "formatting, read past (the records' own bytes are checked)")
    if collector and parsed and parsed[0][1] > 1:
        where, expected, prev = parsed[0][0], parsed[0][1], parsed[0][2]
        last_seq, prev_where = expected - 1, f"record {expected - 1} (before this copy)"
        verdict.notes.append(f"{where}: the copy starts at record {expected}, after record {expected - 1} with hash {prev}")
    for where, seq, claimed_prev, own, holds in parsed:
        if not holds:
            verdict.problems.append(f"{where}: record {seq} was edited (its content does not match its hash)")
        if seq < expected:
            verdict.problems.append(f"{where}: record {seq} is out of order (after record {expected - 1}): records were moved")
        elif seq > expected:
            gap = range(expected, seq)
            removed = [n for n in gap if n not in found_at]
            moved = [n for n in gap if n in found_at]
            if removed:
                verdict.problems.append(f"{where}: {_numbers(removed)} missing before record {seq}: removed")
            if moved:
                verdict.problems.append(f"{where}: {_numbers(moved)} belong before record {seq} but "
                                        f"{'is' if len(moved) == 1 else 'are'} at {found_at[moved[0]]}: records were moved")
        elif last_seq == 0 and claimed_prev != GENESIS:
            verdict.problems.append(f"{where}: record 1 does not start the chain: what came before it was removed")
        elif last_seq == seq - 1 and claimed_prev != prev:
            verdict.problems.append(f"{prev_where}: record {last_seq} was edited or replaced "
                                    f"(record {seq} at {where} does not chain to it)")
        expected = max(expected, seq + 1)
        verdict.records += 1
        last_seq, prev, prev_where = seq, own, where
    verdict.head = prev
    _compare_stored_head(path, verdict, last_seq)
    return verdict


def _compare_stored_head(path: Path, verdict: Verdict, last_seq: int) -> None:
    """The head the writers saved in the state store beside the log, against the file's: records
    cut off the end, or a last record rewritten with its hash, leave the file behind it."""
    database = path.parent / "state.db"
    if not database.exists():
        return
    from .store.sqlite import SQLiteStore

    store = SQLiteStore(database)
    try:
        head = store.audit_head(os.path.abspath(path))
    except Exception as error:
        verdict.notes.append(f"{database}: the chain's saved head cannot be read ({error})")
        return
    finally:
        store.close()
    if head is None:
        return
    seq, digest = head[0], head[1]
    if seq > last_seq:
        verdict.problems.append(f"{path.name}: the log ends at record {last_seq}, and its writer saved record {seq} as the "
                                f"head in {database}: records {last_seq + 1}-{seq} were cut off the end" if seq > last_seq + 1
                                else f"{path.name}: the log ends at record {last_seq}, and its writer saved record {seq} "
                                f"as the head in {database}: the last record was cut off the end")
    elif seq == last_seq and digest != verdict.head:
        verdict.problems.append(f"{path.name}: record {seq} is not the one its writer saved as the head in {database}: "
                                "it was replaced")


def _numbers(seqs: list[int]) -> str:
    if len(seqs) == 1:
        return f"record {seqs[0]}"
    return f"records {seqs[0]}-{seqs[-1]}" if seqs[-1] - seqs[0] == len(seqs) - 1 else "records " + ", ".join(map(str, seqs))


# ---- the command line: `agentsfence audit verify|tail` ----

def default_path() -> Path:
    from .layout import hermes_state

    return hermes_state().audit_log


def _verify_command(options: argparse.Namespace) -> int:
    path = Path(options.collector or options.path or default_path())
    verdict = verify(path, collector=options.collector is not None)
    for note in verdict.notes:
        print(f"note: {note}")
    for problem in verdict.problems:
        print(f"TAMPERED: {problem}")
    if verdict.ok:
        print(f"ok: {verdict.records} records chain from the start; head {verdict.head}")
        return 0
    print(f"{len(verdict.problems)} problem(s) in {verdict.records} records")
    return 1


def _tail_command(options: argparse.Namespace) -> int:
    path = Path(options.path) if options.path else default_path()
    files = [*rotated_files(path), path] if path.exists() else rotated_files(path)
    lines: list[bytes] = []
    for file in reversed(files):
        lines = [line for line in file.read_bytes().split(b"\n") if line] + lines
        if len(lines) >= options.lines:
            break
    for line in lines[-options.lines:]:
        try:
            record = json.loads(line)
        except ValueError:
            print(f"(unreadable: {line[:80]!r})")
            continue
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.get("time", 0)))
        what = record.get("kind") or record.get("status") or ""
        why = record.get("reason") or record.get("error_type") or record.get("why") or ""  # why: a refused bundle
        if record.get("event") in ("policy", "policy_changed"):  # the policy in force, and what it replaced
            what = f"{record.get('policy', '')} {str(record.get('policy_hash', ''))[:12]}"
            why = (f"(was {str(record['previous_hash'])[:12]}, {record.get('why', '')})" if "previous_hash" in record
                   else str(record.get("why", "")))
        targets = " ".join(f"{subject}:{value}" for subject, value in record.get("targets", []))
        print(f"{record.get('seq')} {stamp} {record.get('event')} {record.get('session')} {record.get('tool')} {what} {why} {targets}".rstrip())
    return 0


def add_cli(commands: Any) -> None:
    """Adds `audit verify [PATH]` and `audit tail [PATH] [-n N]` to a subparsers object."""
    audit = commands.add_parser("audit", help="check or read the audit log",
                                description="The hash-chained audit log ($HERMES_HOME/agentsfence/audit.jsonl).")
    actions = audit.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    check = actions.add_parser("verify", help="check that no record was edited, removed or moved",
                               description="Exit status 0 when the chain verifies, 1 when a record was edited, removed or moved.")
    check.add_argument("path", nargs="?", metavar="PATH", help="the audit log; default: $HERMES_HOME/agentsfence/audit.jsonl")
    check.add_argument("--collector", metavar="FILE", help="check a collector's copy instead (audit shipping, "
                       "docs/operators.md): FILE alone, one record per line as shipped")
    check.set_defaults(run=_verify_command, passes_on=False)
    tail = actions.add_parser("tail", help="print the latest records", description="Print the latest records, one line each.")
    tail.add_argument("path", nargs="?", metavar="PATH", help="the audit log; default: $HERMES_HOME/agentsfence/audit.jsonl")
    tail.add_argument("-n", "--lines", type=int, default=20, metavar="N", help="how many records (default 20)")
    tail.set_defaults(run=_tail_command, passes_on=False)

