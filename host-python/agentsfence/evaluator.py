"""The evaluator's lifecycle: fence.wasm instantiated with one policy, configured, and rebuilt
after a fault or for another policy with everything the old instance was told.

A trap can leave an instance's memory torn, so a fault is never patched up: a fresh instance
is made (`_recover`) and told again, in order, what the old one learned: the tools `describe`
classified, and per session (`SessionLog`) its user messages with the directory each was read
in, its narrowings and its budget counts. `Evaluator` is the base of `api.Fence`, whose public
methods each make one call into the instance under `_lock`; the methods here expect that lock
held.
"""
from __future__ import annotations

import os
import sys
import threading
from decimal import Decimal
from pathlib import Path
from typing import Iterable, Literal

import wasmtime

from . import data
from ._abi import CONFIGURE_FOLD_CASE, CONFIGURE_NO_SANDBOX
from .cache import DecisionCache
from .codec import parse_budgets, restore_lines
from .engine import DEFAULT_MEMORY_LIMIT, EngineFault, InputTooLarge, WasmInstance, default_cache_dir, load_module
from .errors import FenceError

CLOSED = -1  # handle of a dropped session


class SessionLog:
    """One session as the instance knows it: its handle, and what a rebuilt instance must be told
    again (its user messages with their directories, its narrowings). A fault set here (a message
    or the budget counts were lost) makes every call of the session block. api.Session adds the
    public methods."""

    __slots__ = ("id", "_handle", "_messages", "_narrowings", "_fault")  # no dict per session

    def __init__(self, session_id: str, handle: int):
        self.id = session_id
        self._handle = handle
        # Each message and the cwd it was read in, one after another, replayed into a rebuilt
        # evaluator: one tuple per session, not a list and a tuple per message.
        self._messages: tuple[bytes | str, ...] = ()
        self._narrowings: tuple[bytes, ...] = ()  # narrow's lines, replayed after the messages (rare: no list per session)
        self._fault: str | None = None  # set when a message or the budget counts were lost: then every call blocks


class Evaluator:
    """fence.wasm with one policy installed, and what it takes to make it again. Not thread-safe
    by itself: its owner holds `_lock` around every call."""

    def __init__(
        self,
        policy: bytes | str | os.PathLike[str] | None = None,
        *,
        wasm: bytes | str | os.PathLike[str] | None = None,
        raw_calls: bool = True,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        cache_dir: Path | Literal[False] | None = None,
        home: str | None = None,
        cwd: str | None = None,
        hermes_homes: Iterable[str] = (),
        fold_case: bool | None = None,
        sandbox: bool = True,
    ):
        """policy: None (the shipped default), the bytecode itself, or a path to a .afb or a .yaml
        (compiled in this process: agentsfence/compiler.py). wasm: the evaluator (default: the
        shipped fence.wasm). cache_dir: where compiled modules are kept when the package ships
        none for this host (None:
        $AGENTSFENCE_CACHE or $XDG_CACHE_HOME/agentsfence; False: compile every time). home, cwd:
        what `~` and relative paths mean to the evaluator (default: this user's home and the
        process's working directory; cwd "": unknown, a relative path may be anywhere). hermes_homes: the folders a policy's `$HERMES_HOME` stands
        for, HERMES_HOME first, then the root whose profiles/<name> are homes too (default:
        `~/.hermes`). fold_case: whether paths compare ASCII case aside (default: on macOS and
        Windows, whose file systems do). sandbox: whether the host runs `confine` decisions in the
        task's sandbox (agentsfence.sandbox); False turns every confine into an ask."""
        self._policy = policy_bytes(policy)
        wasm_bytes = _read(wasm if wasm is not None else data.path("fence.wasm"), "fence.wasm")
        try:
            # The package's precompiled module is for the package's fence.wasm alone.
            self._module, self.module_source = load_module(wasm_bytes, default_cache_dir() if cache_dir is None else cache_dir or None,
                                                           data.DATA_DIR if wasm is None else None)
        except wasmtime.WasmtimeError as error:
            raise FenceError(f"fence.wasm is not a valid WebAssembly module: {error}") from error
        self._raw_calls = raw_calls
        self._memory_limit = memory_limit
        self._home = home if home is not None else os.path.expanduser("~")
        self._cwd = cwd if cwd is not None else os.getcwd()
        self._hermes_homes = "\n".join(hermes_homes).encode("utf-8")
        # macOS and Windows compare file names case aside: so does the evaluator there (§6.5).
        self._fold_case = CONFIGURE_FOLD_CASE if (fold_case if fold_case is not None else sys.platform in ("darwin", "win32")) else 0
        self._no_sandbox = 0 if sandbox else CONFIGURE_NO_SANDBOX
        self._configured_cwd = self._cwd
        self._lock = threading.Lock()
        self._sessions: dict[str, SessionLog] = {}
        self._described: dict[str, tuple[tuple[int, ...], bytes]] = {}  # name -> (lengths, payload), replayed
        self._decisions = DecisionCache()
        self._broken: str | None = None
        self.rebuilds = 0
        try:
            self._wasm, self.policy_name, self.policy_hash = self._instantiate()
        except EngineFault as fault:
            raise FenceError(f"fence.wasm cannot run: {fault}") from fault

    def _instantiate(self) -> tuple[WasmInstance, str, str]:
        wasm = WasmInstance(self._module, memory_limit=self._memory_limit, raw_calls=self._raw_calls)
        record = wasm.invoke("load", (len(self._policy),), self._policy)
        if record[:1] != b"\x00":
            raise FenceError(f"policy rejected: {record[1:].decode('utf-8', 'replace')}")
        name, _, digest = record[1:].decode("utf-8").partition("\t")
        failure = self._configure(wasm, self._cwd)
        if failure is not None:
            raise FenceError(f"cannot configure home {self._home!r} and working directory {self._cwd!r}: {failure}")
        return wasm, name, digest

    def _configure(self, wasm: WasmInstance, cwd: str) -> str | None:
        """Tells the evaluator what `~` and relative paths mean; the evaluator's reason on failure."""
        home, directory, hermes = self._home.encode("utf-8"), cwd.encode("utf-8"), self._hermes_homes
        record = wasm.invoke("configure", (len(home), len(directory), len(hermes), self._fold_case | self._no_sandbox),
                             home + directory + hermes)
        if record[:1] != b"\x00":
            return record[1:].decode("utf-8", "replace")
        self._configured_cwd = cwd
        return None

    def _rebuild(self) -> None:
        """A fresh instance carrying everything the old one was told: a trap can leave wasm state torn.
        Budget counters are read from the old instance (they change in a few stores after a
        decision is made, never during one, so the trap left them whole) and its open
        reservations are counted as spent: the calls may have run, and their ids mean nothing to
        the new instance. A session whose counters cannot be read blocks every call."""
        spent = {name: self._spent_in_old(session) for name, session in self._sessions.items()}
        wasm, self.policy_name, self.policy_hash = self._instantiate()
        for lengths, payload in self._described.values():
            wasm.invoke("describe", lengths, payload)
        for name, session in self._sessions.items():
            session._handle = wasm.call_plain("session_open", ())
            if session._handle == 0:
                raise EngineFault("a live session could not be reopened")
            for message, cwd in zip(session._messages[::2], session._messages[1::2]):
                if cwd != self._configured_cwd and self._configure(wasm, cwd) is not None:
                    raise EngineFault(f"cannot configure {cwd!r} again")
                wasm.invoke("intent", (session._handle, len(message)), message)
            for narrowing in session._narrowings:
                wasm.invoke("narrow", (session._handle, len(narrowing)), narrowing)
            lines = restore_lines(spent[name] or {})
            if lines and wasm.invoke("budget_restore", (session._handle, len(lines)), lines)[:1] != b"\x00":
                raise EngineFault(f"the budget counts of session {name!r} could not be restored")
        self._wasm = wasm
        self._decisions.clear()

    def _spent_in_old(self, session: SessionLog) -> dict[str, int | Decimal] | None:
        try:
            record = self._wasm.invoke("budgets", (session._handle,))
        except EngineFault as fault:
            session._fault = f"its budget counts were lost when the evaluator failed ({last_line(str(fault))})"
            return None
        if record[:1] != b"\x00":
            session._fault = "its budget counts were lost when the evaluator failed"
            return None
        return {b.id: b.spent + b.reserved for b in parse_budgets(record[1:])}

    def _recover(self, fault: EngineFault) -> None:
        self.rebuilds += 1
        try:
            self._rebuild()
        except (EngineFault, FenceError) as error:
            self._broken = f"{fault}; rebuilding failed: {error}"

    def _checked_invoke(self, export: str, args: tuple[int, ...], payload: bytes = b"") -> bytes:
        if self._broken is not None:
            raise FenceError(f"the evaluator is broken: {self._broken}")
        try:
            return self._wasm.invoke(export, args, payload)
        except InputTooLarge as error:
            raise FenceError(f"{export}: input of {error} bytes is over every limit") from error
        except EngineFault as fault:
            self._recover(fault)
            raise FenceError(f"{export}: the evaluator failed: {fault}") from fault

    def _status_call(self, export: str, args: tuple[int, ...], payload: bytes) -> tuple[int, str]:
        record = self._checked_invoke(export, args, payload)
        return record[0], record[1:].decode("utf-8", "replace")

    def _fails_open(self, tool_name: str) -> bool:
        if self._broken is not None:
            return False
        name = tool_name.encode("utf-8", "replace")
        try:
            return self._wasm.invoke("fail_mode", (len(name),), name)[:1] == b"\x01"
        except InputTooLarge:
            return False
        except EngineFault as fault:
            self._recover(fault)
            return False

    def _open_session(self) -> int:
        if self._broken is not None:
            raise FenceError(f"the evaluator is broken: {self._broken}")
        try:
            handle = self._wasm.call_plain("session_open", ())
        except EngineFault as fault:
            self._recover(fault)
            raise FenceError(f"session_open: the evaluator failed: {fault}") from fault
        if handle == 0:
            raise FenceError("no session can be opened: the policy's max_sessions are live")
        return handle


def require_live(session: SessionLog) -> None:
    if session._handle == CLOSED:
        raise FenceError(f"session {session.id!r} was dropped")


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else text


def _read(source: bytes | str | os.PathLike[str], what: str) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    try:
        return Path(source).read_bytes()
    except OSError as error:
        raise FenceError(f"cannot read {what} at {source}: {error.strerror or error}") from error


def policy_bytes(policy: bytes | str | os.PathLike[str] | None) -> bytes:
    if policy is None:
        return _read(data.path("default.afb"), "the shipped policy (default.afb)")
    if isinstance(policy, (bytes, bytearray)):
        return bytes(policy)
    if Path(policy).suffix.lower() in (".yaml", ".yml"):
        from .compiler import compile_policy

        return compile_policy([Path(policy)])
    return _read(policy, "the policy")
