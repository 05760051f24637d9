"""What the fence answers Hermes' tool dispatcher, and its place among the other plugins' hooks.

A decision becomes a directive: allow is no directive (Hermes has none; another plugin can
still block), block is `{"action": "block", "message": ...}` with a message that is never empty
(an empty one is ignored and the tool runs), and ask is Hermes' `approve` directive with a
rule key that its approval gate files [s]ession and [a]lways answers under: the session, the
tool, the capability and the capability delta (approvals.rule_key), so an answer covers that
delta in that session only (README.md, "The hook contracts", 2). With strict_yolo, an ask that
Hermes' gate would answer with no person (yolo, an allowlist entry the fence never saw granted,
an unattended cron job) blocks instead.

Hook order: Hermes 0.19 acts on the first directive in registration order, so an earlier
plugin's approve would hide the fence's block; the fence's pre_tool_call is kept first, and its
`tool_execution` middleware last (the innermost: what it checks is what runs; confine.py). Both
are put back in place when the plugin registers, each turn and before each call; a plugin that
moves them in between (a hook inserted first mid-turn) still meets the middleware, which refuses
a call whose own decision was not to run it. With
plugin_conflicts: strict, every other plugin's pre_tool_call is also guarded: its approve turns
into a block when the fence would ask or block the same call (for dispatchers that look past
the first directive). The fence's hook and a guard then need the decision of one call, in
either order: it is made once and shared.

Calls no hook sees: a plugin can run a tool itself with `ctx.dispatch_tool` (Hermes 0.19:
straight to tools.registry's dispatch, no hook, no middleware) or, in newer Hermes,
`ctx.call_mcp` (an MCP server's handler, past the registry too). The fence decides none of
them, and cannot without replacing Hermes' own code: a loaded plugin whose code calls either is
recorded (`undecided_call`) and named in /fence's warnings.
"""
from __future__ import annotations

import ast
import json
import logging
import os
import threading
from typing import TYPE_CHECKING, Any, Callable

from .approvals import Approvals, rule_key
from .environment import unattended_gate
from .payloads import arguments_json

if TYPE_CHECKING:
    from ..api import Decision, Session
    from ..rules import LearnedRule
    from ..settings import Settings

logger = logging.getLogger("agentsfence")

Directive = dict[str, str] | None
Decided = tuple["Session | None", "Decision", bytes]  # a call's session, its decision, the argument JSON decided on


def block(message: str) -> Directive:
    return {"action": "block", "message": message}


def blocking_middleware(message: str) -> Callable[..., str]:
    """The tool_execution middleware of a fence that could not start: no call runs, whatever
    another hook's directive made Hermes do (it never calls next_call)."""
    def tool_execution(**kwargs: Any) -> str:
        return json.dumps({"error": message})

    return tool_execution


def fault_block(tool_name: str, error: Exception) -> Directive:
    logger.error("AgentsFence failed deciding %s", tool_name, exc_info=error)
    return {"action": "block", "message": f"AgentsFence blocked {tool_name}: the fence failed ({type(error).__name__}: {error}) [host_error]"}


def move_first(ctx: Any, callback: Callable[..., Directive]) -> bool:
    """Puts the fence's pre_tool_call first: Hermes 0.19 lets the first directive win, so an
    earlier plugin's approve would hide the fence's block. Whether it was first already (False
    when the list cannot be read). The list is Hermes' private state."""
    try:
        callbacks = ctx._manager._hooks["pre_tool_call"]
        if callbacks and callbacks[0] == callback:
            return True
        if callback in callbacks:
            callbacks.remove(callback)
            callbacks.insert(0, callback)
    except Exception as error:
        logger.warning("AgentsFence could not move its pre_tool_call hook first: %s", error)
    return False


def move_last(ctx: Any, middleware: Callable[..., Any]) -> bool:
    """Puts the fence's tool_execution middleware last, the innermost around Hermes' dispatch
    (middlewares wrap it in registration order). Whether it was last already (False when the
    list cannot be read). The list is Hermes' private state."""
    try:
        callbacks = ctx._manager._middleware["tool_execution"]
        if callbacks and callbacks[-1] == middleware:
            return True
        if middleware in callbacks:
            callbacks.remove(middleware)
            callbacks.append(middleware)
    except Exception as error:
        logger.warning("AgentsFence could not move its tool_execution middleware last: %s", error)
    return False


# PluginContext's methods that run a tool with no pre_tool_call: 0.19's dispatch_tool, newer call_mcp.
UNDECIDED_CALLS = frozenset({"dispatch_tool", "call_mcp"})
_SCAN_FILES = 500  # a plugin's Python files read for them, at most
_SCAN_BYTES = 1 << 20  # per file


def undecided_calls(module: Any) -> list[str]:
    """Where a plugin module's code (its package's files, for a package) names one of
    UNDECIDED_CALLS, as an attribute or a string (getattr): "file:line name"."""
    origin = getattr(module, "__file__", None)
    if not isinstance(origin, str):
        return []
    root = os.path.dirname(origin)
    if os.path.basename(origin) == "__init__.py":
        files = sorted(os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names
                       if name.endswith(".py"))[:_SCAN_FILES]
    else:
        files = [origin]
    found: list[str] = []
    for path in files:
        try:
            with open(path, "rb") as source:
                tree = ast.parse(source.read(_SCAN_BYTES))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            name = node.attr if isinstance(node, ast.Attribute) else \
                node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
            if name in UNDECIDED_CALLS:
                found.append(f"{os.path.relpath(path, root)}:{node.lineno} {name}")
    return found


class Gate:
    """Asks as approve directives (with strict_yolo), and the fence's hook among the others."""

    def __init__(self, approvals: Approvals, settings: Settings, decide: Callable[[str, Any, str, str, str], Decided],
                 lets_through: Callable[[], bool], audit: Callable[..., None]):
        self.approvals = approvals
        self._strict_yolo = settings.strict_yolo
        self._strict = settings.plugin_conflicts == "strict"
        self._decide = decide  # the fence's decision of a call: (tool_name, args, task_id, session_id, tool_call_id)
        self._lets_through = lets_through  # observe mode with a usable policy: nothing is acted on
        self._audit = audit
        self._scanned: set[str] = set()  # the loaded plugins read for calls no hook sees
        self.warnings: list[str] = []  # one per plugin that makes such calls, for /fence
        self._lock = threading.Lock()
        # (tool_call_id, session key, tool, argument JSON) -> a decision the other reader needs:
        # only the very call takes it (the calls a tool_call batch carries share its tool_call_id,
        # bridge.py; a model may reuse an id for another call).
        self._shared: dict[tuple[str, str, str, bytes], Decided] = {}

    # ---- asks ----

    def ask(self, decision: Decision, session_key: str, tool_name: str, arguments_json: bytes, call_ref: str,
            words: str = "", lasting: LearnedRule | None = None) -> Directive:
        """ask -> approve, with a rule key Hermes files [s]ession / [a]lways answers under, so an
        answer covers this session and this capability delta only (approvals.rule_key). `words`:
        the question Hermes shows (question.py; else the decision's message); `lasting`: the rule
        an [a]lways answer makes."""
        key = rule_key(session_key, tool_name, decision.capability, decision.rule, decision.witness, arguments_json)
        if self.approvals.granted(session_key, key):
            return None  # a person granted this very call for the session
        if self._strict_yolo:
            unattended = unattended_gate(key)
            if unattended is not None:
                return block(f"AgentsFence blocked {tool_name}: it needs a person's approval ({decision.message}), "
                             f"but {unattended} (strict_yolo) [unattended_approval]")
        self.approvals.asked(call_ref, session_key, key, lasting)
        return {"action": "approve", "message": words or decision.message, "rule_key": key}

    # ---- the other plugins ----

    def order_hooks(self, ctx: Any, own: Callable[..., Directive], middleware: Callable[..., Any] | None) -> bool:
        """Keeps the fence's pre_tool_call (`own`) first, its tool_execution middleware last and,
        with plugin_conflicts: strict, every other plugin's pre_tool_call guarded (see guard); and
        reads each newly loaded plugin for tool calls no hook sees (undecided_calls). Whether the
        fence's hook was first already: when not, Hermes acts on an earlier hook's directive."""
        first = move_first(ctx, own)
        if middleware is not None:
            move_last(ctx, middleware)
        self._scan_plugins(ctx)
        if self._strict:
            try:
                callbacks = ctx._manager._hooks["pre_tool_call"]
                for index, callback in enumerate(callbacks):
                    # == not `is`: each access to a bound method makes a new one.
                    if callback != own and not getattr(callback, "agentsfence_guarded", False):
                        callbacks[index] = self.guard(callback)
            except Exception as error:
                logger.warning("AgentsFence could not guard the other pre_tool_call hooks: %s", error)
        return first

    def _scan_plugins(self, ctx: Any) -> None:
        try:
            for key, plugin in list(getattr(ctx._manager, "_plugins", {}).items()):
                if key in self._scanned or not getattr(plugin, "enabled", False) or plugin.module is None:
                    continue
                self._scanned.add(key)
                if plugin.module.__name__.split(".")[0] == __name__.split(".")[0]:
                    continue  # the fence itself
                found = undecided_calls(plugin.module)
                if found:
                    warning = (f"plugin {key!r} runs tools with no pre_tool_call ({', '.join(found[:5])}"
                               f"{', ...' if len(found) > 5 else ''}): the fence decides none of those calls")
                    self.warnings.append(warning)
                    logger.warning("AgentsFence: %s", warning)
                    self._audit("undecided_call", "", "", plugin=key, calls=found)
        except Exception as error:
            logger.warning("AgentsFence could not read the loaded plugins for calls no hook sees: %s", error)

    def guard(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Another plugin's approve turns into a block when the fence would ask or block the same
        call: on a dispatcher that acts on a later directive than the fence's, that approve (with
        --yolo, a plain yes) must not outvote the fence."""
        def guarded(**kwargs: Any) -> Any:
            result = callback(**kwargs)
            if not (isinstance(result, dict) and result.get("action") == "approve"):
                return result
            tool_name = kwargs.get("tool_name", "")
            try:
                _, decision, _ = self.decide_shared(tool_name, kwargs.get("args"), kwargs.get("task_id", ""),
                                                    kwargs.get("session_id", ""), kwargs.get("tool_call_id", ""))
            except Exception as error:
                return fault_block(tool_name, error)
            if decision.kind == "allow" or self._lets_through():
                return result
            return {"action": "block", "message": f"AgentsFence blocked {tool_name}: another plugin approved a call the fence "
                                                  f"{'asks about' if decision.kind == 'ask' else 'blocks'} "
                                                  f"(plugin_conflicts: strict) [plugin_conflict]"}

        guarded.agentsfence_guarded = True  # type: ignore[attr-defined]
        guarded.__wrapped__ = callback  # type: ignore[attr-defined]
        return guarded

    def decide_shared(self, tool_name: str, args: Any, task_id: str, session_id: str, tool_call_id: str) -> Decided:
        """The decision of one call, made once for the fence's hook and the guards (so its budget
        unit is reserved once): the second of them takes it. One never taken is dropped by the
        call's post_tool_call (forget_shared)."""
        key = (tool_call_id, session_id or task_id, tool_name, arguments_json(args))
        with self._lock:
            shared = self._shared.pop(key, None)
        if shared is not None:
            return shared
        decided = self._decide(tool_name, args, task_id, session_id, tool_call_id)
        with self._lock:
            self._shared[key] = decided
        return decided

    def forget_shared(self, tool_call_id: str, session_key: str, tool_name: str, ran_json: bytes) -> None:
        with self._lock:
            self._shared.pop((tool_call_id, session_key, tool_name, ran_json), None)
