"""Signed policy bundles: one policy for every host, fetched over HTTPS (docs/operators.md).

A bundle is a gzipped tar (OPA's bundles are the model) holding:

    .manifest         JSON: format, revision, created (Unix time), entry (policy.yaml), the
                      compiler digest the bytecode was made with, and every other file with its SHA-256
    .signatures.json  {"signatures": [{"keyid", "alg": "ed25519", "sig": base64}]}: each an Ed25519
                      signature of SIGNED_PREFIX + the .manifest bytes
    policy.afb        the compiled policy (optional: without it, or from another compiler, the
                      host compiles the sources)
    src/...           the sources: policy.yaml and the files it extends, as in POLICY_DIR

A bundle is good when one signature verifies under a trusted key (settings bundle_keys), every
file is listed with its hash and every listed file is there, nothing else is in the archive,
its policy compiles and the evaluator accepts it, and it was not created before the newest
bundle this host ever accepted (a replayed older bundle is a downgrade). Anything else is
refused: an audit record (`bundle_refused`) and a log line say why, and the bundle in force stays.

The newest accepted bundle (its creation time, revision, manifest digest) is the high-water
mark, kept in its own file (`agentsfence/bundle.mark`, written atomically and synced before the
bundle is used) and not read from the kept archive: a kept archive that is lost, truncated, or
signed by a key no longer trusted does not lower it, so an older bundle is refused whatever
happened to the kept file or the keys. It is this host's: a fleet's hosts that share a
PostgreSQL store may take bundles from different URLs, and each must refuse what it has moved
past. Only `agentsfence bundle reset` lowers it, deliberately, with an audit record.

`BundleSource` is the policy source of a home whose settings name a bundle URL, in place of
installed.PolicyFiles (same `current()` and `changed()`): a background thread polls the URL
(If-None-Match with the ETag of the last bundle seen, so an unchanged bundle is a 304 and no
body), checks a new bundle off the decision path, keeps a good one on disk
(`agentsfence/bundle/`) and hands it over at the next user turn. At start the bundle on disk is
checked again (the keys trusted now decide, and it must not be older than the mark) and used,
so a restart with the server down keeps the last good policy. With no good bundle at all, every
call is blocked: a home set to take its policy from a bundle never runs under a weaker one.

A fetch has a deadline (FETCH_DEADLINE seconds for the whole of it, MAX_BUNDLE_BYTES for its
body): a server that trickles is cut off, and at start the host blocks every call and says why
instead of hanging. A refused bundle's ETag and digest are remembered on disk (with the keys
trusted then), so a restart does not fetch and refuse the same bundle again.
"""
from __future__ import annotations

import base64
import hashlib
import http.client
import io
import json
import logging
import os
import re
import socket
import ssl
import tarfile
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .errors import FenceError
from .installed import Installed, PolicyFiles, _write_atomically

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    from .settings import Settings

logger = logging.getLogger("agentsfence")

FORMAT = 1
MANIFEST = ".manifest"
SIGNATURES = ".signatures.json"
BYTECODE = "policy.afb"
SOURCES = "src/"
ENTRY = "policy.yaml"
SIGNED_PREFIX = b"agentsfence-bundle-v1\n"  # a signature over a manifest means nothing else
MAX_BUNDLE_BYTES = 16 * 1024 * 1024
MAX_FILES = 512
FETCH_TIMEOUT = 30.0  # one read
FETCH_DEADLINE = 60.0  # the whole fetch: connect, TLS, headers and body
MARK = "bundle.mark"  # in the state folder, beside (not inside) the kept bundle's folder
REFUSED = "refused.json"  # in the bundle folder: the last refused bundle, not fetched and refused again
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class BundleError(FenceError):
    """A bundle that is not good, and why."""


class _HostFault(BundleError):
    """This host cannot judge a bundle now (its record of the newest one cannot be read or
    written): the bundle is refused, and not remembered as refused."""


# ---- keys ----

def _ed25519() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as error:  # a dependency of the package: only a broken install lacks it
        raise FenceError(f"policy bundles need the cryptography package ({error}); reinstall agentsfence") from error
    return ed25519


def key_id(public: Ed25519PublicKey) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def keygen(private_path: Path, public_path: Path) -> str:
    """A new Ed25519 key pair as PEM files (the private one readable by its owner only); its key id."""
    from cryptography.hazmat.primitives import serialization

    private = _ed25519().Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public_path.write_bytes(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                               serialization.PublicFormat.SubjectPublicKeyInfo))
    return key_id(private.public_key())


def load_private_key(path: Path) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives import serialization

    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as error:
        raise BundleError(f"{path} is not a usable private key: {error}") from error
    if not isinstance(key, _ed25519().Ed25519PrivateKey):
        raise BundleError(f"{path} is not an Ed25519 private key")
    return key


def load_public_keys(specs: tuple[str, ...] | list[str]) -> dict[str, Ed25519PublicKey]:
    """The trusted keys by key id; each spec a PEM file or PEM text. Any unusable one is an error:
    a key the operator meant to trust that silently is not would refuse every bundle it signed."""
    from cryptography.hazmat.primitives import serialization

    keys: dict[str, Ed25519PublicKey] = {}
    for spec in specs:
        inline = spec.lstrip().startswith("-----BEGIN")
        where = "a PEM key in the settings" if inline else spec
        try:
            key = serialization.load_pem_public_key(spec.encode() if inline else Path(spec).read_bytes())
        except (OSError, ValueError, TypeError) as error:
            raise BundleError(f"{where} is not a usable public key: {error}") from error
        if not isinstance(key, _ed25519().Ed25519PublicKey):
            raise BundleError(f"{where} is not an Ed25519 public key")
        keys[key_id(key)] = key
    return keys


# ---- building ----

def build(policy_dir: Path, keys: list[Path], revision: str | None = None) -> bytes:
    """The bundle of POLICY_DIR/policy.yaml and every file it reads there, compiled, signed by each key."""
    from . import data
    from .jsengine import compiler_digest, run

    policy_dir = Path(policy_dir).resolve()
    entry = policy_dir / ENTRY
    if not entry.is_file():
        raise BundleError(f"{policy_dir} has no {ENTRY}: a bundle's policy is its {ENTRY} and the files it extends")
    signers = [load_private_key(key) for key in keys]
    if not signers:
        raise BundleError("a bundle needs at least one signing key")
    with tempfile.TemporaryDirectory(prefix="agentsfence-bundle-") as scratch:
        target = Path(scratch) / BYTECODE
        done = run([str(entry), "-o", str(target)])
        if done.status != 0 or not target.is_file():
            raise BundleError(f"{entry} does not compile:\n{(done.stderr or done.stdout).strip()}")
        bytecode = target.read_bytes()
    files: dict[str, bytes] = {BYTECODE: bytecode}
    for path, found in done.files:
        if found in ("absent", "directory"):
            continue
        resolved = Path(path).resolve()
        if resolved.is_relative_to(data.DATA_DIR):
            continue  # a shipped policy (`extends: [defaults]`): every host has it
        if not resolved.is_relative_to(policy_dir):
            raise BundleError(f"{entry} reads {path}, outside {policy_dir}: a bundle holds only the files of its folder")
        files[SOURCES + resolved.relative_to(policy_dir).as_posix()] = resolved.read_bytes()
    return pack(files, signers, revision, compiler_digest())


def pack(files: dict[str, bytes], signers: list[Ed25519PrivateKey], revision: str | None = None,
         compiler: str | None = None, created: float | None = None) -> bytes:
    """A signed bundle of `files` (names as in the archive: policy.afb, src/...). `compiler`: the
    digest of the compiler that made policy.afb (None: the hosts compile the sources)."""
    for name in files:
        _check_name(name)
    digests = {name: hashlib.sha256(content).hexdigest() for name, content in sorted(files.items())}
    if revision is None:
        revision = hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()[:12]
    manifest = json.dumps({"format": FORMAT, "revision": revision, "created": round(time.time() if created is None else created, 6),
                           "entry": SOURCES + ENTRY, "compiler": compiler, "files": digests}, indent=1).encode() + b"\n"
    signatures = {"signatures": [{"keyid": key_id(signer.public_key()), "alg": "ed25519",
                                  "sig": base64.b64encode(signer.sign(SIGNED_PREFIX + manifest)).decode()}
                                 for signer in signers]}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, content in [(MANIFEST, manifest), (SIGNATURES, json.dumps(signatures, indent=1).encode() + b"\n"),
                              *sorted(files.items())]:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content), 0o644, 0
            tar.addfile(info, io.BytesIO(content))
    return out.getvalue()


def _check_name(name: str) -> None:
    parts = name.split("/")
    if not all(_NAME.fullmatch(part) for part in parts) or len(name) > 255:
        raise BundleError(f"the file name {name!r} is not allowed in a bundle (relative, plain characters, no ..)")


# ---- checking ----

@dataclass(frozen=True)
class Bundle:
    """A bundle whose signature and hashes hold."""

    revision: str
    created: float
    compiler: str | None
    keyid: str  # the trusted key whose signature held
    files: dict[str, bytes]
    sha256: str  # of the archive
    manifest_sha256: str  # of the signed manifest: what was signed, whatever archive carries it


def open_bundle(archive: bytes, keys: dict[str, Ed25519PublicKey]) -> Bundle:
    """The bundle in `archive`, checked against the trusted keys; BundleError says why it is not good."""
    from cryptography.exceptions import InvalidSignature

    if len(archive) > MAX_BUNDLE_BYTES:
        raise BundleError(f"the bundle is {len(archive)} bytes, more than {MAX_BUNDLE_BYTES}")
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            total = 0
            for info in tar:
                if not info.isfile():
                    raise BundleError(f"the bundle holds {info.name!r}, which is not a plain file")
                if info.name in members or len(members) >= MAX_FILES:
                    raise BundleError(f"the bundle holds {info.name!r} twice, or more than {MAX_FILES} files")
                total += info.size
                if total > 4 * MAX_BUNDLE_BYTES:
                    raise BundleError("the bundle unpacks to more than 64 MiB")
                reader = tar.extractfile(info)
                members[info.name] = reader.read() if reader is not None else b""
    except (tarfile.TarError, OSError, EOFError) as error:
        raise BundleError(f"the bundle is not a gzipped tar archive: {error}") from error
    manifest_bytes, signature_bytes = members.pop(MANIFEST, None), members.pop(SIGNATURES, None)
    if manifest_bytes is None or signature_bytes is None:
        raise BundleError(f"the bundle has no {MANIFEST if manifest_bytes is None else SIGNATURES}")
    try:
        signatures = json.loads(signature_bytes)["signatures"]
        offered = [(str(s["keyid"]), str(s["alg"]), base64.b64decode(s["sig"], validate=True)) for s in signatures]
    except (ValueError, KeyError, TypeError) as error:
        raise BundleError(f"the bundle's {SIGNATURES} is unreadable: {error}") from error
    signed_by = None
    for keyid, algorithm, signature in offered:
        key = keys.get(keyid)
        if key is None or algorithm != "ed25519":
            continue
        try:
            key.verify(signature, SIGNED_PREFIX + manifest_bytes)
            signed_by = keyid
            break
        except InvalidSignature:
            continue
    if signed_by is None:
        names = ", ".join(keyid for keyid, _, _ in offered) or "none"
        raise BundleError(f"no signature of the bundle verifies under a trusted key (signed by: {names}; "
                          f"trusted: {', '.join(keys) or 'none'})")
    try:
        manifest = json.loads(manifest_bytes)
        if manifest.get("format") != FORMAT:
            raise BundleError(f"the bundle's format is {manifest.get('format')!r}; this agentsfence reads format {FORMAT}")
        listed = {str(name): str(digest) for name, digest in manifest["files"].items()}
        revision, created, compiler = str(manifest["revision"]), float(manifest["created"]), manifest.get("compiler")
        if manifest.get("entry") != SOURCES + ENTRY:
            raise BundleError(f"the bundle's entry is {manifest.get('entry')!r}, not {SOURCES + ENTRY}")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise BundleError(f"the bundle's {MANIFEST} is unreadable: {error}") from error
    for name in listed:
        _check_name(name)
    if set(listed) != set(members):
        extra, missing = sorted(set(members) - set(listed)), sorted(set(listed) - set(members))
        raise BundleError(f"the bundle's files are not the ones its manifest lists (unlisted: {extra or 'none'}; "
                          f"missing: {missing or 'none'})")
    for name, content in members.items():
        if hashlib.sha256(content).hexdigest() != listed[name]:
            raise BundleError(f"the bundle's {name} does not have the hash its signed manifest names")
    if SOURCES + ENTRY not in members:
        raise BundleError(f"the bundle has no {SOURCES + ENTRY}")
    return Bundle(revision, created, compiler if isinstance(compiler, str) else None, signed_by, members,
                  hashlib.sha256(archive).hexdigest(), hashlib.sha256(manifest_bytes).hexdigest())


def policy_of(bundle: Bundle) -> bytes:
    """The bundle's bytecode, checked by the evaluator: its own policy.afb when this host's
    compiler made it, else its sources compiled here. BundleError when they do not compile or the
    evaluator rejects the policy."""
    from .evaluator import Evaluator
    from .jsengine import compiler_digest, run

    bytecode = bundle.files.get(BYTECODE)
    if bytecode is None or bundle.compiler != compiler_digest():
        with tempfile.TemporaryDirectory(prefix="agentsfence-bundle-") as scratch:
            root = Path(scratch)
            for name, content in bundle.files.items():
                if name.startswith(SOURCES):
                    target = root / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(content)
            done = run([str(root / SOURCES / ENTRY), "-o", str(root / BYTECODE)])
            if done.status != 0 or not (root / BYTECODE).is_file():
                detail = (done.stderr or done.stdout).replace(str(root) + "/", "").strip()
                raise BundleError(f"the bundle's policy does not compile:\n{detail}")
            bytecode = (root / BYTECODE).read_bytes()
    try:
        Evaluator(bytecode, sandbox=False)
    except FenceError as error:
        raise BundleError(f"the evaluator rejects the bundle's policy: {error}") from error
    return bytecode


# ---- the high-water mark: the newest bundle this host accepted ----

@dataclass(frozen=True)
class Mark:
    created: float
    revision: str
    manifest_sha256: str
    url: str

    def describe(self) -> str:
        return f"revision {self.revision}, made {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(self.created))}"


def read_mark(state_dir: Path) -> Mark | None:
    """The mark, or None when no bundle was ever accepted (or it was reset); BundleError when the
    file is there but unreadable: then no bundle can be proved new enough, and none is taken."""
    path = Path(state_dir) / MARK
    try:
        fields = json.loads(path.read_bytes())
        return Mark(float(fields["created"]), str(fields["revision"]), str(fields["manifest_sha256"]), str(fields["url"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BundleError(f"the record of the newest policy bundle this host accepted, {path}, is unreadable ({error}): "
                          "no bundle can be shown not to be older, so none is taken; once the host is checked, "
                          "`agentsfence bundle reset` clears it") from error


def write_mark(state_dir: Path, bundle: Bundle, url: str) -> None:
    """The mark raised to `bundle`, on disk (synced) when this returns; OSError when it cannot be."""
    mark = {"created": bundle.created, "revision": bundle.revision, "manifest_sha256": bundle.manifest_sha256,
            "url": url, "accepted": round(time.time(), 3)}
    Path(state_dir).mkdir(mode=0o700, parents=True, exist_ok=True)
    _write_atomically(Path(state_dir) / MARK, (json.dumps(mark, indent=1) + "\n").encode())


def reset(state_dir: Path) -> str:
    """Clears the mark (and the memory of a refused bundle): the next good bundle is taken however
    old. Recorded in the audit log with the mark it cleared; what was cleared, as text."""
    from .audit import AuditLog

    state_dir = Path(state_dir)
    path = state_dir / MARK
    try:
        cleared = path.read_text(encoding="utf-8", errors="replace").strip()
    except FileNotFoundError:
        cleared = ""
    except OSError as error:
        raise BundleError(f"cannot read {path}: {error.strerror or error}") from error
    try:
        path.unlink(missing_ok=True)
        (state_dir / "bundle" / REFUSED).unlink(missing_ok=True)
    except OSError as error:
        raise BundleError(f"cannot remove {path}: {error.strerror or error}") from error
    log = AuditLog(state_dir / "audit.jsonl")
    try:
        log.event("bundle_reset", "", "", mark=cleared, why="agentsfence bundle reset: bundles older than the mark are taken again")
    finally:
        log.close()
    return cleared


# ---- the source of a home's policy ----

class _Connection(http.client.HTTPSConnection):
    """An HTTPS connection whose reads another thread can cut off: it keeps the sockets it opens
    (the response still reads one after the connection lets go of it)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.expired = threading.Event()
        self._opened: list[socket.socket] = []
        self._create_connection = self._open  # http.client's hook for the TCP socket: cut off during TLS too

    def _open(self, *args: Any, **kwargs: Any) -> socket.socket:
        opened = socket.create_connection(*args, **kwargs)
        self._opened.append(opened)
        if self.expired.is_set():
            self.cut_off()
        return opened

    def connect(self) -> None:
        super().connect()
        self._opened.append(self.sock)  # the TLS socket: the TCP one's descriptor, moved into it

    def cut_off(self) -> None:
        self.expired.set()
        for opened in self._opened:
            try:  # the socket's own shutdown (not TLS's): a read blocked in another thread returns at once
                socket.socket.shutdown(opened, socket.SHUT_RDWR)
            except OSError:
                pass  # closed already


def policy_source(state_dir: Path, settings: Settings, fetch_first: bool = False) -> PolicyFiles | BundleSource:
    """Where a home's policy comes from: the signed bundle its settings name, in place of the state
    folder's files; else those files (installed.PolicyFiles). Both answer current() and changed().
    fetch_first: a home that has never kept a bundle fetches one before its first current()."""
    return BundleSource(state_dir, settings, fetch_first) if settings.bundle_url else PolicyFiles(state_dir)


class BundleSource:
    """The policy of a home that takes it from a bundle URL: installed.PolicyFiles' counterpart."""

    def __init__(self, state_dir: Path, settings: Settings, fetch_first: bool = False):
        """fetch_first: when no bundle was ever kept, the first current() fetches one (at start,
        before any decision: else a new host blocks its first turns until the poller's fetch lands)."""
        self.state_dir = Path(state_dir)
        self._fetch_first = fetch_first
        self.folder = self.state_dir / "bundle"
        self.url = settings.bundle_url
        self.poll_seconds = settings.bundle_poll
        self.ca_file = settings.bundle_ca or None
        self._key_specs = settings.bundle_keys
        self._lock = threading.Lock()
        self._poll_lock = threading.Lock()
        self._polls = 0
        self._current: Installed | None = None
        self._pending: Installed | None = None
        self._newest: Bundle | None = None  # the newest good bundle: in force, or waiting for the next turn
        self._etag = ""  # of the last bundle seen, good or refused: If-None-Match
        self._refused = ""  # the SHA-256 of the last refused bundle: the same bytes are not refused again
        self._unreachable = ""  # the last fetch error logged, so a server that stays down is logged once
        self._unrecorded: list[tuple[tuple[Any, ...], dict[str, Any]]] = []  # refusals before start() gave the audit log
        self._record: Callable[..., None] = lambda *args, **details: self._unrecorded.append((args, details))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def archive(self) -> Path:
        return self.folder / "bundle.tar.gz"

    @property
    def state_file(self) -> Path:
        return self.folder / "bundle.json"

    def current(self) -> Installed:
        """The policy in force: a newly fetched good bundle once changed() said so, else the one
        already in force, else the last good one on disk (checked again)."""
        with self._lock:
            first = self._pending is None and self._current is None
            if first:
                self._current = self._load_kept()
        if first and self._current.error is not None and self._fetch_first:
            self.poll()
            if self._pending is None and self._unreachable:
                logger.error("AgentsFence: no policy bundle at start; every call is blocked: %s", self._unreachable)
                with self._lock:
                    self._current = Installed(None, self.url, error=f"{self._current.error} (the fetch at start failed: "
                                                                      f"{self._unreachable})")
        with self._lock:
            if self._pending is not None:
                self._current, self._pending = self._pending, None
            return self._current

    def changed(self) -> bool:
        """Whether the poller has a new good bundle to put in place: no I/O."""
        return self._pending is not None

    def status(self) -> dict[str, Any]:
        """What `hermes fence status` shows of the bundle in force."""
        try:
            kept = json.loads(self.state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = {}
        return {"url": self.url, **{k: kept.get(k) for k in ("revision", "keyid", "fetched", "sha256")}}

    def _load_kept(self) -> Installed:
        self._recall_refused()
        try:
            mark = read_mark(self.state_dir)
        except BundleError as error:
            logger.error("AgentsFence: %s", error)
            return Installed(None, self.url, error=f"{error}; every call is blocked until then")
        try:
            archive = self.archive.read_bytes()
        except FileNotFoundError:
            if mark is None:
                return Installed(None, self.url, error=f"no good policy bundle has been fetched from {self.url} yet; "
                                                         "every call is blocked until one is")
            return self._below(mark, f"the kept policy bundle {self.archive} is missing")
        except OSError as error:
            return self._below(mark, f"the kept policy bundle {self.archive} is unreadable: {error}")
        try:
            bundle = open_bundle(archive, load_public_keys(self._key_specs))
            if mark is not None and bundle.created < mark.created:
                raise BundleError(f"it (revision {bundle.revision}) was made before the newest bundle this host accepted")
            bytecode = policy_of(bundle)
        except FenceError as error:
            logger.error("AgentsFence: the kept policy bundle %s is refused: %s", self.archive, error)
            return self._below(mark, f"the kept policy bundle {self.archive} is refused: {error}")
        if mark is None or bundle.created > mark.created:  # kept before this host recorded a mark
            try:
                write_mark(self.state_dir, bundle, self.url)
            except OSError as error:
                logger.error("AgentsFence: the newest accepted bundle cannot be recorded in %s (%s)",
                             self.state_dir / MARK, error.strerror or error)
        try:
            self._etag = self._etag or str(json.loads(self.state_file.read_text(encoding="utf-8")).get("etag") or "")
        except (OSError, ValueError, AttributeError):
            pass
        self._newest = bundle
        return Installed(bytecode, self._origin(bundle))

    def _below(self, mark: Mark | None, why: str) -> Installed:
        """No usable kept bundle: every call blocks, and the message says what would end that."""
        if mark is None:
            return Installed(None, self.url, error=f"{why}; every call is blocked until a good bundle is fetched")
        return Installed(None, self.url, error=(
            f"{why}. The newest bundle this host accepted is {mark.describe()}; no older one is taken, so every call is "
            f"blocked until a good bundle at least that new is fetched from {self.url}, or an operator who has checked "
            "the host runs `agentsfence bundle reset`"))

    def _recall_refused(self) -> None:
        """The last refused bundle, remembered across restarts while the same keys are trusted and
        the same compiler runs (under others it may be good, so it is fetched and judged again)."""
        try:
            refused = json.loads((self.folder / REFUSED).read_text(encoding="utf-8"))
            if refused["judged_under"] == self._judged_under():
                self._etag, self._refused = str(refused["etag"]), str(refused["sha256"])
        except (OSError, ValueError, KeyError, TypeError, FenceError):
            pass  # nothing remembered: at worst the refused bundle is fetched and refused once more

    def _judged_under(self) -> dict[str, Any]:
        from .jsengine import compiler_digest

        return {"keys": sorted(load_public_keys(self._key_specs)), "compiler": compiler_digest()}

    def _origin(self, bundle: Bundle) -> str:
        return f"bundle {bundle.revision} from {self.url}"

    # ---- polling ----

    def start(self, record: Callable[..., None]) -> None:
        """Polls the URL in a background thread from now on; `record(event, session, tool, **details)`
        writes an audit record (a refused bundle)."""
        self._record = record
        for args, details in self._unrecorded:
            record(*args, **details)
        self._unrecorded.clear()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="agentsfence-bundle", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        if self._polls:  # fetched at start: the next fetch is one interval away
            self._stop.wait(self.poll_seconds)
        while not self._stop.is_set():
            try:
                self.poll()
            except Exception as error:  # the poller must outlive any one fetch
                logger.error("AgentsFence: polling %s failed: %s: %s", self.url, type(error).__name__, error)
            self._stop.wait(self.poll_seconds)

    def poll(self) -> str:
        """One fetch: `unchanged` (a 304, or the same bytes), `fetched` (a good bundle is waiting
        for the next turn), `refused`, or `unreachable`. One at a time: a second waits, then asks
        with the first one's ETag."""
        if self._current is None:
            self.current()
        with self._poll_lock:
            self._polls += 1
            return self._poll()

    def _poll(self) -> str:
        try:
            status, etag, archive = self._fetch()
        except (OSError, http.client.HTTPException, ssl.SSLError, BundleError) as error:
            why = f"{type(error).__name__}: {error}"
            if why != self._unreachable:
                logger.warning("AgentsFence: the policy bundle at %s cannot be fetched (%s); the policy in force stays",
                               self.url, why)
            self._unreachable = why
            return "unreachable"
        self._unreachable = ""
        if status == 304:
            return "unchanged"
        sha256 = hashlib.sha256(archive).hexdigest()
        newest = self._newest
        if (newest is not None and sha256 == newest.sha256) or sha256 == self._refused:
            self._etag = etag
            return "unchanged"
        try:
            bundle = open_bundle(archive, load_public_keys(self._key_specs))
            # The mark on disk, re-read: a reset takes effect at the next poll. The newest bundle
            # in memory too: a mark lost while running does not lower what this process saw.
            try:
                mark = read_mark(self.state_dir)
            except BundleError as error:
                raise _HostFault(str(error)) from error
            floors = ([(mark.created, mark.describe())] if mark is not None else []) + \
                ([(newest.created, f"revision {newest.revision}")] if newest is not None else [])
            if floors and bundle.created < max(floors)[0]:
                raise BundleError(f"the bundle (revision {bundle.revision}) was made before the newest one this host "
                                  f"accepted ({max(floors)[1]}): an older bundle is not put back in place")
            bytecode = policy_of(bundle)
            try:
                write_mark(self.state_dir, bundle, self.url)  # durable before the bundle is used
            except OSError as error:
                raise _HostFault(f"the newest accepted bundle cannot be recorded in {self.state_dir / MARK} "
                                  f"({error.strerror or error}), and a bundle is taken only once it is") from error
        except FenceError as error:
            self._etag, self._refused = etag, sha256  # the same refused bundle is not fetched and refused again
            if not isinstance(error, _HostFault):  # a fault of this host's: judged again after a restart
                self._remember_refused(etag, sha256)
            logger.error("AgentsFence: the policy bundle from %s is refused, the policy in force stays: %s", self.url, error)
            try:
                self._record("bundle_refused", "", "", url=self.url, sha256=sha256, why=str(error))
            except Exception as audit_error:
                logger.error("AgentsFence: the refused bundle could not be recorded in the audit log: %s", audit_error)
            return "refused"
        self._keep(archive, bundle, etag)
        with self._lock:
            self._pending = Installed(bytecode, self._origin(bundle))
            self._newest = bundle
            self._etag, self._refused = etag, ""
        logger.info("AgentsFence: policy bundle %s from %s is good; it is put in place at the next turn",
                    bundle.revision, self.url)
        return "fetched"

    def _fetch(self) -> tuple[int, str, bytes]:
        """(status, ETag, body) of one GET; redirects are not followed (the URL is the one trusted).
        Cut off FETCH_DEADLINE seconds after it starts, wherever it is (TLS, headers, body)."""
        parts = urllib.parse.urlsplit(self.url)
        context = ssl.create_default_context(cafile=self.ca_file)
        connection = _Connection(parts.hostname or "", parts.port, timeout=min(FETCH_TIMEOUT, FETCH_DEADLINE), context=context)
        deadline = threading.Timer(FETCH_DEADLINE, connection.cut_off)
        deadline.daemon = True
        deadline.start()
        try:
            try:
                return self._get(connection, parts)
            finally:
                if connection.expired.is_set():  # whatever the cut-off made of the read (an error, a short body)
                    raise BundleError(f"the fetch did not finish within {FETCH_DEADLINE:g} seconds "
                                      "(a server that stalls or trickles): it was cut off")
        finally:
            deadline.cancel()
            connection.close()

    def _get(self, connection: http.client.HTTPSConnection, parts: urllib.parse.SplitResult) -> tuple[int, str, bytes]:
        headers = {"User-Agent": "agentsfence", "Accept": "application/gzip"}
        if self._etag:
            headers["If-None-Match"] = self._etag
        connection.request("GET", urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, "")), headers=headers)
        response = connection.getresponse()
        if response.status == 304:
            return 304, self._etag, b""
        if response.status != 200:
            raise BundleError(f"the server answered {response.status} {response.reason}")
        body = response.read(MAX_BUNDLE_BYTES + 1)
        if len(body) > MAX_BUNDLE_BYTES:
            raise BundleError(f"the bundle is larger than {MAX_BUNDLE_BYTES} bytes")
        return 200, response.getheader("ETag") or "", body

    def _remember_refused(self, etag: str, sha256: str) -> None:
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            _write_atomically(self.folder / REFUSED, (json.dumps({"etag": etag, "sha256": sha256, "judged_under": self._judged_under()},
                                                                 indent=1) + "\n").encode())
        except (OSError, FenceError) as error:
            logger.warning("AgentsFence: the refused bundle cannot be remembered in %s (%s); a restart fetches it again",
                           self.folder, error)

    def _keep(self, archive: bytes, bundle: Bundle, etag: str) -> None:
        """The good bundle on disk, for the next start; a disk that refuses is logged, and the
        bundle is used all the same."""
        state = {"url": self.url, "etag": etag, "revision": bundle.revision, "keyid": bundle.keyid,
                 "sha256": bundle.sha256, "fetched": round(time.time(), 3)}
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            _write_atomically(self.archive, archive)
            _write_atomically(self.state_file, (json.dumps(state, indent=1) + "\n").encode())
            (self.folder / REFUSED).unlink(missing_ok=True)
        except OSError as error:
            logger.warning("AgentsFence: the policy bundle cannot be kept in %s (%s); a restart will fetch it again",
                           self.folder, error.strerror or error)


# ---- `agentsfence bundle keygen|build|verify|reset` ----

def _keygen_command(options: Any) -> int:
    private, public = Path(f"{options.name}.pem"), Path(f"{options.name}.pub.pem")
    try:
        keyid = keygen(private, public)
    except FileExistsError:
        raise BundleError(f"{private} exists: a signing key is never overwritten")
    print(f"key {keyid}: private {private} (keep it off the hosts), public {public} (agentsfence.bundle_keys)")
    return 0


def _build_command(options: Any) -> int:
    archive = build(options.policy_dir, options.key, options.revision)
    options.output.write_bytes(archive)
    bundle = open_bundle(archive, {key_id(k.public_key()): k.public_key() for k in map(load_private_key, options.key)})
    print(f"{options.output}: revision {bundle.revision}, {len(bundle.files)} files, sha256 {bundle.sha256}")
    return 0


def _verify_command(options: Any) -> int:
    try:
        bundle = open_bundle(options.bundle.read_bytes(), load_public_keys([str(k) for k in options.key]))
        policy_of(bundle)
    except OSError as error:
        raise BundleError(f"cannot read {options.bundle}: {error.strerror or error}") from error
    print(f"ok: revision {bundle.revision}, signed by {bundle.keyid}, made "
          f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(bundle.created))}; its policy compiles and the evaluator accepts it")
    for name in sorted(bundle.files):
        print(f"  {name}")
    return 0


def _reset_command(options: Any) -> int:
    if options.state is not None:
        folder = Path(options.state)
    else:
        from .layout import hermes_state

        folder = hermes_state().path
    cleared = reset(folder)
    if cleared:
        print(f"cleared the newest accepted bundle of {folder} (recorded in its audit log as bundle_reset):\n{cleared}\n"
              "the next good bundle fetched is taken however old, from the next start of Hermes on")
    else:
        print(f"{folder} had no record of an accepted bundle; the reset is recorded in its audit log")
    return 0


def add_cli(commands: Any) -> None:
    """Adds `bundle keygen|build|verify|reset` to a subparsers object."""
    parser = commands.add_parser("bundle", help="make and check signed policy bundles",
                                 description="Signed policy bundles, served over HTTPS to every host (docs/operators.md).")
    actions = parser.add_subparsers(dest="bundle_command", required=True, metavar="ACTION")
    keys = actions.add_parser("keygen", help="make an Ed25519 signing key pair",
                              description="Writes NAME.pem (the private key, mode 600) and NAME.pub.pem (the public key).")
    keys.add_argument("name", metavar="NAME", help="the files' name, without .pem")
    keys.set_defaults(run=_keygen_command, passes_on=False)
    build_ = actions.add_parser("build", help="compile a policy folder and sign it",
                                description="Compiles POLICY_DIR/policy.yaml and packs it, its bytecode and every file it "
                                            "extends in POLICY_DIR into a bundle signed by each --key.")
    build_.add_argument("policy_dir", type=Path, metavar="POLICY_DIR")
    build_.add_argument("--key", type=Path, action="append", required=True, metavar="KEY.pem",
                        help="a private signing key (repeat to sign with several, e.g. while rotating keys)")
    build_.add_argument("-o", "--output", type=Path, required=True, metavar="BUNDLE.tar.gz")
    build_.add_argument("--revision", metavar="TEXT", help="the revision hosts show (default: a digest of the files)")
    build_.set_defaults(run=_build_command, passes_on=False)
    verify = actions.add_parser("verify", help="check a bundle as a host would",
                                description="Exit status 0 when the bundle is good under the given public keys: signed, "
                                            "whole, compiling, accepted by the evaluator; 1 with the reason otherwise.")
    verify.add_argument("bundle", type=Path, metavar="BUNDLE.tar.gz")
    verify.add_argument("--key", type=Path, action="append", required=True, metavar="KEY.pub.pem",
                        help="a trusted public key (repeat for several)")
    verify.set_defaults(run=_verify_command, passes_on=False)
    reset_ = actions.add_parser("reset", help="let this host take an older bundle again",
                                description="A host refuses any bundle made before the newest one it accepted, whatever "
                                            "became of the kept bundle or the trusted keys. Reset clears that record "
                                            "(and the memory of a refused bundle), deliberately, with a bundle_reset "
                                            "audit record: the next good bundle fetched is taken however old.")
    reset_.add_argument("--state", type=Path, metavar="DIR",
                        help="the state folder; default: $HERMES_HOME/agentsfence")
    reset_.set_defaults(run=_reset_command, passes_on=False)
