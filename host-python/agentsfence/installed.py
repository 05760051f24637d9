"""The installed policy of a state directory ($HERMES_HOME/agentsfence for the Hermes plugin).

In order: `policy.yaml` (with the files it extends), compiled in this process and cached by the
content hash of its sources; else `policy.afb`, compiled by hand; else the shipped default. The
learned rules (`rules.yaml`, agentsfence/rules.py) are compiled ahead of policy.yaml or the
shipped policy, when the file holds usable rules; a hand-compiled policy.afb cannot take them.

The cache is `compiled/` beside it: `compiled/policy.json` names the sources the compiler read
(each with the SHA-256 of its content, or `absent` for a file it looked for and did not find),
the digest of the compiler bundle, and the cache key made of them all; `compiled/<key>.afb` is
the bytecode. An entry is used only when every source still has the content it names and the
bytecode has the digest it names; anything else (an edited source, another compiler, a
manifest or bytecode that does not read back) compiles the policy again, and the cache is
rewritten, each file written whole then renamed into place. A cache that cannot be written
(a read-only disk) is logged and the compiled policy is used all the same.

A policy that does not compile is no policy: `Installed.error` says why, with the
`FILE:LINE:COL: error:` lines of the compiler, and the plugin blocks every call with it until
the file compiles. `PolicyFiles.changed()` looks at the files' metadata only (a stat of each),
so the plugin asks it at every user turn and a running gateway takes up an edit at the next one.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from .data import path as data_path
from .errors import FenceError
from .layout import StateFolder
from .rules import RulesError, read_rules, rules_path

logger = logging.getLogger("agentsfence")

MANIFEST = "policy.json"  # in the cache folder (layout.StateFolder.compiled)
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class Installed:
    """The policy of a state directory: bytecode (None: the shipped default), where it came from,
    and, for a policy.yaml that does not compile, why (then bytecode is None and nothing may run)."""

    bytecode: bytes | None
    origin: str
    error: str | None = None
    cached: bool = False
    learned_error: str | None = None  # why the learned rules are not in force (their calls are asked)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.bytecode).hexdigest() if self.bytecode is not None else ""


def _stat_key(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _key(compiler: str, files: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> str:
    h = hashlib.sha256(f"agentsfence-policy-cache {MANIFEST_VERSION}\n{compiler}\n".encode())
    for path, found in sorted(files):
        h.update(f"{path}\t{found}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _write_atomically(path: Path, content: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


class PolicyFiles:
    """Finds, compiles and caches the policy of one state directory; thread-safe."""

    def __init__(self, state_dir: Path):
        self.state_dir = Path(state_dir)
        folder = StateFolder(self.state_dir)
        self.yaml = folder.policy_yaml
        self.afb = folder.policy_afb
        self.cache = folder.compiled
        self.rules = rules_path(self.state_dir)
        self._lock = threading.Lock()
        self._watched: dict[str, tuple[int, int, int, int] | None] = {}
        self._failed: tuple[str, Installed] | None = None  # the cache key of the last failed compile, and its result

    # ---- what is installed ----

    def current(self) -> Installed:
        """The installed policy, compiled (or read from the cache) as needed."""
        with self._lock:
            installed, watched = self._resolve()
            self._watched = {path: _stat_key(path) for path in watched}
            return installed

    def changed(self) -> bool:
        """Whether any file the installed policy came from (or would come from) changed since
        the last current(): a stat of each, no reads."""
        with self._lock:
            return any(_stat_key(path) != before for path, before in self._watched.items())

    def _resolve(self) -> tuple[Installed, list[str]]:
        watched = [str(self.yaml), str(self.afb), str(self.rules)]
        learned, learned_error = self._learned()
        if self.yaml.exists() or (learned and not self.afb.exists()):
            base = self.yaml if self.yaml.exists() else data_path("defaults.yaml")
            origin = str(self.yaml) if self.yaml.exists() else "the shipped default"
            inputs = [str(self.rules), str(base)] if learned else [str(base)]
            installed, sources = self._from_yaml(inputs, origin + (f" with the learned rules of {self.rules}" if learned else ""))
            return replace(installed, learned_error=learned_error), watched + [path for path in sources if path not in watched]
        if learned:
            learned_error = (f"the policy is {self.afb}, compiled by hand, which cannot take the learned rules of "
                             f"{self.rules}; install it as policy.yaml to use them")
        if self.afb.exists():
            try:
                return Installed(self.afb.read_bytes(), str(self.afb), learned_error=learned_error), watched
            except OSError as error:
                raise FenceError(f"cannot read the policy at {self.afb}: {error.strerror or error}") from error
        return Installed(None, "the shipped default", learned_error=learned_error), watched

    def _learned(self) -> tuple[bool, str | None]:
        """Whether rules.yaml holds rules to compile, and why not when it cannot be used: such a
        file is left out (its calls are asked about) and left as it is."""
        try:
            return bool(read_rules(self.rules)), None
        except RulesError as error:
            logger.error("AgentsFence: the learned rules are not in force: %s", error)
            return False, str(error)

    # ---- policy.yaml ----

    def _from_yaml(self, inputs: list[str], origin: str) -> tuple[Installed, list[str]]:
        """`inputs` compiled as one policy (merged in order), or read from the cache."""
        from .jsengine import compiler_digest, fingerprint

        compiler = compiler_digest()
        manifest = self._read_manifest()
        if manifest is not None and manifest.get("compiler") == compiler and manifest.get("inputs") == inputs:
            sources = [(str(p), str(f)) for p, f in manifest["sources"]]
            current = [(path, fingerprint(path)) for path, _ in sources]
            if current == sources and _key(compiler, current) == manifest["key"]:
                bytecode = self._read_cached(manifest)
                if bytecode is not None:
                    return Installed(bytecode, origin, cached=True), [p for p, _ in sources]
        if self._failed is not None:
            failed_key, failure = self._failed
            sources = json.loads(failed_key)
            if failure.origin == origin and [(p, fingerprint(p)) for p, _ in sources] == [tuple(s) for s in sources]:
                return failure, [p for p, _ in sources]  # the same files that failed: not compiled again
        return self._compile(compiler, inputs, origin)

    def _compile(self, compiler: str, inputs: list[str], origin: str) -> tuple[Installed, list[str]]:
        from .jsengine import run

        with tempfile.TemporaryDirectory(prefix="agentsfence-") as scratch:
            target = Path(scratch) / "policy.afb"
            done = run([*inputs, "-o", str(target)])
            bytecode = target.read_bytes() if done.status == 0 and target.is_file() else None
        sources = [(path, found) for path, found in done.files]
        paths = [path for path, _ in sources]
        if bytecode is None:
            detail = (done.stderr or done.stdout).strip() or f"exit status {done.status}"
            errors = [line for line in detail.splitlines() if ": error: " in line] or [detail]
            failure = Installed(None, origin, error=f"{origin} does not compile:\n" + "\n".join(errors))
            self._failed = (json.dumps(sources), failure)
            logger.error("AgentsFence: %s", failure.error)
            return failure, paths
        self._failed = None
        self._write_cache(compiler, inputs, sources, bytecode)
        return Installed(bytecode, origin), paths

    def _read_manifest(self) -> dict | None:
        path = self.cache / MANIFEST
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            if (not isinstance(manifest, dict) or manifest.get("version") != MANIFEST_VERSION
                    or not isinstance(manifest.get("key"), str) or not isinstance(manifest.get("sha256"), str)
                    or not all(isinstance(s, list) and len(s) == 2 for s in manifest.get("sources", None))):
                raise ValueError("fields missing or of the wrong type")
            return manifest
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as error:
            logger.warning("AgentsFence: the policy cache %s is unreadable (%s); compiling %s again", path, error, self.yaml)
            return None

    def _read_cached(self, manifest: dict) -> bytes | None:
        path = self.cache / f"{manifest['key']}.afb"
        try:
            bytecode = path.read_bytes()
        except OSError as error:
            logger.warning("AgentsFence: the cached policy %s is unreadable (%s); compiling %s again", path, error, self.yaml)
            return None
        if hashlib.sha256(bytecode).hexdigest() != manifest["sha256"]:
            logger.warning("AgentsFence: the cached policy %s does not have the digest its manifest names; "
                           "compiling %s again", path, self.yaml)
            return None
        return bytecode

    def _write_cache(self, compiler: str, inputs: list[str], sources: list[tuple[str, str]], bytecode: bytes) -> None:
        key = _key(compiler, sources)
        manifest = {"version": MANIFEST_VERSION, "compiler": compiler, "inputs": inputs, "key": key,
                    "sha256": hashlib.sha256(bytecode).hexdigest(), "sources": [list(s) for s in sources]}
        try:
            self.cache.mkdir(mode=0o700, parents=True, exist_ok=True)
            _write_atomically(self.cache / f"{key}.afb", bytecode)
            _write_atomically(self.cache / MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode("utf-8"))
            for old in self.cache.glob("*.afb"):
                if old.name != f"{key}.afb":
                    old.unlink(missing_ok=True)
        except OSError as error:
            logger.warning("AgentsFence: the compiled policy cannot be cached in %s (%s); it is used uncached",
                           self.cache, error.strerror or error)

    def forget_cache(self) -> None:
        """Drops the cached bytecode (the evaluator rejected it): the next current() compiles."""
        with self._lock:
            try:
                (self.cache / MANIFEST).unlink(missing_ok=True)
            except OSError as error:
                logger.warning("AgentsFence: cannot remove %s: %s", self.cache / MANIFEST, error)
            self._failed = None


@dataclass(frozen=True)
class InUse:
    """The policy a command of this package decides with: what `Fence()` takes, and in words
    where it came from."""

    policy: bytes | str | None
    origin: str


def policy_in_use(given: str | os.PathLike[str] | None, profile: str | None = None) -> InUse:
    """`given` (a .yaml or .afb) when there is one; else the policy Hermes would use, from the
    state folder of the home Hermes runs in (layout.use_hermes_profile): policy.yaml, policy.afb
    or the shipped default. A policy.yaml that does not compile is an error, as it is to Hermes,
    which blocks every call until it does."""
    from .layout import hermes_state, use_hermes_profile

    if given is not None:
        return InUse(str(given), f"{given} (given with --policy)")
    home = use_hermes_profile(profile)
    installed = PolicyFiles(hermes_state(home).path).current()
    if installed.error is not None:
        raise FenceError(f"{installed.error}\nHermes blocks every tool call until it compiles; "
                         "fix it, or decide with another policy: --policy FILE")
    return InUse(installed.bytecode, f"{installed.origin}, which Hermes uses (HERMES_HOME {home})")
