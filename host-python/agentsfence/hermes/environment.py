"""Hermes' own state, read while it runs: the directory a task's relative paths resolve against,
what its tool registry and MCP client know of a tool, and its approval gate's state (yolo, the
allowlist, cron, the gateway). Each reader imports Hermes' module on first use and answers
"unknown" (or fails closed, for the gate) where Hermes is not there. Hermes' homes are read in
homes.py.
"""
from __future__ import annotations

import functools
import logging
import os
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

from .approvals import RULE_PREFIX

if TYPE_CHECKING:
    from ..api import Fence

logger = logging.getLogger("agentsfence")

# os.path.isabs costs a call into posixpath per tool call; on POSIX it is this prefix test.
_is_absolute: Callable[[str], bool] = (lambda path: path.startswith("/")) if os.sep == "/" else os.path.isabs


# ---- the working directory Hermes resolves a task's relative paths against ----

@functools.cache
def _session_cwd() -> Callable[[str | None], str | None]:
    try:
        from tools.terminal_tool import get_session_cwd
    except Exception:
        return lambda key: None
    return get_session_cwd


def working_directory(task_id: str) -> str:
    """tools.file_tools._resolve_base_dir's order, minus what costs a syscall per call: the
    task's live terminal cwd (it follows `cd`), else an absolute TERMINAL_CWD, else the
    process cwd. (Hermes also honours per-task overrides set by its TUI/ACP front ends.)"""
    candidate = _session_cwd()(task_id or "default")
    if candidate and _is_absolute(candidate):
        return candidate
    candidate = os.environ.get("TERMINAL_CWD")  # read only when the task has no cwd of its own
    if candidate and _is_absolute(candidate):
        return candidate
    return os.getcwd()


# ---- what Hermes knows of a tool ----

class ToolSchemas:
    """Tells the fence, once per tool, what Hermes knows of it: the description and parameter
    schema its registry holds (an MCP server's inputSchema among them) and, for an MCP tool,
    its server and the server's annotations (readOnlyHint, destructiveHint, openWorldHint),
    which the registry drops but the MCP client keeps. A tool the policy never named is
    classified from them, and its parameters' roles are learned."""

    def __init__(self, fence: Fence):
        self._fence = fence
        self._described: set[str] = set()  # tool names whose registry schema the fence was given

    def describe(self, tool_name: str) -> None:
        if tool_name in self._described:
            return
        self._described.add(tool_name)
        try:
            from tools.registry import registry

            schema = registry.get_schema(tool_name)
        except Exception:
            return  # no registry (tests, another host): the tool's name alone classifies it
        if not isinstance(schema, dict):
            return
        parameters = schema.get("parameters")
        server, annotations = mcp_provenance(tool_name)
        try:
            self._fence.describe_tool(tool_name, str(schema.get("description") or ""),
                                      parameters if isinstance(parameters, dict) else None,
                                      server=server, annotations=annotations)
        except Exception as error:  # the tool keeps the class its name gives it
            logger.warning("AgentsFence could not read the schema of %s: %s", tool_name, error)


def mcp_provenance(tool_name: str) -> tuple[str | None, Any]:
    """The MCP server a registered tool comes from and that server's annotations of it, as
    Hermes' MCP client holds them (tools/mcp_tool.py: the server each prefixed name was
    registered for, and each server's raw Tool objects); (None, None) for other tools or when
    the client is not loaded."""
    try:
        from tools import mcp_tool
    except Exception:
        return None, None
    try:
        with mcp_tool._lock:
            server = mcp_tool._mcp_tool_server_names.get(tool_name)
            task = mcp_tool._servers.get(server) if server else None
            tools = list(getattr(task, "_tools", None) or ())
    except Exception:
        return None, None
    if not server:
        return None, None
    for tool in tools:
        try:
            if mcp_tool.mcp_prefixed_tool_name(server, tool.name) == tool_name:
                return server, getattr(tool, "annotations", None)
        except Exception:
            continue
    return server, None


# ---- Hermes' approval gate ----

@functools.cache
def hermes_gate() -> ModuleType:
    """Hermes' tools.approval, imported on first use (an import statement per ask costs more than the
    check it serves). Outside Hermes it raises ImportError, each time: the caller's call blocks."""
    from tools import approval

    return approval


@functools.cache
def _env_var_enabled() -> Callable[[str], bool]:
    from utils import env_var_enabled

    return env_var_enabled


def unattended_gate(key: str) -> str | None:
    """Why Hermes' approval gate would answer `plugin_rule:<key>` without asking anyone, or None
    when a human will be asked. Reads the gate's own state in the order _run_approval_gate
    checks it (yolo, allowlist, then no CLI or gateway: cron follows approvals.cron_mode)."""
    gate = hermes_gate()
    env_var_enabled = _env_var_enabled()
    if gate._YOLO_MODE_FROZEN or gate.is_current_session_yolo_enabled():
        return "Hermes' yolo mode would approve it without asking anyone"
    if gate.is_approved(gate.get_current_session_key(), RULE_PREFIX + key):
        return "Hermes' allowlist would approve it without asking anyone, and the fence never saw a person grant it"
    # The cron flag first: one environment read settles the usual case, where the two context
    # checks (they read no more than the environment and context variables) cost ten times that.
    if env_var_enabled("HERMES_CRON_SESSION") and not gate._is_interactive_cli() \
            and not gate._is_gateway_approval_context() and gate._get_cron_approval_mode() == "approve":
        return "this cron job runs with approvals.cron_mode: approve, so nobody would be asked"
    return None


def on_allowlist(key: str) -> bool:
    """Whether Hermes' allowlist now holds `plugin_rule:<key>` (a [s]ession or [a]lways answer)."""
    gate = hermes_gate()
    return gate.is_approved(gate.get_current_session_key(), RULE_PREFIX + key)


def on_permanent_allowlist(key: str) -> bool:
    """Whether Hermes' permanent allowlist holds `plugin_rule:<key>` (an [a]lways answer)."""
    gate = hermes_gate()
    with gate._lock:
        return RULE_PREFIX + key in gate._permanent_approved


def forget_permanent(key: str) -> None:
    """Takes `plugin_rule:<key>` out of Hermes' permanent allowlist and its config.yaml
    (command_allowlist), through Hermes' own save: the key names one session, so kept there it
    would only ever be a dead entry. The session's own allowlist keeps it."""
    gate = hermes_gate()
    with gate._lock:
        if RULE_PREFIX + key not in gate._permanent_approved:
            return
        gate._permanent_approved.discard(RULE_PREFIX + key)
        remaining = set(gate._permanent_approved)
    gate.save_permanent_allowlist(remaining)


def forget_granted(keys: list[str]) -> None:
    """Takes `plugin_rule:<key>` for each key out of Hermes' session allowlists: a grant the
    fence withdrew must be asked again, not approved by the gate on its own (each key names the
    fence's session, so no other approval is touched)."""
    gate = hermes_gate()
    patterns = {RULE_PREFIX + key for key in keys}
    with gate._lock:
        for approved in gate._session_approved.values():
            approved -= patterns


def in_gateway_process() -> bool:
    """Whether this process is Hermes' gateway, which serves every chat through one handler."""
    return hermes_gate()._is_gateway_approval_context()
