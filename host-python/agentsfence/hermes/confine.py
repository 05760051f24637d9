"""The call that reaches the real tool is a call the fence decided to run, with exactly those
arguments. Hermes' `tool_execution` middlewares (hermes_cli/middleware.py, 0.19) wrap a tool's
execution in registration order, each handing the next the arguments it chooses; the fence's is
kept the innermost (gate.py moves it last when the plugin registers, each turn and before each
call), so what it checks, and the sandbox wrapping it applies, is what Hermes' dispatch runs.
One registered after its last move would run after the check: the fence's middleware then
refuses the call (and is moved last again). There it finds the fence's decision of the very
call (tool_call_id, session, tool and argument JSON) and:
- refuses one decided `block` (another plugin's directive came first and Hermes ran it anyway),
  one it decided nothing for, and one asked about when Hermes acted on another plugin's
  directive (the person, or yolo, answered that plugin's question, not the fence's);
- decides again one whose arguments changed after the decision (another plugin's `modify`
  directive in newer Hermes, an in-place change, an outer middleware) and runs it on that
  decision (plugin_conflicts: strict refuses it instead);
- runs a terminal call decided `confine` with its command wrapped in the task's sandbox
  (agentsfence.sandbox), through Hermes' own terminal, so its working directory tracking,
  timeouts, background processes and output stay Hermes'.
Every refusal is an audit record (`refused`).

A middleware that raises lets Hermes run the tool anyway (`_run_execution_chain` goes on to the
next callback), so nothing here raises: every failure answers the call with a block instead of
calling `next_call`.
"""
from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable

from ..sandbox import Confinement, probe
from .payloads import arguments_json

logger = logging.getLogger("agentsfence")

# The tools whose execution the sandbox wraps: Hermes' terminal runs its `command` in bash.
CONFINABLE_TOOLS = frozenset({"terminal"})


def sandbox_support(setting: str) -> tuple[bool, str]:
    """Whether this Hermes can run confined calls, and if not why (in words a person can act on).
    `setting` is the plugin's `sandbox` setting: auto (when it can), off."""
    if setting == "off":
        return False, "the sandbox is turned off (agentsfence.sandbox: off); commands it would confine are asked about"
    backend = os.environ.get("TERMINAL_ENV", "local").strip().lower() or "local"
    if backend != "local":
        return False, (f"Hermes' terminal runs on the {backend!r} backend, where the sandbox cannot reach; commands it "
                       "would confine are asked about")
    found = probe()
    if not found.ok:
        return False, f"{found.why}; commands it would confine are asked about until then ({found.fix})"
    return True, ""


# How strict each kind is: a call decided again on the paths its links lead to may not get a
# stricter answer than the one it ran on.
_STRICTNESS = {"allow": 0, "confine": 1, "ask": 2, "block": 3}


def through_links(args: dict[str, Any], directory: str | None) -> dict[str, Any] | None:
    """The call's arguments with every path that leads through a symbolic link replaced by where
    it leads (what the kernel will open), or None when none does. Paths are the string arguments
    that name an existing file or folder, or one in an existing folder, relative to `directory`."""
    changed = False
    resolved = dict(args)
    base = directory or os.getcwd()
    for key, value in args.items():
        if not isinstance(value, str) or not value or len(value) > 4096 or "\n" in value or "\0" in value:
            continue
        path = os.path.normpath(os.path.join(base, os.path.expanduser(value)))
        parent = os.path.dirname(path)
        if not (os.path.lexists(path) or os.path.isdir(parent)):
            continue
        real = os.path.realpath(path)
        if real != path:
            resolved[key] = real
            changed = True
    return resolved if changed else None


@dataclass
class Ruling:
    """The fence's decision of one call, from pre_tool_call (or decided again in the middleware)
    until the call runs through the middleware or ends."""
    tool_name: str
    decided_json: bytes  # the argument JSON decided on
    kind: str  # allow, ask, confine or block
    message: str  # the decision's words (a block's reason)
    session: Any
    directory: str | None
    # An ask whose approve Hermes put behind an earlier hook's directive (the fence's hook was
    # not first): the question Hermes' gate answered was not the fence's.
    asked_behind: bool = False


Call = tuple[str, str, str]  # (tool_call_id, session key, tool)


class Confiner:
    """The fence's rulings by call, and the tool_execution middleware that holds every call to
    its ruling. Thread-safe: Hermes runs the calls of one answer on worker threads."""

    def __init__(self, audit: Callable[..., None], redecide: Callable[[str, Any, str, str, str], Ruling],
                 innermost: Callable[[], bool]):
        self._rulings: dict[Call, list[Ruling]] = {}
        self._lock = threading.Lock()
        self._audit = audit
        # A changed call decided again: (tool_name, args, task_id, session_id, tool_call_id) -> its
        # ruling, allow, confine or block (an ask is put to Hermes' approval gate there).
        self._redecide = redecide
        self._innermost = innermost  # whether the fence's middleware is the last (and moves it last)
        self._running = threading.local()  # .call, .passed: the call this thread's check let through
        self._background: list[Confinement] = []

    def decided(self, tool_call_id: str, session_key: str, ruling: Ruling) -> None:
        with self._lock:
            self._rulings.setdefault((tool_call_id, session_key, ruling.tool_name), []).append(ruling)

    def _take(self, call: Call, ran_json: bytes) -> tuple[Ruling | None, bool]:
        """The ruling of the call with these arguments, taken; and whether the call has rulings
        for other arguments only (changed since its decision: the one ruling of a call with a
        tool_call_id is taken too; calls with none are told apart by their arguments alone)."""
        with self._lock:
            rulings = self._rulings.get(call)
            if not rulings:
                return None, False
            for index, ruling in enumerate(rulings):
                if ruling.decided_json == ran_json:
                    del rulings[index]
                    if not rulings:
                        del self._rulings[call]
                    return ruling, False
            if len(rulings) == 1 and call[0]:
                del self._rulings[call]
            return None, True

    def forget(self, tool_call_id: str, session_key: str, tool_name: str, ran_json: bytes) -> None:
        """A call that ended (post_tool_call) without the middleware taking its ruling (Hermes
        refused it first): the ruling of these arguments is dropped."""
        call = (tool_call_id, session_key, tool_name)
        with self._lock:
            rulings = [r for r in self._rulings.get(call, ()) if r.decided_json != ran_json]
            if rulings:
                self._rulings[call] = rulings
            else:
                self._rulings.pop(call, None)

    def end_turn(self, session_keys: set[str]) -> None:
        """The end of a turn: a ruling whose call never ran nor ended stands no more."""
        with self._lock:
            for call in [c for c in self._rulings if c[1] in session_keys]:
                del self._rulings[call]

    def middleware(self, tool_name: str = "", args: Any = None, next_call: Callable[[Any], Any] | None = None,
                   tool_call_id: str = "", session_id: str = "", task_id: str = "", **kwargs: Any) -> Any:
        session_key = session_id or task_id
        call = (tool_call_id, session_key, tool_name)
        try:
            ran_json = arguments_json(args)
            if getattr(self._running, "call", None) == call:
                # Hermes' concurrent path runs the chain again inside the first (agent_runtime_helpers
                # invoke_tool -> model_tools.handle_function_call): this check let the call through further out.
                if self._running.passed == ran_json:
                    return next_call(args)
                return self._refuse(call, "its arguments changed after the fence let it through [args_changed]")
            if not self._innermost():
                return self._refuse(call, "a tool_execution middleware registered after the fence's runs between its "
                                    "check and the tool, so what would run is unknown (the fence's is moved last "
                                    "for the next call) [middleware_order]")
            ruling, changed = self._take(call, ran_json)
            if changed:
                # Changed after the decision (another plugin's middleware, an in-place change, a
                # newer Hermes' modify): what runs is decided again, and runs on that decision.
                self._audit("args_changed", session_key, tool_name, tool_call_id)
                ruling = self._redecide(tool_name, args, task_id, session_id, tool_call_id)
                if ruling.kind == "block":
                    return self._refuse(call, f"its arguments changed after the fence decided it, and what would run "
                                        f"now is refused: {ruling.message}")
            if ruling is None:
                return self._refuse(call, "the fence decided no call of it with these arguments, so what would run was "
                                    "never decided [undecided]")
            if ruling.kind == "block":
                return self._refuse(call, f"another plugin's directive made Hermes run a call the fence blocks "
                                    f"({ruling.message}) [blocked_ran]")
            if ruling.kind == "ask" and ruling.asked_behind:
                return self._refuse(call, f"it needs a person's approval ({ruling.message}), but Hermes acted on another "
                                    "plugin's directive, so the approval it got was not for the fence's question "
                                    "[plugin_conflict]")
            if ruling.kind != "confine":
                if tool_name not in CONFINABLE_TOOLS and isinstance(args, dict):
                    refusal = self._linked(tool_name, args, ruling)
                    if refusal is not None:
                        self._audit("link_refused", session_key, tool_name, tool_call_id)
                        return refusal
                return self._run(call, next_call, args, ran_json)
            if tool_name not in CONFINABLE_TOOLS or not isinstance(args, dict) or not isinstance(args.get("command"), str):
                return self._refuse(call, "the fence decided to confine it, but only the terminal's commands can run in "
                                    "the sandbox [sandbox_unavailable]")
            profile = ruling.session.sandbox_profile(tool_name, json.loads(ruling.decided_json), ruling.directory)
            handle = Confinement(profile)
        except Exception as error:  # never raise: Hermes would run the call unchecked
            logger.error("AgentsFence could not check %s before it runs", tool_name, exc_info=error)
            return self._refuse(call, f"the fence failed checking it ({type(error).__name__}: {error}) [host_error]")
        background = bool(args.get("background"))
        try:
            text = handle.shell_text(args["command"])
        except Exception as error:
            handle.close()
            logger.error("AgentsFence could not prepare the sandbox for %s", tool_name, exc_info=error)
            return self._refuse(call, f"its sandbox could not be prepared ({type(error).__name__}: {error}) [sandbox_error]")
        self._audit("confined", session_key, tool_name, tool_call_id, hosts=list(profile.hosts),
                    write=list(profile.write))
        try:
            confined = {**args, "command": text}
            result = self._run(call, next_call, confined, arguments_json(confined))
            if not background:
                notes = handle.settle()
                if notes:
                    self._audit("quarantined", session_key, tool_name, tool_call_id, paths=notes)
                    result = _with_notes(result, notes)
            return result
        finally:
            if background:  # the process outlives this call: its proxy stays until the plugin stops
                with self._lock:
                    self._background.append(handle)
            else:
                handle.close()

    def _run(self, call: Call, next_call: Callable[[Any], Any] | None, args: Any, passed_json: bytes) -> Any:
        """Hands the checked call to Hermes' dispatch, marked as let through on this thread."""
        outer = getattr(self._running, "call", None), getattr(self._running, "passed", None)
        self._running.call, self._running.passed = call, passed_json
        try:
            return next_call(args)
        finally:
            self._running.call, self._running.passed = outer

    def _refuse(self, call: Call, why: str) -> str:
        tool_call_id, session_key, tool_name = call
        refusal = _refused(tool_name, why)
        try:
            self._audit("refused", session_key, tool_name, tool_call_id, message=json.loads(refusal)["error"])
        except Exception as error:  # the refusal stands unrecorded: the log says why
            logger.error("AgentsFence could not record the refusal of %s: %s", tool_name, error)
        return refusal

    def _linked(self, tool_name: str, args: dict[str, Any], ruling: Ruling) -> str | None:
        """Decides the call again on where its paths lead when one leads through a symbolic link
        (the fence compares paths as written): a stricter answer refuses it."""
        resolved = through_links(args, ruling.directory)
        if resolved is None or ruling.session is None:
            return None
        again = ruling.session.decide(tool_name, resolved, ruling.directory)
        if again.reservation:
            ruling.session.release(again.reservation)  # a second look spends nothing
        if _STRICTNESS.get(again.kind, 3) <= _STRICTNESS.get(ruling.kind, 3):
            return None
        return _refused(tool_name, f"a path of it is a symbolic link, and where it leads the fence decides "
                        f"{again.kind}: {again.message}")

    def close(self) -> None:
        with self._lock:
            handles, self._background = self._background, []
        for handle in handles:
            handle.close()


def _with_notes(result: Any, notes: list[str]) -> Any:
    """The terminal's result with what the sandbox undid after the command, for the model to read."""
    text = "\n".join(f"[AgentsFence: {note}]" for note in notes)
    try:
        answer = json.loads(result)
    except (TypeError, ValueError):
        return f"{result}\n{text}" if isinstance(result, str) else result
    if isinstance(answer, dict):
        answer["output"] = f"{answer.get('output') or ''}\n{text}".lstrip("\n")
        return json.dumps(answer, ensure_ascii=False)
    return result


def _refused(tool_name: str, why: str) -> str:
    return json.dumps({"error": f"AgentsFence blocked {tool_name}: {why}"})
