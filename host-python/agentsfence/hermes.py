"""The Hermes Agent plugin: `register(ctx)` puts the fence in front of every tool call.

Verified against hermes-agent 0.19.0 (hermes_cli/plugins.py, agent/turn_context.py,
model_tools.py, tools/delegate_tool.py, cli.py):
- The entry point `agentsfence = agentsfence.hermes` in group `hermes_agent.plugins` becomes a
  plugin whose name and key are the entry point's name; it loads only when `agentsfence` is in
  `plugins.enabled` of $HERMES_HOME/config.yaml. The loaded module must expose `register(ctx)`.
- `PluginManager.invoke_hook(name, **kwargs)` calls every callback with keyword arguments only
  (plus telemetry_schema_version), swallows exceptions and collects the non-None results.
  A raising hook is no directive at all: the tool runs. So every hook body here catches
  everything and answers with a block.
- pre_tool_call kwargs: tool_name, args (a dict; Hermes replaces anything else by {}),
  task_id, session_id, tool_call_id, turn_id, api_request_id, middleware_trace.
  `_get_pre_tool_call_directive_details` takes the FIRST dict whose action is "block" (with a
  non-empty message) or "approve" (optional rule_key), in registration order; so the fence's
  callback is moved to the front of the list.
- pre_llm_call kwargs: session_id, task_id (a fresh uuid per turn when the caller has none),
  turn_id, user_message (the user's own input; may be a multimodal list), conversation_history,
  is_first_turn, model, platform, sender_id. Its results can only add context.
- subagent_start kwargs: parent_session_id, parent_turn_id, parent_subagent_id,
  child_session_id, child_subagent_id, child_role, child_goal.
- on_session_finalize kwargs: session_id, platform, reason ("shutdown" on CLI exit, when the
  session can still be resumed; "session_boundary" on the CLI's /new, "new_session" from the
  gateway). on_session_reset passes the NEW session's id (the gateway adds old_session_id).
- post_tool_call kwargs: tool_name, args (the same dict pre_tool_call saw, so a change made in
  place after the fence decided shows), result, task_id, session_id, tool_call_id, turn_id,
  api_request_id, duration_ms, status ("ok" / "error", "blocked" when refused), error_type,
  error_message, middleware_trace.
- post_approval_response (pattern_key "plugin_rule:<rule_key>", choice) fires for plugin asks
  only on the gateway path; yolo, the allowlist and the CLI prompt answer silently.
- model_tools.handle_function_call fires post_tool_call after the tool ran (status from its
  result) or with status "blocked" when pre_tool_call refused it; a tool that raises, or an ACP
  edit approval that refuses, fires none. on_session_end (session_id, task_id, turn_id,
  completed, interrupted, ...) fires at the end of every run_conversation, i.e. every turn.
  Statuses "cancelled" and "timeout" exist only in newer Hermes.

This module imports wasmtime only inside register(), so a broken install still registers a
hook that blocks every call instead of failing to load (which Hermes treats as no fence).
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from . import homes
from .commands import run_cli, setup_cli, slash_fence
from .homes import hermes_home
from .errors import FenceError
from .approvals import RULE_PREFIX, Approvals, call_reference, hermes_gate, rule_key, unattended_gate
from .audit import AuditLog
from .state import SessionRecord, SessionStore, StateCorrupt

if TYPE_CHECKING:
    from .api import Decision, Fence, Intent, Session
    from .installed import Installed, PolicyFiles
    from .llm import IntentReader
    from .settings import Settings

logger = logging.getLogger("agentsfence")

Directive = dict[str, str] | None
RECENT_DECISIONS = 8  # how many /fence shows
LAST_POLICY = "policy.last"  # the hash of the policy the last start or reload put in place
NOT_RUN = frozenset({"blocked", "cancelled", "timeout"})  # post_tool_call statuses of a call that did not run
# Decisions that are faults, not the policy's: they block in observe mode too (docs/bytecode.md §8.1).
FAULTS = frozenset({"engine_fault", "host_error", "unknown_session", "unknown_task", "no_policy", "out_of_memory",
                    "bad_arguments", "limit_exceeded", "policy_error"})


@dataclass(frozen=True, slots=True)
class Held:
    """A budget reservation of a decided call, with the Hermes ids its turn ends under."""

    session: Session
    reservation: int
    session_id: str
    task_id: str


def register(ctx: Any, **kwargs: Any) -> None:
    home = hermes_home()
    state_dir = homes.state_dir(home)
    try:
        from .installed import PolicyFiles
        from .settings import load_settings

        settings = load_settings(home)
        policy_files = PolicyFiles(state_dir)
        fence, installed = start_fence(policy_files)
    except Exception as error:  # wasmtime missing, no wasm, a rejected policy or settings: fail closed
        logger.error("AgentsFence could not start; every tool call will be blocked: %s", error)
        hook = blocking_hook(f"AgentsFence could not start ({type(error).__name__}: {error}), so every tool call is blocked")
        ctx.register_hook("pre_tool_call", hook)
        move_first(ctx, hook)
        return
    plugin = HermesFence(fence, settings, SessionStore(state_dir / "sessions"), AuditLog(state_dir / "audit.jsonl"),
                         lambda: plugin.order_hooks(ctx))
    plugin.watch_policy(policy_files, installed)
    ctx.register_hook("pre_tool_call", plugin.pre_tool_call)
    ctx.register_hook("pre_llm_call", plugin.pre_llm_call)
    ctx.register_hook("subagent_start", plugin.subagent_start)
    ctx.register_hook("on_session_finalize", plugin.on_session_finalize)
    ctx.register_hook("on_session_reset", plugin.on_session_reset)
    ctx.register_hook("post_tool_call", plugin.post_tool_call)
    ctx.register_hook("post_approval_response", plugin.post_approval_response)
    ctx.register_hook("on_session_end", plugin.on_session_end)
    ctx.register_command("fence", lambda raw_args="": slash_fence(plugin, raw_args),
                         description="Show or change this session's AgentsFence policy", args_hint="[show|allow TEXT|deny TEXT]")
    ctx.register_cli_command("fence", "AgentsFence: status, and explain one decision", setup_cli, run_cli,
                             description="Show the installed policy and settings, or decide one call and say why.")
    if settings.llm_intent:  # off, the class's reader is none (agentsfence.llm is not imported)
        from .llm import reader_for

        plugin.intent_reader = reader_for(ctx, settings.llm_intent, settings.llm_timeout)
    plugin.order_hooks(ctx)
    if installed.error is not None:
        logger.error("AgentsFence: every tool call will be blocked until the policy compiles: %s", installed.error)
    logger.info("AgentsFence active: policy %s (%s) from %s, mode %s, fence.wasm: %s", fence.policy_name,
                fence.policy_hash[:12], installed.origin, settings.mode, fence.module_source)


def start_fence(policy_files: PolicyFiles) -> tuple[Fence, Installed]:
    """The fence with the state directory's policy. A policy.yaml that does not compile gives the
    shipped default here, which decides nothing: the plugin blocks every call with the error. A
    cached compilation the evaluator rejects is dropped and compiled again, once."""
    from .api import Fence

    installed = policy_files.current()
    try:
        return Fence(installed.bytecode, hermes_homes=homes.hermes_homes()), installed
    except FenceError:
        if not installed.cached:
            raise
    logger.warning("AgentsFence: the evaluator rejected the cached compilation of %s; compiling it again", installed.origin)
    policy_files.forget_cache()
    installed = policy_files.current()
    return Fence(installed.bytecode, hermes_homes=homes.hermes_homes()), installed


def blocking_hook(message: str) -> Callable[..., Directive]:
    def pre_tool_call(**kwargs: Any) -> Directive:
        return {"action": "block", "message": message}

    return pre_tool_call


def fault_block(tool_name: str, error: Exception) -> Directive:
    logger.error("AgentsFence failed deciding %s", tool_name, exc_info=error)
    return {"action": "block", "message": f"AgentsFence blocked {tool_name}: the fence failed ({type(error).__name__}: {error}) [host_error]"}


PATCH_PATHS_ARG = "agentsfence_patch_paths"  # policies/defaults.yaml gives it the path role


def with_patch_paths(tool_name: str, args: Any) -> Any:
    """patch in patch mode names its files inside the V4A text. The evaluator scans the headers
    itself; Hermes' own parser (tools/patch_parser.py) is what the tool obeys, so its files are
    added as one more argument and the decision covers both readings."""
    if tool_name != "patch" or not isinstance(args, dict) or not isinstance(args.get("patch"), str):
        return args
    try:
        from tools.patch_parser import parse_v4a_patch
    except ImportError:  # another Hermes layout: the evaluator's own scan still decides
        return args
    operations, _ = parse_v4a_patch(args["patch"])
    paths = [p for op in operations for p in (op.file_path, op.new_path) if isinstance(p, str) and p]
    return {**args, PATCH_PATHS_ARG: paths}


# The evaluator reads at most the policy's max_intent_bytes of an output (64 KiB by default):
# a longer result is cut here, before it costs a JSON decode on every call.
OUTPUT_LIMIT = 1 << 20


def output_text(result: Any) -> str:
    """A tool's result as the text its reader sees: a JSON result's strings, one a line (so an
    escaped newline does not glue an address to the next word), else the text itself."""
    if isinstance(result, str):
        if len(result) > OUTPUT_LIMIT:
            return result[:OUTPUT_LIMIT]
        try:
            result = json.loads(result)
        except ValueError:
            return result
    strings: list[str] = []
    stack = [result]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return "\n".join(strings)


def _arguments_json(args: Any) -> bytes:
    from .api import encode_call

    encoded = encode_call("", args)
    return encoded[1] if isinstance(encoded, tuple) else repr(args).encode("utf-8", "replace")


def _on_hermes_allowlist(key: str) -> bool:
    gate = hermes_gate()
    return gate.is_approved(gate.get_current_session_key(), RULE_PREFIX + key)


def move_first(ctx: Any, callback: Callable[..., Directive]) -> None:
    """Puts the fence's pre_tool_call first: Hermes 0.19 lets the first directive win, so an
    earlier plugin's approve would hide the fence's block. The list is Hermes' private state."""
    try:
        callbacks = ctx._manager._hooks["pre_tool_call"]
        if callbacks and callbacks[0] != callback and callback in callbacks:
            callbacks.remove(callback)
            callbacks.insert(0, callback)
    except Exception as error:
        logger.warning("AgentsFence could not move its pre_tool_call hook first: %s", error)


# os.path.isabs costs a call into posixpath per tool call; on POSIX it is this prefix test.
_is_absolute: Callable[[str], bool] = (lambda path: path.startswith("/")) if os.sep == "/" else os.path.isabs


def block(message: str) -> Directive:
    return {"action": "block", "message": message}


def message_text(user_message: Any) -> str:
    """The text of the user's message: a string, or the text parts of a multimodal list. Parts
    an image splits ("Summarize notes.txt into", image, "summary.md") are one sentence: two
    one-line parts join with a space, unless the later one opens a block of its own (a quote,
    code, a tag, pasted JSON, a list); other parts join with a line break."""
    if isinstance(user_message, str):
        return user_message
    if isinstance(user_message, list):
        parts = [p.get("text") for p in user_message if isinstance(p, dict) and p.get("type") == "text"]
        text = ""
        for part in (p for p in parts if isinstance(p, str) and p.strip()):
            if not text:
                text = part
                continue
            head = part.lstrip()[:1]
            inline = "\n" not in text.strip() and "\n" not in part.strip() and (head.isalnum() or head in "~/.#@$\"'(")
            text = text.rstrip() + " " + part.lstrip() if inline else text + "\n" + part
        return text
    return ""


class HermesFence:
    """The hooks, and the links from Hermes' ids to fence sessions."""

    # The model's reading of user messages (settings llm_intent); register() sets it.
    intent_reader: Callable[[], IntentReader | None] = staticmethod(lambda: None)

    def __init__(self, fence: Fence, settings: Settings, store: SessionStore, audit: AuditLog, reorder: Callable[[], None]):
        self.fence = fence
        self.settings = settings
        self.store = store
        self._records: dict[str, SessionRecord] = {}  # top-level session_id -> what is saved for it
        self.audit = audit
        self._reorder = reorder
        self._lock = threading.Lock()
        self._tasks: dict[str, Session] = {}  # task_id -> session (tool calls that carry only a task id)
        self._children: dict[str, Session] = {}  # a subagent's session_id -> its parent's session
        self._faults: dict[str, str] = {}  # session_id -> why its user message could not be bound
        self._session_cwd: Callable[[str | None], str | None] | None = None
        self._described: set[str] = set()  # tool names whose registry schema the fence was given
        self.approvals = Approvals()
        self._decided_args: dict[str, bytes] = {}  # tool_call_id -> the argument JSON the fence decided on
        self._held: dict[str, list[Held]] = {}  # call reference -> budget reservations awaiting post_tool_call
        self._shared: dict[str, tuple[Session | None, Decision, bytes]] = {}  # call reference -> a decision the other reader needs
        self.current_session: str | None = None  # the top-level session of the latest user turn (for /fence)
        self._intents: dict[str, Intent] = {}  # session_id -> what its messages named and ruled out
        self.policy_files: PolicyFiles | None = None  # where the policy comes from (watch_policy)
        self.policy_origin = "the shipped default"
        self.policy_error: str | None = None  # why the installed policy cannot be used: every call is blocked
        self.policy_change: tuple[str, str, str] | None = None  # (previous hash, current, "start" | "reload")
        self._policy_digest = ""
        self._observe = settings.mode == "observe"
        self._recent: dict[str, deque[str]] = {}  # session_id -> its latest decision messages
        # Bound once (a Fence means api is loaded): an import statement per call costs more than the lookup.
        from .api import encode_call, host_decision
        self._encode_call = encode_call
        self._host_decision = host_decision

    # ---- hooks ----

    def pre_llm_call(self, session_id: str = "", task_id: str = "", user_message: Any = None, sender_id: Any = "",
                     **kwargs: Any) -> None:
        self._reorder()
        self.refresh_policy()  # an edited policy.yaml takes effect from this turn
        key = session_id or task_id
        try:
            with self._lock:
                parent = self._children.get(key)
            if parent is not None:
                # A subagent's "user message" is its parent model's goal text: it grants nothing.
                self._alias(task_id, parent)
                return None
            session = self._top_session(key)
            self._alias(task_id, session)
            self.current_session = key
            text = message_text(user_message)
            directory = self._working_directory(task_id)
            if text:
                self._intents[key] = session.intent(text, directory)
                self._narrow_by_model(key, session, text)
            self._remember_turn(key, task_id, text, directory, sender_id if isinstance(sender_id, str) else "")
        except Exception as error:
            logger.error("AgentsFence could not bind the user's message: %s", error)
            with self._lock:
                for fault_key in (session_id, task_id):
                    if fault_key:
                        self._faults[fault_key] = f"{type(error).__name__}: {error}"
        return None

    def pre_tool_call(self, tool_name: str = "", args: Any = None, task_id: str = "", session_id: str = "",
                      tool_call_id: str = "", **kwargs: Any) -> Directive:
        self._reorder()  # before each decision too: a plugin may have been loaded since the last turn
        try:
            if self.policy_error is not None:
                refused = self._host_decision(tool_name, "policy_error", f"the installed policy cannot be used, so every "
                                              f"call is blocked until it can: {self.policy_error}")
                self.audit.decision(session_id or task_id, tool_name, tool_call_id, args, refused, 0.0)
                return block(refused.message)
            if not tool_call_id and self.settings.no_tool_call_id == "block":
                refused = self._host_decision(tool_name, "no_tool_call_id", "the call has no tool_call_id, and this fence is "
                                              "set to block such calls (no_tool_call_id: block)")
                self.audit.decision(session_id or task_id, tool_name, tool_call_id, args, refused, 0.0)
                return block(refused.message)
            started = time.perf_counter_ns()
            if self.settings.plugin_conflicts == "strict":
                session, decision, arguments_json = self._decide_shared(tool_name, args, task_id, session_id, tool_call_id)
            else:
                session, decision, arguments_json = self._decide(tool_name, args, task_id, session_id)
            elapsed_us = (time.perf_counter_ns() - started) / 1000
            observing = self._observe and decision.reason not in FAULTS
            try:
                self.audit.decision(session_id or task_id, tool_name, tool_call_id, args, decision, elapsed_us,
                                    "observe" if observing else "enforce")
            except Exception:
                # A decision that cannot be recorded is not acted on: the error blocks (see _fault),
                # so a unit it reserved is free again.
                if decision.reservation and session is not None:
                    session.release(decision.reservation)
                raise
            kind = decision.kind
            with self._lock:
                if session is not None:
                    recent = self._recent.get(session.id)
                    if recent is None:  # not setdefault: that would build a deque every call
                        recent = self._recent[session.id] = deque(maxlen=RECENT_DECISIONS)
                    recent.append(decision.message)
                if tool_call_id and (kind != "block" or observing):
                    # compared in post_tool_call: did the call run with what was decided?
                    self._decided_args[tool_call_id] = arguments_json
            if observing:
                # Decided and recorded (its record says what enforce would have done), not acted on.
                if decision.reservation and session is not None:
                    call_ref = call_reference(tool_call_id, session_id or task_id, tool_name, arguments_json)
                    with self._lock:
                        self._held.setdefault(call_ref, []).append(Held(session, decision.reservation, session_id, task_id))
                return None
            if kind == "block":
                return block(decision.message)
            call_ref = call_reference(tool_call_id, session_id or task_id, tool_name, arguments_json) \
                if decision.reservation or decision.kind == "ask" else ""
            if decision.reservation and session is not None:
                with self._lock:  # settled by this call's post_tool_call, or at the end of its turn
                    self._held.setdefault(call_ref, []).append(Held(session, decision.reservation, session_id, task_id))
            if kind == "allow":
                return None
            directive = self._ask(decision, session.id if session is not None else "", tool_name, arguments_json, call_ref)
            if directive is not None and directive["action"] == "block":
                self._settle(call_ref, ran=False)  # the fence refused it after all: it will not run
            return directive
        except Exception as error:
            return self._fault(tool_name, error)

    def _fault(self, tool_name: str, error: Exception) -> Directive:
        """An internal error blocks the call, unless the policy lets its risk class fail open."""
        try:
            if self.policy_error is None and self.fence.fails_open(tool_name):
                logger.error("AgentsFence failed deciding %s; its risk class fails open", tool_name, exc_info=error)
                return None
        except Exception:
            pass  # the fail mode cannot be read either: closed
        return fault_block(tool_name, error)

    def _ask(self, decision: Decision, session_key: str, tool_name: str, arguments_json: bytes, call_ref: str) -> Directive:
        """DESIGN.md §3: ask -> approve, with a rule key Hermes files [s]ession / [a]lways answers
        under, so an answer covers this session and this capability delta only (approvals.rule_key)."""
        key = rule_key(session_key, tool_name, decision.capability, decision.rule, decision.witness, arguments_json)
        if self.approvals.granted(session_key, key):
            return None  # a person granted this very call for the session
        if self.settings.strict_yolo:
            unattended = unattended_gate(key)
            if unattended is not None:
                return block(f"AgentsFence blocked {tool_name}: it needs a person's approval ({decision.message}), "
                             f"but {unattended} (strict_yolo) [unattended_approval]")
        self.approvals.asked(call_ref, session_key, key)
        return {"action": "approve", "message": decision.message, "rule_key": key}

    def post_approval_response(self, pattern_key: str = "", choice: str = "", **kwargs: Any) -> None:
        try:
            self.approvals.answered(pattern_key or "", choice or "")
        except Exception as error:
            logger.error("AgentsFence could not record an approval answer: %s", error)
        return None

    def post_tool_call(self, tool_name: str = "", args: Any = None, task_id: str = "", session_id: str = "",
                       tool_call_id: str = "", status: str = "", result: Any = None, **kwargs: Any) -> None:
        """Records the outcome, and settles the call's budget reservation and its ask: it ran (ok or
        error) only if the gate approved it. A status that says it did not run releases the units;
        any other, including one a newer Hermes may add, spends them (counting a call that did not
        run is the safe error). Hands the evaluator the output of a call that ran as decided
        (derived targets, docs/policy.md)."""
        try:
            self.audit.event("outcome", session_id or task_id, tool_name, tool_call_id, status=status,
                             duration_ms=kwargs.get("duration_ms"), error_type=kwargs.get("error_type"))
        except Exception as error:
            logger.error("AgentsFence could not record the outcome of %s: %s", tool_name, error)
        changed = False
        try:
            arguments_json = _arguments_json(args)
            if tool_call_id:
                with self._lock:
                    decided = self._decided_args.pop(tool_call_id, None)
                if decided is not None and decided != arguments_json and status != "blocked":
                    # Another plugin changed the arguments after the fence decided (in place, or
                    # with a newer Hermes' modify directive): what ran is not what was decided.
                    logger.warning("AgentsFence: %s ran with arguments changed after its decision", tool_name)
                    self.audit.event("args_changed", session_id or task_id, tool_name, tool_call_id)
                    changed = True
            call_ref = call_reference(tool_call_id, session_id or task_id, tool_name, arguments_json)
            with self._lock:
                self._shared.pop(call_ref, None)
            spent = self._settle(call_ref, ran=status not in NOT_RUN)
            if spent is not None:
                self.audit.event("budget", session_id or task_id, tool_name, tool_call_id,
                                 budgets={b.id: _budget_use(b) for b in spent.session.budgets()})
            answer = self.approvals.settle(call_ref, status in ("ok", "error"), _on_hermes_allowlist)
            if answer is not None:
                logger.info("AgentsFence: %s for %s: %s (%s)", tool_name, answer.rule_key, answer.choice, answer.scope)
                self.audit.event("approval", session_id or task_id, tool_name, tool_call_id, choice=answer.choice,
                                 granted=answer.scope)
                if answer.scope == "session":
                    self._save(answer.session_key)
        except Exception as error:
            logger.error("AgentsFence could not settle %s: %s", tool_name, error)
        if status == "ok" and not changed and result is not None:
            try:
                session = self._session_for(session_id, task_id)
                if session is not None:
                    session.observe(tool_name, with_patch_paths(tool_name, args), output_text(result))
            except Exception as error:  # derived targets only ever allow more: losing them fails closed
                logger.warning("AgentsFence could not read the output of %s: %s", tool_name, error)
        return None

    def _settle(self, call_ref: str, ran: bool) -> Held | None:
        """Commits (the call ran) or releases (it did not) the oldest reservation held for the call;
        the reservation when it was spent."""
        with self._lock:
            waiting = self._held.get(call_ref)
            if not waiting:
                return None
            held = waiting.pop(0)
            if not waiting:
                del self._held[call_ref]
        if ran:
            held.session.commit(held.reservation)
            self._save(held.session.id)  # spent units outlive a shutdown (--resume)
            return held
        held.session.release(held.reservation)
        return None

    def on_session_end(self, session_id: str = "", task_id: str = "", **kwargs: Any) -> None:
        """The end of a turn (Hermes fires it after every run_conversation): a reserved call whose
        post_tool_call never came (the tool raised, an edit approval refused it) did not finish; its
        units are released."""
        try:
            with self._lock:
                ended = [(ref, h) for ref, waiting in self._held.items() for h in waiting
                         if (session_id and h.session_id == session_id) or (task_id and h.task_id == task_id)]
                for ref, h in ended:
                    self._held[ref].remove(h)
                    if not self._held[ref]:
                        del self._held[ref]
            for _, h in ended:
                h.session.release(h.reservation)
        except Exception as error:
            logger.error("AgentsFence could not release the reservations of session %s: %s", session_id, error)
        return None

    def watch_policy(self, policy_files: PolicyFiles, installed: Installed) -> None:
        """Follows the state directory's policy files from now on (refresh_policy), and records the
        policy this start put in place: a policy that changed since the last start is an event of
        its own, with both hashes."""
        self.policy_files = policy_files
        self.policy_origin = installed.origin
        self.policy_error = installed.error
        self._policy_digest = installed.digest
        self._record_policy("start")

    def _record_policy(self, why: str) -> None:
        """An audit record of the policy in force (`policy`), and when its hash differs from the one
        the state directory last saw (at an earlier start, or before a reload) a `policy_changed`
        record with both. The last hash is kept beside the log (`policy.last`)."""
        state = self.policy_files.state_dir if self.policy_files is not None else None
        current = self.fence.policy_hash
        previous = None
        last = state / LAST_POLICY if state is not None else None
        if last is not None:
            try:
                previous = last.read_text().strip() or None
            except OSError:
                previous = None
        details = {"policy": self.fence.policy_name, "policy_hash": current, "origin": self.policy_origin, "why": why}
        try:
            self.audit.event("policy", "", "", **details)
            if previous is not None and previous != current:
                self.audit.event("policy_changed", "", "", policy=self.fence.policy_name, policy_hash=current,
                                 previous_hash=previous, origin=self.policy_origin, why=why)
                self.policy_change = (previous, current, why)
        except Exception as error:
            logger.error("AgentsFence: the policy in force could not be recorded in the audit log: %s", error)
        if last is not None and previous != current:
            try:
                temporary = last.with_name(f"{LAST_POLICY}.{os.getpid()}.tmp")
                temporary.write_text(current + "\n")
                os.replace(temporary, last)
            except OSError as error:
                logger.warning("AgentsFence: cannot keep the policy's hash in %s: %s", last, error)

    def refresh_policy(self) -> None:
        """At a user turn: when policy.yaml, a file it extends or policy.afb changed, the new policy
        is compiled (or read from the cache) and put in place, sessions kept. One that does not
        compile, or that the evaluator rejects, blocks every call until it is fixed."""
        files = self.policy_files
        if files is None or not files.changed():
            return
        try:
            installed = files.current()
            if installed.error is None and installed.digest != self._policy_digest:
                try:
                    self.fence.install(installed.bytecode)
                except FenceError:
                    if not installed.cached:
                        raise
                    files.forget_cache()
                    installed = files.current()
                    if installed.error is None:
                        self.fence.install(installed.bytecode)
                if installed.error is None:
                    logger.info("AgentsFence: policy %s (%s) from %s is in place", self.fence.policy_name,
                                self.fence.policy_hash[:12], installed.origin)
                    self.policy_origin = installed.origin
                    self._record_policy("reload")
            self.policy_origin = installed.origin
            self.policy_error = installed.error
            if installed.error is None:
                self._policy_digest = installed.digest
            else:
                logger.error("AgentsFence: every tool call is blocked until the policy compiles: %s", installed.error)
        except Exception as error:
            self.policy_error = f"the policy in {files.state_dir} cannot be put in place ({type(error).__name__}: {error})"
            logger.error("AgentsFence: %s", self.policy_error)

    def order_hooks(self, ctx: Any) -> None:
        """Keeps the fence's pre_tool_call first and, with plugin_conflicts: strict, every other
        plugin's pre_tool_call guarded (see guard_approvals)."""
        move_first(ctx, self.pre_tool_call)
        if self.settings.plugin_conflicts == "strict":
            try:
                callbacks = ctx._manager._hooks["pre_tool_call"]
                for index, callback in enumerate(callbacks):
                    # == not `is`: each access to self.pre_tool_call makes a new bound method.
                    if callback != self.pre_tool_call and not getattr(callback, "agentsfence_guarded", False):
                        callbacks[index] = self.guard_approvals(callback)
            except Exception as error:
                logger.warning("AgentsFence could not guard the other pre_tool_call hooks: %s", error)

    def guard_approvals(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Another plugin's approve turns into a block when the fence would ask or block the same
        call: on a dispatcher that acts on a later directive than the fence's, that approve (with
        --yolo, a plain yes) must not outvote the fence."""
        def guarded(**kwargs: Any) -> Any:
            result = callback(**kwargs)
            if not (isinstance(result, dict) and result.get("action") == "approve"):
                return result
            tool_name = kwargs.get("tool_name", "")
            try:
                _, decision, _ = self._decide_shared(tool_name, kwargs.get("args"), kwargs.get("task_id", ""),
                                                  kwargs.get("session_id", ""), kwargs.get("tool_call_id", ""))
            except Exception as error:
                return fault_block(tool_name, error)
            if decision.kind == "allow" or (self._observe and self.policy_error is None):
                return result
            return {"action": "block", "message": f"AgentsFence blocked {tool_name}: another plugin approved a call the fence "
                                                  f"{'asks about' if decision.kind == 'ask' else 'blocks'} "
                                                  f"(plugin_conflicts: strict) [plugin_conflict]"}

        guarded.agentsfence_guarded = True  # type: ignore[attr-defined]
        guarded.__wrapped__ = callback  # type: ignore[attr-defined]
        return guarded

    def _decide_shared(self, tool_name: str, args: Any, task_id: str, session_id: str,
                       tool_call_id: str) -> tuple[Session | None, Decision, bytes]:
        """With plugin_conflicts: strict, the fence's hook and the guard around another plugin's
        hook both need the decision of one call, in either order: it is made once (so its budget
        unit is reserved once) and the second of them takes it. One never taken is dropped by
        the call's post_tool_call."""
        key = call_reference(tool_call_id, session_id or task_id, tool_name, _arguments_json(args))
        with self._lock:
            shared = self._shared.pop(key, None)
        if shared is not None:
            return shared
        decided = self._decide(tool_name, args, task_id, session_id)
        with self._lock:
            self._shared[key] = decided
        return decided

    def subagent_start(self, parent_session_id: str = "", child_session_id: str = "", **kwargs: Any) -> None:
        """Binds the child to its parent's session, so the parent's intent is the child's ceiling."""
        try:
            if not child_session_id:
                return None
            # Without a parent we know, the child gets a session of its own that its (model-written)
            # messages never amend: an empty intent.
            parent = self._session_for(parent_session_id or "", "") or self.fence.session(child_session_id)
            with self._lock:
                self._children[child_session_id] = parent
        except Exception as error:
            logger.error("AgentsFence could not link subagent %s: %s", child_session_id, error)
            with self._lock:
                self._faults[child_session_id] = f"{type(error).__name__}: {error}"
        return None

    def on_session_finalize(self, session_id: str = "", reason: str = "", **kwargs: Any) -> None:
        """Forgets a finished session and its saved record; one ended by shutdown is kept, because
        `hermes --resume` can continue it. (Hermes 0.19's CLI /new finalizes the old session with
        reason "session_boundary", the gateway's with "new_session".)"""
        if session_id and reason != "shutdown":
            self._drop(session_id)
        return None

    def on_session_reset(self, session_id: str = "", old_session_id: str = "", **kwargs: Any) -> None:
        """/new or /reset: Hermes 0.19 passes the NEW session's id (and, from the gateway, the old
        one as old_session_id); the old session is over either way."""
        for ended in (old_session_id, session_id):
            if ended:
                self._drop(ended)
        return None

    def _drop(self, session_id: str) -> None:
        try:
            with self._lock:
                self._faults.pop(session_id, None)
                self._children.pop(session_id, None)
                self._records.pop(session_id, None)
                self._intents.pop(session_id, None)
                self._recent.pop(session_id, None)
                if self.current_session == session_id:
                    self.current_session = None
                for task_id in [k for k, s in self._tasks.items() if s.id == session_id]:
                    del self._tasks[task_id]
                    self._faults.pop(task_id, None)
                for ref in [r for r, waiting in self._held.items() if waiting[0].session.id == session_id]:
                    del self._held[ref]  # its counters close with the session
            self.fence.drop_session(session_id)
            self.approvals.forget(session_id)
            self.store.drop(session_id)
        except Exception as error:
            logger.error("AgentsFence could not drop session %s: %s", session_id, error)

    def _decide(self, tool_name: str, args: Any, task_id: str,
                session_id: str) -> tuple[Session | None, Decision, bytes]:
        """The call's session and decision, and its argument JSON as Hermes passed them (what
        post_tool_call compares against); b"" with a block for arguments that are not JSON."""
        session = self._session_for(session_id, task_id)  # first: loading a saved session may find it corrupt
        fault = self._faults.get(session_id or task_id) if session_id or task_id else None
        if fault is not None:
            return None, self._host_decision(tool_name, "host_error", f"the user's request could not be read ({fault})"), b""
        if session is None:
            # execute_code's nested calls carry only a task id: one never seen in a user's turn
            # belongs to no request, so there is no intent to decide it against.
            return None, self._host_decision(tool_name, "unknown_task", f"the call names no session, and its task id "
                                             f"{task_id!r} belongs to no conversation the fence has seen, so nothing says "
                                             "what the user asked for"), b""
        self._describe(tool_name)
        directory = self._working_directory(task_id)
        encoded = self._encode_call(tool_name, args)
        decided = with_patch_paths(tool_name, args)
        if not isinstance(encoded, tuple):  # decide blocks them (bad_arguments) without reaching the evaluator
            return session, session.decide(tool_name, decided, directory), b""
        if decided is args:  # the evaluator reads the very bytes kept for post_tool_call
            return session, session.decide_json(tool_name, encoded[1], directory), encoded[1]
        return session, session.decide(tool_name, decided, directory), encoded[1]

    def _describe(self, tool_name: str) -> None:
        """Tells the fence, once, what Hermes knows of the tool: the description and parameter
        schema its registry holds (an MCP server's inputSchema among them) and, for an MCP tool,
        its server and the server's annotations (readOnlyHint, destructiveHint, openWorldHint),
        which the registry drops but the MCP client keeps. A tool the policy never named is
        classified from them, and its parameters' roles are learned."""
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
            self.fence.describe_tool(tool_name, str(schema.get("description") or ""),
                                     parameters if isinstance(parameters, dict) else None,
                                     server=server, annotations=annotations)
        except Exception as error:  # the tool keeps the class its name gives it
            logger.warning("AgentsFence could not read the schema of %s: %s", tool_name, error)

    def _narrow_by_model(self, key: str, session: Session, text: str) -> None:
        """With llm_intent on, the model's reading of the user's message narrows the session
        (agentsfence/llm.py); any failure leaves the deterministic binding alone, logged."""
        reader = self.intent_reader()
        if reader is None:
            return
        from .llm import ReadingFailed  # loaded already: it made the reader

        try:
            narrowing = reader.read(text)
            if narrowing.prohibit or narrowing.ask:
                self._intents[key] = session.narrow(list(narrowing.prohibit), list(narrowing.ask))
        except (ReadingFailed, FenceError) as error:
            logger.warning("AgentsFence: the model's reading of the message is not used (%s); "
                           "the deterministic binding stands", error)

    # ---- the working directory Hermes resolves this task's relative paths against ----

    def _working_directory(self, task_id: str) -> str:
        """tools.file_tools._resolve_base_dir's order, minus what costs a syscall per call: the
        task's live terminal cwd (it follows `cd`), else an absolute TERMINAL_CWD, else the
        process cwd. (Hermes also honours per-task overrides set by its TUI/ACP front ends.)"""
        if self._session_cwd is None:
            try:
                from tools.terminal_tool import get_session_cwd
            except Exception:
                def get_session_cwd(key: str | None) -> str | None:
                    return None
            self._session_cwd = get_session_cwd
        candidate = self._session_cwd(task_id or "default")
        if candidate and _is_absolute(candidate):
            return candidate
        candidate = os.environ.get("TERMINAL_CWD")  # read only when the task has no cwd of its own
        if candidate and _is_absolute(candidate):
            return candidate
        return os.getcwd()

    # ---- links ----

    def _session_for(self, session_id: str, task_id: str) -> Session | None:
        # Read without the lock: a dict read is atomic, and the lock guards the writes.
        if session_id:
            linked = self._children.get(session_id)
        else:
            linked = self._tasks.get(task_id) if task_id else None
        if linked is None:
            if not session_id:
                return None
            linked = self._top_session(session_id)
        self._alias(task_id, linked)
        return linked

    # ---- saved sessions ----

    def _top_session(self, session_id: str) -> Session:
        """The fence session of a top-level Hermes session, restored from its saved record the
        first time this process sees it (a resumed session keeps its intent and grants)."""
        if session_id not in self._records:  # an atomic read; the record is added under the lock
            try:
                record = self.store.load(session_id) or SessionRecord(session_id)
            except StateCorrupt as error:
                record = SessionRecord(session_id)
                with self._lock:
                    self._faults[session_id] = f"the session's saved state is unusable: {error}"
            session = self.fence.session(session_id)
            for text, directory in record.messages:
                self._intents[session_id] = session.intent(text, directory)
                self._narrow_by_model(session_id, session, text)
            for task_id in record.tasks:
                self._alias(task_id, session)
            session.restore_budgets(record.budgets)
            self.approvals.restore(session_id, record.grants)
            with self._lock:
                self._records.setdefault(session_id, record)
        return self.fence.session(session_id)

    def _remember_turn(self, session_id: str, task_id: str, text: str, directory: str, sender_id: str = "") -> None:
        with self._lock:
            record = self._records[session_id]
            if text:
                record.messages.append((text, directory))
            if task_id and task_id not in record.tasks:
                record.tasks.append(task_id)
            if sender_id and sender_id not in record.senders:
                # A gateway session shared by several people (group_sessions_per_user: false) binds
                # every sender's messages into one intent: each is on record.
                record.senders.append(sender_id)
        self._save(session_id)

    # ---- /fence ----

    def amend(self, session_id: str, text: str) -> None:
        """The CLI user's own words through /fence: bound and saved like a user message."""
        session = self._top_session(session_id)
        directory = self._working_directory("")
        self._intents[session_id] = session.intent(text, directory)
        self._remember_turn(session_id, "", text, directory)

    def describe_session(self, session_id: str) -> str:
        with self._lock:
            record = self._records.get(session_id)
            intent = self._intents.get(session_id)
            recent = list(self._recent.get(session_id, ()))
            fault = self._faults.get(session_id)
        lines = [f"AgentsFence, session {session_id} (policy {self.fence.policy_name}, {self.fence.policy_hash[:12]})"]
        if self.policy_change is not None:
            previous, current, why = self.policy_change
            lines.append(f"The policy changed ({'since the last start' if why == 'start' else 'while running'}): "
                         f"{previous[:12]} -> {current[:12]}")
        if self.policy_error is not None:
            lines.append(f"Every call is blocked: {self.policy_error}")
        if self._observe:
            lines.append("Observe mode: every call is decided and recorded, none is blocked or asked about "
                         "(agentsfence report lists what enforce would have done)")
        if fault is not None:
            lines.append(f"Every call is blocked: {fault}")
        if record is not None and record.messages:
            lines.append(f"Task: {record.messages[0][0][:200]}")
        if intent is not None:
            named = [*intent.paths, *intent.emails, *intent.recipients, *intent.urls, *intent.domains]
            lines.append("Allowed where the policy lets the user decide: " + (", ".join(named) if named else "nothing named"))
            lines.append("Prohibited: " + (", ".join(f"{c} ('{v}')" for c, v in intent.prohibited) or "nothing"))
            lines.append("The request, as the fence reads it (role, mood, turn, clause):")
            lines += intent.describe()
        budgets = self.fence.session(session_id).budgets()
        if budgets:
            lines.append("Budgets: " + "; ".join(
                f"{b.id}: {b.remaining} of {b.limit}{' ' + b.currency if b.currency else ''} left ({b.spent} spent, {b.reserved} under way)"
                if b.sums else f"{b.id}: {b.remaining} of {b.limit} left ({b.spent} made, {b.reserved} under way)" for b in budgets))
        grants = self.approvals.session_grants(session_id)
        lines.append(f"Approvals granted for this session: {len(grants)}")
        if record is not None and record.senders:
            lines.append("Senders: " + ", ".join(record.senders))
        lines.append("Recent decisions:" + ("".join(f"\n  {m}" for m in recent) if recent else " none"))
        return "\n".join(lines)

    def _save(self, session_id: str) -> None:
        """A session that cannot be saved still decides correctly now; only a resume would lose it."""
        with self._lock:
            record = self._records.get(session_id)
            if record is None:
                return
            record.grants = self.approvals.session_grants(session_id)
            try:
                record.budgets = {b.id: b.saved for b in self.fence.session(session_id).budgets() if b.spent}
                self.store.save(record)
            except (OSError, FenceError) as error:
                logger.error("AgentsFence could not save session %s: %s", session_id, error)

    def _alias(self, task_id: str, session: Session) -> None:
        # Read first without the lock (a dict read is atomic): most calls find the link in place.
        if task_id and self._tasks.get(task_id) is not session:
            with self._lock:
                self._tasks[task_id] = session


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


def _budget_use(budget: Any) -> dict[str, Any]:
    """A budget's use as the audit log keeps it: calls as integers; a budget of sums as decimal
    text, its cap with its currency when it names one ("500 EUR")."""
    if not budget.sums:
        return {"spent": budget.spent, "limit": budget.limit}
    return {"spent": budget.saved, "limit": f"{budget.limit} {budget.currency}".strip(), "sums": True}
