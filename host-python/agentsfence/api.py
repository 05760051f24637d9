"""The Python face of the fence: Fence, Session, and the values they answer with (Decision,
Intent, Budget, ...).

Every decision is made by fence.wasm (docs/bytecode.md §8): a Fence marshals a call into the
evaluator's input buffer, calls one export, and reads the record back. What it decides on its
own is only what the evaluator cannot see: arguments that are not JSON, an input over every
limit, a trapped or broken evaluator. All of those block.

Beneath it: the instance's lifecycle (evaluator.py), the decision cache (cache.py), the bytes of
the calls and records (codec.py), and the values (records.py, intent.py), which are plain data.
"""
from __future__ import annotations

import os
from decimal import Decimal
from typing import Any

from .codec import (PATTERN_SUFFIX, SUBJECTS, TREE_SUFFIX, annotation_bits, encode_call, i32, parse_budgets, parse_decision,
                    parse_derivation, parse_profile, parse_trace, restore_lines)
from .engine import EngineFault, InputTooLarge
from .errors import FenceError
from .evaluator import CLOSED, Evaluator, SessionLog, last_line, policy_bytes, require_live
from .intent import NO_INTENT, Amendment, Binding, Intent, VerbUse, added_to, describe_intent
from .records import Budget, Decision, DecisionKind, Derivation, Trace, TraceStep, host_decision
from .sandbox.profile import SandboxProfile

__all__ = ["Amendment", "Binding", "Budget", "Decision", "DecisionKind", "Derivation", "Fence", "FenceError", "Intent",
           "PATTERN_SUFFIX", "SUBJECTS", "Session", "TREE_SUFFIX", "Trace", "TraceStep", "VerbUse", "annotation_bits",
           "describe_intent", "encode_call", "host_decision"]


class Session(SessionLog):
    """The intent of one conversation. Get it from `Fence.session`; one object per id."""

    __slots__ = ("_fence", "current_intent", "_amendments", "moved")  # no dict per session

    def __init__(self, fence: Fence, session_id: str, handle: int):
        super().__init__(session_id, handle)
        self._fence = fence
        self.current_intent = NO_INTENT
        self._amendments: list[Amendment] | None = None  # none until a later message widens the intent
        # An earlier call that may have run may have left the terminal in another directory
        # (Decision.moves): a call given no cwd then has relative paths that may be anywhere.
        # A host that saves sessions saves this too.
        self.moved = False

    @property
    def amendments(self) -> list[Amendment]:
        """What each later user message widened, in order."""
        return self._amendments if self._amendments is not None else []

    def intent(self, user_message: str, cwd: str | None = None) -> Intent:
        """Binds (or amends) this session's intent from the user's own message; relative paths
        in it resolve against cwd (default: the Fence's working directory)."""
        return self._fence._bind(self, user_message, cwd)

    def explain(self, tool_name: str, args: dict[str, Any]) -> Trace:
        """How the evaluator classified the call and which rules' tests ran, as it decided it."""
        return self._fence._explain(self, tool_name, args)

    def decide(self, tool_name: str, args: dict[str, Any], cwd: str | None = None) -> Decision:
        """cwd: the absolute directory this call's relative paths resolve against, when it is not
        the Fence's (the host's tools may track a working directory per task); without it, after a
        call that moved the terminal (`moved`), nowhere known. A decision with a reservation holds
        budget units until it is committed or released."""
        return self._fence._decide(self, tool_name, encode_call(tool_name, args), cwd)

    def decide_json(self, tool_name: str, arguments_json: bytes, cwd: str | None = None) -> Decision:
        """decide, for a host that has the arguments as JSON already (encode_call's text): the
        evaluator reads the same bytes, and text that is not a JSON object blocks."""
        if not isinstance(tool_name, str) or not isinstance(arguments_json, bytes):
            return host_decision(str(tool_name), "bad_arguments", "the call is not a tool name and the bytes of its JSON")
        try:
            name = tool_name.encode("utf-8")
        except UnicodeEncodeError:
            return host_decision(tool_name, "bad_arguments", "the call cannot be read: a string holds a lone surrogate")
        return self._fence._decide(self, tool_name, (name, arguments_json), cwd)

    def sandbox_profile(self, tool_name: str, args: dict[str, Any], cwd: str | None = None) -> SandboxProfile:
        """The sandbox a call decided `confine` runs in (the same tool_name, args and cwd as the
        decision). Raises FenceError when the call is not confined."""
        return self._fence._sandbox_profile(self, tool_name, args, cwd)

    def narrow(self, prohibit: list[str], ask: list[str]) -> Intent:
        """Narrows this session's intent (docs/bytecode.md §7.2): the capabilities (or globs) in
        `prohibit` are ruled out, those in `ask` are asked about where the policy would allow.
        Nothing can widen it. Replayed into a rebuilt evaluator like the user's messages."""
        return self._fence._narrow(self, prohibit, ask)

    def observe(self, tool_name: str, args: dict[str, Any], output: str) -> Derivation:
        """Hands the evaluator a call's output. When the user pointed at the call (its every
        target named in their own words, its class in the policy's derive_from), the targets the
        output names become derived items, which only `in_derived` conditions read. They live
        as long as this evaluator instance: a rebuilt one has none, which can only ask more."""
        return self._fence._derive(self, tool_name, args, output)

    def commit(self, reservation: int) -> bool:
        """The reserved call ran (ok or error): its units are spent. False when the reservation
        is unknown or already settled (nothing changed)."""
        return self._fence._settle(self, "commit", reservation)

    def release(self, reservation: int) -> bool:
        """The reserved call did not run: its units are free again. False as for commit."""
        return self._fence._settle(self, "release", reservation)

    def budgets(self) -> tuple[Budget, ...]:
        """The policy's budgets and what this session has spent and reserved of each."""
        return self._fence._budgets(self)

    def restore_budgets(self, spent: dict[str, int | str | Decimal]) -> None:
        """Raises spent counts (a resumed session's, by budget id: calls, or a budget of sums'
        decimal); ids the policy lacks are skipped."""
        self._fence._restore_budgets(self, spent)

    def set_budgets(self, spent: dict[str, int | str | Decimal]) -> None:
        """Sets spent counts to those given, lower or higher (0 too): what a store shared with
        other processes says every process spent. The session's open reservations stay."""
        self._fence._restore_budgets(self, spent, exact=True)


_CLASSIFY_BATCH = 16


class Fence(Evaluator):
    """fence.wasm with one policy installed (see Evaluator for the arguments). Thread-safe: one
    lock serializes evaluator calls."""

    def session(self, session_id: str) -> Session:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                session = Session(self, session_id, self._open_session())
                self._sessions[session_id] = session
            return session

    def drop_session(self, session_id: str) -> None:
        with self._lock:
            session = self._sessions.pop(session_id, None)
            if session is None or session._handle == CLOSED:
                return
            handle, session._handle = session._handle, CLOSED
            if self._broken is None:
                try:
                    self._wasm.call_plain("session_close", (handle,))
                except EngineFault as fault:
                    self._recover(fault)

    def install(self, policy: bytes | str | os.PathLike[str] | None) -> None:
        """Puts another policy in place (None: the shipped default), keeping every session: its
        messages, narrowings and budget counts are given to an evaluator with the new policy
        (calls still under way count as made, as after a trap). A policy the evaluator rejects
        raises FenceError and leaves the old one in place."""
        bytecode = policy_bytes(policy)
        with self._lock:
            previous = self._policy, self.policy_name, self.policy_hash
            self._policy = bytecode
            try:
                self._rebuild()
            except (EngineFault, FenceError) as error:
                self._policy, self.policy_name, self.policy_hash = previous
                raise FenceError(str(error)) from error
            finally:
                self._decisions.clear()

    def decide(self, tool_name: str, args: dict[str, Any], cwd: str | None = None) -> Decision:
        """Decides with an empty intent (handle 0): for calls that belong to no known session."""
        return self._decide(None, tool_name, encode_call(tool_name, args), cwd)

    def describe_tool(self, name: str, description: str, schema: dict[str, Any] | None = None, *,
                      server: str | None = None, annotations: Any = None) -> tuple[str, str]:
        """Classifies a tool the policy does not map from what its host knows of it: the MCP
        server it comes from (its own name then starts after `mcp__<server>__`, and the policy's
        `trusted_servers` are looked up), its description, the JSON schema of its parameters (an
        MCP tool's inputSchema) and the server's annotations (a mapping or an object with
        readOnlyHint, destructiveHint, openWorldHint); learns its parameters' roles.
        Returns (capability, risk)."""
        lengths, payload = self._describe_payload(name, description, schema, server, annotations)
        with self._lock:
            status, text = self._status_call("describe", lengths, payload)
            if status == 0:
                self._described[name] = (lengths, payload)
        if status != 0:
            raise FenceError(f"cannot describe tool {name!r}: {text}")
        capability, _, risk = text.partition("\n")[0].partition("\t")
        return capability, risk

    @staticmethod
    def _describe_payload(name: str, description: str, schema: dict[str, Any] | None, server: str | None,
                          annotations: Any) -> tuple[tuple[int, ...], bytes]:
        parts = [name.encode("utf-8"), description.encode("utf-8")]
        if schema is not None:
            encoded = encode_call(name, schema)
            if isinstance(encoded, str):
                raise FenceError(f"cannot describe tool {name!r}: its schema {encoded}")
            parts.append(encoded[1])
        else:
            parts.append(b"")
        parts.append((server or "").encode("utf-8"))
        return (*(len(part) for part in parts), annotation_bits(annotations)), b"".join(parts)

    def fails_open(self, tool_name: str) -> bool:
        """Whether the policy lets this tool's calls run when deciding them failed (its risk class
        is in the policy's fail_open). False whenever the evaluator cannot answer."""
        with self._lock:
            return self._fails_open(tool_name)

    def _explain(self, session: Session, tool_name: str, args: dict[str, Any]) -> Trace:
        encoded = encode_call(tool_name, args)
        if isinstance(encoded, str):
            raise FenceError(encoded)
        name, arguments = encoded
        with self._lock:
            status, text = self._status_call("explain", (session._handle, len(name), len(arguments)), name + arguments)
        if status != 0:
            raise FenceError(f"cannot explain {tool_name!r}: {text}")
        return parse_trace(text)

    def _sandbox_profile(self, session: Session, tool_name: str, args: dict[str, Any], cwd: str | None) -> SandboxProfile:
        encoded = encode_call(tool_name, args)
        if isinstance(encoded, str):
            raise FenceError(encoded)
        name, arguments = encoded
        with self._lock:
            # The directory the decision was made in: a confined call had one (a call whose
            # decision moved the session ran where it began).
            directory = cwd or self._cwd
            if directory != self._configured_cwd:
                failure = self._configure(self._wasm, directory)
                if failure is not None:
                    raise FenceError(f"its working directory {directory!r} cannot be used ({failure})")
            status, text = self._status_call("sandbox", (session._handle, len(name), len(arguments)), name + arguments)
        if status != 0:
            raise FenceError(f"no sandbox for {tool_name!r}: {text}")
        return parse_profile(text, lambda kind, lines: self._sandbox_classify(session, kind, lines))

    def _sandbox_classify(self, session: Session, kind: int, lines: list[str]) -> bytes:
        answers = bytearray()
        # A few lines a call: each is tried against every pattern of the sandbox's lists, within
        # the fuel one call is given.
        for start in range(0, len(lines), _CLASSIFY_BATCH):
            batch = lines[start:start + _CLASSIFY_BATCH]
            payload = "\n".join(batch).encode("utf-8", "surrogateescape")
            with self._lock:
                record = self._checked_invoke("sandbox_classify", (session._handle, kind, len(payload)), payload)
            if record[:1] != b"\x00" or len(record) != len(batch) + 1:
                raise FenceError(f"the evaluator could not classify the sandbox's paths: {record[1:].decode('utf-8', 'replace')}")
            answers += record[1:]
        return bytes(answers)

    def _narrow(self, session: Session, prohibit: list[str], ask: list[str]) -> Intent:
        lines = [f"prohibit\t{c}" for c in prohibit] + [f"ask\t{c}" for c in ask]
        if any("\n" in line or line.count("\t") != 1 for line in lines):
            raise FenceError("a capability of a narrowing holds a tab or a newline")
        payload = "\n".join(lines).encode("utf-8")
        if not payload:
            return session.current_intent
        with self._lock:
            require_live(session)
            status, record = self._status_call("narrow", (session._handle, len(payload)), payload)
            if status != 0:
                raise FenceError(f"the narrowing was not applied: {record}")
            session._narrowings += (payload,)
            session.current_intent = Intent.from_summary(record)
        return session.current_intent

    def _derive(self, session: Session, tool_name: str, args: dict[str, Any], output: str) -> Derivation:
        encoded = encode_call(tool_name, args)
        if isinstance(encoded, str):
            raise FenceError(encoded)
        name, arguments = encoded
        text = output.encode("utf-8", "replace")
        with self._lock:
            require_live(session)
            status, record = self._status_call(
                "derive", (session._handle, len(name), len(arguments), len(text)), name + arguments + text
            )
        if status != 0:
            raise FenceError(f"cannot read the output of {tool_name!r}: {record}")
        return parse_derivation(record)

    def disasm(self) -> str:
        with self._lock:
            return self._checked_invoke("disasm", ()).decode("utf-8")

    # ---- what Session's methods call, each under the lock ----

    def _settle(self, session: Session, export: str, reservation: int) -> bool:
        with self._lock:
            if session._handle == CLOSED or not 0 < reservation <= 0xFFFFFFFF:
                return False
            record = self._checked_invoke(export, (session._handle, i32(reservation)))
        return record[:1] == b"\x00"

    def _budgets(self, session: Session) -> tuple[Budget, ...]:
        with self._lock:
            require_live(session)
            record = self._checked_invoke("budgets", (session._handle,))
        if record[:1] != b"\x00":
            raise FenceError(f"cannot read the budgets of session {session.id!r}: {record[1:].decode('utf-8', 'replace')}")
        return parse_budgets(record[1:])

    def _restore_budgets(self, session: Session, spent: dict[str, int | str | Decimal], exact: bool = False) -> None:
        lines = restore_lines(spent, zero=exact)
        if not lines:
            return
        with self._lock:
            require_live(session)
            status, text = self._status_call("budget_set" if exact else "budget_restore", (session._handle, len(lines)), lines)
        if status != 0:
            raise FenceError(f"cannot restore the budgets of session {session.id!r}: {text}")

    def _bind(self, session: Session, message: str, cwd: str | None) -> Intent:
        encoded = message.encode("utf-8", "replace")
        directory = cwd or self._cwd
        with self._lock:
            require_live(session)
            try:
                if self._broken is not None:
                    raise FenceError(f"the evaluator is broken: {self._broken}")
                failure = self._configure(self._wasm, directory) if directory != self._configured_cwd else None
                if failure is not None:
                    raise FenceError(f"cannot use the working directory {directory!r}: {failure}")
                record = self._wasm.invoke("intent", (session._handle, len(encoded)), encoded)
                if record[:1] != b"\x00":
                    raise FenceError(f"the user's message could not be bound: {record[1:].decode('utf-8', 'replace')}")
            except InputTooLarge as error:
                session._fault = f"the message ({error} bytes) is over every limit"
                raise FenceError(session._fault) from error
            except EngineFault as fault:
                self._recover(fault)
                session._fault = f"the evaluator failed: {last_line(str(fault))}"
                raise FenceError(session._fault) from fault
            except FenceError as error:
                session._fault = str(error)  # a session missing part of its intent would be too lenient
                raise
            session._messages += (encoded, directory)
            intent = Intent.from_summary(record[1:].decode("utf-8", "replace"))
            turn = len(session._messages) // 2 - 1
            if turn > 0:  # the first message amends nothing: skip the comparison
                added = added_to(session.current_intent, intent)
                if added != Intent():
                    session._amendments = [*session.amendments, Amendment(turn, added)]
            session.current_intent = intent
        return intent

    def _decide(self, session: Session | None, tool_name: str, encoded: tuple[bytes, bytes] | str,
                cwd: str | None) -> Decision:
        """Decides encode_call's result (the tool name and argument JSON as UTF-8, or why they
        cannot be sent): one frame from Session.decide to the evaluator, the hot path."""
        if isinstance(encoded, str):
            return host_decision(str(tool_name), "bad_arguments", encoded)
        name, arguments = encoded
        with self._lock:
            if self._broken is not None:
                return host_decision(tool_name, "engine_fault", f"the evaluator is broken ({last_line(self._broken)})")
            handle = 0
            if session is not None:
                if session._fault is not None:
                    return host_decision(tool_name, "host_error", f"its session cannot be used ({session._fault})")
                handle = session._handle
                if handle == CLOSED:
                    return host_decision(tool_name, "unknown_session", f"session {session.id!r} was dropped")
            try:
                directory = cwd or ("" if session is not None and session.moved else self._cwd)
                if directory != self._configured_cwd:
                    failure = self._configure(self._wasm, directory)
                    if failure is not None:
                        return host_decision(tool_name, "host_error", f"its working directory {directory!r} "
                                             f"cannot be used ({failure})")
                record = self._wasm.decide(handle, len(name), len(arguments), name + arguments)
            except InputTooLarge:
                return host_decision(tool_name, "limit_exceeded", f"the evaluator cannot take its arguments "
                                     f"({len(arguments)} bytes: over every limit, or out of memory)")
            except EngineFault as fault:
                self._recover(fault)
                if fault.out_of_fuel:
                    return host_decision(tool_name, "limit_exceeded", f"deciding it took more than the fuel its "
                                         f"{len(arguments)} bytes of arguments buy; an input can be built to do that, "
                                         f"so it blocks whatever fail_open says")
                if self._fails_open(tool_name):
                    return Decision("allow", "fail_open", "", "", "", f"AgentsFence allowed {tool_name}: deciding it failed "
                                    f"({last_line(str(fault))}) and the policy lets its risk class fail open [fail_open]")
                return host_decision(tool_name, "engine_fault", f"the evaluator failed ({last_line(str(fault))})")
            decision = self._decisions.get(record)  # a hit holds no reservation (cache.py)
            if decision is None:
                decision = parse_decision(record, tool_name)
                self._decisions.keep(record, decision)
            if decision.moves and session is not None and decision.kind != "block":
                session.moved = True
            return decision

