"""Running confined calls in Hermes: Hermes' `tool_execution` middleware (hermes_cli/middleware.py,
0.19) wraps every tool's execution with the arguments that will execute. A terminal call the
fence decided `confine` runs there with its command wrapped in the task's sandbox
(agentsfence.sandbox), through Hermes' own terminal, so its working directory tracking, timeouts,
background processes and output stay Hermes'. The same middleware checks that every call runs
with the arguments the fence decided: a call whose arguments changed after its decision (another
plugin's `modify` directive in newer Hermes, an in-place change, another middleware) is decided
again on what would run, and runs on that decision (plugin_conflicts: strict refuses it instead).

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
from .approvals import call_reference
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
class Pending:
    """A confined call between its decision (pre_tool_call) and its execution (the middleware)."""
    session: Any
    tool_name: str
    decided_json: bytes
    directory: str | None


class Confiner:
    """The pending confined calls by call reference (the tool_call_id, else session, tool and
    arguments: approvals.call_reference), and the middleware that runs them."""

    def __init__(self, decided: Callable[[str, bytes], bool], audit: Callable[..., None],
                 redecide: Callable[[str, Any, str, str, str], tuple[str, str, Pending | None]]):
        self._pending: dict[str, Pending] = {}
        self._ran_on: dict[str, tuple[Any, str, str | None]] = {}  # call reference -> (session, kind, directory)
        self._waiting: dict[tuple[str, str], int] = {}  # (session key, tool) -> confined calls not yet run
        self._lock = threading.Lock()
        self._decided = decided  # (tool_call_id, ran_json) -> the call runs with what was decided
        self._audit = audit
        # A changed call decided again: (tool_name, args, task_id, session_id, tool_call_id) ->
        # ("run" | "confine" | "refuse", why it is refused, the confined call).
        self._redecide = redecide
        self._background: list[Confinement] = []

    def hold(self, call_ref: str, session_key: str, pending: Pending) -> None:
        with self._lock:
            self._pending[call_ref] = pending
            self._waiting[(session_key, pending.tool_name)] = self._waiting.get((session_key, pending.tool_name), 0) + 1

    def _take(self, call_ref: str, session_key: str, tool_name: str) -> Pending | None:
        pending = self._pending.pop(call_ref, None)
        if pending is not None:
            left = self._waiting.get((session_key, tool_name), 1) - 1
            if left > 0:
                self._waiting[(session_key, tool_name)] = left
            else:
                self._waiting.pop((session_key, tool_name), None)
        return pending

    def decided(self, call_ref: str, session: Any, kind: str, directory: str | None) -> None:
        """A call that will run unconfined (allowed, or asked and approved): its paths are checked
        for links before it runs."""
        with self._lock:
            self._ran_on[call_ref] = (session, kind, directory)

    def forget(self, call_ref: str) -> None:
        """A call that ended (post_tool_call), whether it ran or not: nothing of it waits."""
        with self._lock:
            self._ran_on.pop(call_ref, None)

    def middleware(self, tool_name: str = "", args: Any = None, next_call: Callable[[Any], Any] | None = None,
                   tool_call_id: str = "", session_id: str = "", task_id: str = "", **kwargs: Any) -> Any:
        try:
            ran_json = arguments_json(args)
            session_key = session_id or task_id
            call_ref = call_reference(tool_call_id, session_key, tool_name, ran_json)
            with self._lock:
                pending = self._take(call_ref, session_key, tool_name)
                ran_on = self._ran_on.pop(call_ref, None)
                # A call with no tool_call_id is found by its arguments: one that does not match
                # while a confined call of its tool waits may be that call, changed.
                unmatched = pending is None and not tool_call_id and self._waiting.get((session_key, tool_name), 0) > 0
            if unmatched:
                self._audit("args_changed", session_key, tool_name, tool_call_id)
                return _refused(tool_name, "a confined call of this tool is waiting and this one has other arguments, so "
                                "what would run was never decided [args_changed]")
            if tool_call_id and not self._decided(tool_call_id, ran_json):
                # Changed after the decision (another plugin's middleware, an in-place change, a
                # newer Hermes' modify): what runs is decided again, and runs on that decision.
                self._audit("args_changed", session_id or task_id, tool_name, tool_call_id)
                verdict, why, pending = self._redecide(tool_name, args, task_id, session_id, tool_call_id)
                if verdict == "refuse":
                    return _refused(tool_name, f"its arguments changed after the fence decided it, and what would "
                                    f"run now is refused: {why}")
            if pending is None:
                if ran_on is not None and tool_name not in CONFINABLE_TOOLS and isinstance(args, dict):
                    refusal = self._linked(tool_name, args, *ran_on)
                    if refusal is not None:
                        self._audit("link_refused", session_id or task_id, tool_name, tool_call_id)
                        return refusal
                return next_call(args)
            if tool_name not in CONFINABLE_TOOLS or not isinstance(args, dict) or not isinstance(args.get("command"), str):
                return _refused(tool_name, "the fence decided to confine it, but only the terminal's commands can run "
                                "in the sandbox [sandbox_unavailable]")
            profile = pending.session.sandbox_profile(pending.tool_name, json.loads(pending.decided_json),
                                                      pending.directory)
            handle = Confinement(profile)
        except Exception as error:  # never raise: Hermes would run the call unconfined
            logger.error("AgentsFence could not prepare the sandbox for %s", tool_name, exc_info=error)
            return _refused(tool_name, f"its sandbox could not be prepared ({type(error).__name__}: {error}) [sandbox_error]")
        background = bool(args.get("background"))
        try:
            text = handle.shell_text(args["command"])
        except Exception as error:
            handle.close()
            logger.error("AgentsFence could not prepare the sandbox for %s", tool_name, exc_info=error)
            return _refused(tool_name, f"its sandbox could not be prepared ({type(error).__name__}: {error}) [sandbox_error]")
        self._audit("confined", session_id or task_id, tool_name, tool_call_id, hosts=list(profile.hosts),
                    write=list(profile.write))
        try:
            result = next_call({**args, "command": text})
            if not background:
                notes = handle.settle()
                if notes:
                    self._audit("quarantined", session_id or task_id, tool_name, tool_call_id, paths=notes)
                    result = _with_notes(result, notes)
            return result
        finally:
            if background:  # the process outlives this call: its proxy stays until the plugin stops
                with self._lock:
                    self._background.append(handle)
            else:
                handle.close()

    def _linked(self, tool_name: str, args: dict[str, Any], session: Any, kind: str, directory: str | None) -> str | None:
        """Decides the call again on where its paths lead when one leads through a symbolic link
        (the fence compares paths as written): a stricter answer refuses it."""
        resolved = through_links(args, directory)
        if resolved is None or session is None:
            return None
        again = session.decide(tool_name, resolved, directory)
        if again.reservation:
            session.release(again.reservation)  # a second look spends nothing
        if _STRICTNESS.get(again.kind, 3) <= _STRICTNESS.get(kind, 3):
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
