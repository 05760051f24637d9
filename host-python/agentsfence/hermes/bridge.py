"""Newer Hermes' Tool Search bridge: `tool_search` and `tool_describe` read the catalog of
deferred tools (MCP, plugin and `connectors__<connector>__<tool>` tools), and `tool_call` runs
the calls it carries. The policy maps the first two as the agent's bookkeeping (policies/
defaults.yaml); this module decides a `tool_call` by its calls.

Read in NousResearch/hermes-agent:
- tools/tool_search.py (016260a5) resolve_underlying_call and tools/tool_search_validation.py
  (04fe5da9) normalize_tool_call_entries: `{"calls": [{name, arguments}]}` (a list, a JSON
  string of one, or a single object) or the older `{name, arguments}`; names stripped;
  arguments an object, a JSON string of one, or empty. Only connector calls share a batch.
- agent/tool_executor.py (0019b9b9) _unwrap_tool_search_call: a single local call is unwrapped
  before the hooks (the fence sees the real tool); a connector batch keeps the wrapper, so
  pre_tool_call sees `tool_call`.
- tools/connectors/dispatch.py (1eea6cb5) dispatch_connector_batch: then each entry goes
  through model_tools.handle_function_call with the batch's ids (its tool_call_id) and its
  hooks not skipped: pre_tool_call fires again for every entry.
Hermes 0.19 has the bridge for single local calls only (tools/tool_search.py), unwrapped in
both its dispatchers before any hook.

So a batch is decided call by call, each as the tool it names in the batch's session; the batch
is blocked when one is, asked about when one is asked about, and allowed only when every one
is. When Hermes dispatches an entry through the hooks again (same tool_call_id, same tool, same
argument JSON), the batch's decision of it stands: it is not decided, reserved or asked again.
An entry Hermes changed on the way (coerced, rewritten by middleware) is decided afresh.
"""
from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from ..records import Decision, host_decision
from .approvals import TARGET_SUBJECTS, call_reference
from .payloads import arguments_json

if TYPE_CHECKING:
    from ..api import Session

BATCH_TOOL = "tool_call"
BRIDGE_TOOLS = frozenset({"tool_search", "tool_describe", BATCH_TOOL})

Decided = tuple["Session | None", Decision, bytes]


def batch_entries(args: Any) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The (tool, arguments) calls of a `tool_call` as Hermes reads them, or ([], why) for a
    batch Hermes refuses without running anything."""
    if not isinstance(args, dict):
        return [], "its arguments are not an object"
    raw = args.get("calls")
    if raw is None:
        if not str(args.get("name") or "").strip():
            return [], "it names no calls"
        raw = [{"name": args.get("name"), "arguments": args.get("arguments")}]
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return [], "its calls are not valid JSON"
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        return [], "its calls are not a non-empty list"
    entries: list[tuple[str, dict[str, Any]]] = []
    for position, entry in enumerate(raw):
        if not isinstance(entry, dict):
            return [], f"its call {position} is not an object"
        name = str(entry.get("name") or "").strip()
        if not name or name in BRIDGE_TOOLS:
            return [], f"its call {position} names no tool it can run"
        arguments = entry.get("arguments")
        if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
            arguments = {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                return [], f"the arguments of its call {position} are not valid JSON"
        if not isinstance(arguments, dict):
            return [], f"the arguments of its call {position} are not an object"
        entries.append((name, arguments))
    return entries, ""


# How strict each kind is, for the batch: confine counts as ask (below).
_STRICTNESS = {"allow": 0, "ask": 1, "block": 2}


class Bridge:
    """Decides `tool_call` batches by their calls, and keeps each call's decision until Hermes
    dispatches it through the hooks. Thread-safe."""

    def __init__(self, decide: Callable[[str, Any, str, str], Decided],
                 hold: Callable[[str, Session, int, str, str], None], audit: Callable[..., None]):
        self._decide = decide  # the fence's decision of one call: (tool_name, args, task_id, session_id)
        self._hold = hold  # holds a reservation until the call's outcome: (call key, session, units, session_id, task_id)
        self._audit = audit
        self._lock = threading.Lock()
        # (batch key, tool, argument JSON) -> the decisions of the batch's calls awaiting their dispatch
        self._standing: dict[tuple[str, str, bytes], list[tuple[Session | None, Decision]]] = {}

    def decide(self, tool_name: str, args: Any, task_id: str, session_id: str, tool_call_id: str) -> Decided:
        """The fence's decision of a call: a batch by its calls, a call of a batch that passed by
        the batch's decision, any other call by the evaluator."""
        key = _batch_key(tool_call_id, session_id or task_id)
        if tool_name == BATCH_TOOL:
            return self._decide_batch(args, task_id, session_id, tool_call_id, key)
        if not self._standing:  # no batch waits on its calls: the common case costs no encoding
            return self._decide(tool_name, args, task_id, session_id)
        ran_json = arguments_json(args)
        with self._lock:
            waiting = self._standing.get((key, tool_name, ran_json))
            standing = waiting.pop(0) if waiting else None
            if waiting == []:
                del self._standing[(key, tool_name, ran_json)]
        if standing is None:
            return self._decide(tool_name, args, task_id, session_id)
        session, decision = standing
        return session, _as_dispatched(tool_name, decision), ran_json

    def finish(self, tool_call_id: str, session_key: str) -> None:
        """The batch's post_tool_call: a call of it that Hermes never dispatched stands no more."""
        key = _batch_key(tool_call_id, session_key)
        with self._lock:
            for entry in [k for k in self._standing if k[0] == key]:
                del self._standing[entry]

    def _decide_batch(self, args: Any, task_id: str, session_id: str, tool_call_id: str, key: str) -> Decided:
        batch_json = arguments_json(args)
        entries, why = batch_entries(args)
        if not entries:
            return None, host_decision(BATCH_TOOL, "bad_arguments", f"Hermes cannot run this batch: {why}"), batch_json
        decided: list[tuple[str, dict[str, Any], Session | None, Decision, bytes]] = []
        try:
            for name, arguments in entries:
                session, decision, entry_json = self._decide(name, arguments, task_id, session_id)
                decided.append((name, arguments, session, decision, entry_json or arguments_json(arguments)))
        except BaseException:
            _release(decided)
            raise
        session_key = session_id or task_id
        for position, (name, _, _, decision, _) in enumerate(decided):
            self._audit("batch_call", session_key, name, tool_call_id, position=position, kind=decision.kind,
                        reason=decision.reason, rule=decision.rule)
        session = next((s for _, _, s, _, _ in decided if s is not None), None)
        combined = _combined(decided)
        if combined.kind == "block":
            _release(decided)
            return session, combined, batch_json
        for name, _, entry_session, decision, entry_json in decided:
            if decision.reservation and entry_session is not None:
                # Settled by the call's own post_tool_call when Hermes dispatches it, else at the turn's end.
                self._hold(call_reference(tool_call_id, session_key, name, entry_json), entry_session,
                           decision.reservation, session_id, task_id)
        with self._lock:
            for name, _, entry_session, decision, entry_json in decided:
                self._standing.setdefault((key, name, entry_json), []).append((entry_session, decision))
        return session, combined, batch_json


def _batch_key(tool_call_id: str, session_key: str) -> str:
    """Pairs a batch with its calls' own dispatch: Hermes gives them the batch's tool_call_id."""
    return f"id:{tool_call_id}" if tool_call_id else f"session:{session_key}"


def _release(decided: list[tuple[str, dict[str, Any], Session | None, Decision, bytes]]) -> None:
    for _, _, session, decision, _ in decided:
        if decision.reservation and session is not None:
            session.release(decision.reservation)


def _combined(decided: list[tuple[str, dict[str, Any], Session | None, Decision, bytes]]) -> Decision:
    """One decision for the batch: its strictest call's. A call decided `confine` counts as an
    ask: the sandbox wraps a terminal call Hermes runs itself, never one inside a batch."""
    def strictness(decision: Decision) -> int:
        return _STRICTNESS.get("ask" if decision.kind == "confine" else decision.kind, 2)

    worst = max(strictness(d) for _, _, _, d, _ in decided)
    count = len(decided)
    if worst == 0:
        return Decision("allow", "batch_allowed", "", "", "", f"AgentsFence allowed {BATCH_TOOL}: each of its {count} "
                        f"call(s) is allowed ({', '.join(name for name, *_ in decided)})")
    chosen = [(position, name, arguments, d, entry_json) for position, (name, arguments, _, d, entry_json)
              in enumerate(decided) if strictness(d) == worst]
    if worst == 2:
        position, name, _, decision, _ = chosen[0]
        return replace(decision, message=f"AgentsFence blocked {BATCH_TOOL}: its call {position} ({name}) is blocked: "
                                         f"{decision.message}", reservation=0)
    # An ask covers every asked call: the rule key is made of all their capability deltas, so a
    # session's answer never approves a batch that differs in any of them (approvals.rule_key).
    witness: list[tuple[str, str]] = []
    for position, name, _, decision, entry_json in chosen:
        witness.extend(decision.witness)
        # A call asked about on no target is covered by its arguments, as rule_key covers one alone.
        on_targets = any(subject in TARGET_SUBJECTS for subject, _ in decision.witness)
        witness.append(("call", f"{position}:{name}" if on_targets
                        else f"{position}:{name}:{hashlib.sha256(entry_json).hexdigest()[:20]}"))
    messages = "; ".join(f"call {position} ({name}): "
                         + (d.message if d.kind != "confine" else "a command the fence would run in its sandbox, "
                            "which wraps the terminal's own calls, not a batch's")
                         for position, name, _, d, _ in chosen)
    first = chosen[0][3]
    return Decision("ask", first.reason if len(chosen) == 1 else "batch_ask",
                    "+".join(sorted({d.rule for *_, d, _ in chosen if d.rule})),
                    "+".join(sorted({d.capability for *_, d, _ in chosen if d.capability})), first.risk,
                    f"AgentsFence asks about {BATCH_TOOL}: {messages}", witness=tuple(witness),
                    targets=tuple(t for *_, d, _ in decided for t in d.targets),
                    possible=any(d.possible for *_, d, _ in chosen), opaque=any(d.opaque for *_, d, _ in chosen))


def _as_dispatched(tool_name: str, decision: Decision) -> Decision:
    """A call of a batch that passed, dispatched by Hermes: the batch's decision of it stands
    (asked: the person answered for the batch; confined: it runs in the sandbox), with nothing
    more reserved."""
    kind = "allow" if decision.kind == "ask" else decision.kind
    return replace(decision, kind=kind, reason="decided_in_batch", reservation=0,
                   message=f"AgentsFence decided {tool_name} with the {BATCH_TOOL} batch that carried it "
                           f"({decision.kind}: {decision.message})")
