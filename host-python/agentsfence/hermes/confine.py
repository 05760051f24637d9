"""Running confined calls in Hermes: Hermes' `tool_execution` middleware (hermes_cli/middleware.py,
0.19) wraps every tool's execution with the arguments that will execute. A terminal call the
fence decided `confine` runs there with its command wrapped in the task's sandbox
(agentsfence.sandbox), through Hermes' own terminal, so its working directory tracking, timeouts,
background processes and output stay Hermes'. The same middleware checks that every call runs
with the arguments the fence decided.

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


@dataclass
class Pending:
    """A confined call between its decision (pre_tool_call) and its execution (the middleware)."""
    session: Any
    tool_name: str
    decided_json: bytes
    directory: str | None


class Confiner:
    """The pending confined calls by tool_call_id, and the middleware that runs them."""

    def __init__(self, decided: Callable[[str, bytes], bool], audit: Callable[..., None]):
        self._pending: dict[str, Pending] = {}
        self._lock = threading.Lock()
        self._decided = decided  # (tool_call_id, ran_json) -> the call runs with what was decided
        self._audit = audit
        self._background: list[Confinement] = []

    def hold(self, tool_call_id: str, pending: Pending) -> None:
        with self._lock:
            self._pending[tool_call_id] = pending

    def drop(self, tool_call_id: str) -> None:
        with self._lock:
            self._pending.pop(tool_call_id, None)

    def middleware(self, tool_name: str = "", args: Any = None, next_call: Callable[[Any], Any] | None = None,
                   tool_call_id: str = "", session_id: str = "", task_id: str = "", **kwargs: Any) -> Any:
        try:
            with self._lock:
                pending = self._pending.pop(tool_call_id, None) if tool_call_id else None
            ran_json = arguments_json(args)
            if tool_call_id and not self._decided(tool_call_id, ran_json):
                # Changed after the decision (another plugin's middleware, an in-place change, a
                # newer Hermes' modify): what would run was never decided.
                self._audit("args_changed", session_id or task_id, tool_name, tool_call_id)
                return _refused(tool_name, "its arguments changed after the fence decided it, so what would run was "
                                "never decided [args_changed]")
            if pending is None:
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
            return next_call({**args, "command": text})
        finally:
            if background:  # the process outlives this call: its proxy stays until the plugin stops
                with self._lock:
                    self._background.append(handle)
            else:
                handle.close()

    def close(self) -> None:
        with self._lock:
            handles, self._background = self._background, []
        for handle in handles:
            handle.close()


def _refused(tool_name: str, why: str) -> str:
    return json.dumps({"error": f"AgentsFence blocked {tool_name}: {why}"})
