"""The Hermes Agent plugin: `register(ctx)` puts the fence in front of every tool call.

Verified against hermes-agent 0.19.0 (hermes_cli/plugins.py, agent/turn_context.py,
model_tools.py, tools/delegate_tool.py, cli.py):
- The entry point `agentsfence = agentsfence.hermes` in group `hermes_agent.plugins` becomes a
  plugin whose name and key are the entry point's name; it loads only when `agentsfence` is in
  `plugins.enabled` of $HERMES_HOME/config.yaml. The loaded module must expose `register(ctx)`
  (agentsfence/hermes/__init__.py, which calls this module's).
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
  turn_id, user_message (the turn's user-role message, a string or a multimodal list: what the
  person typed, or text Hermes wrote, alone or around it: turns.py finds the typed words),
  conversation_history, is_first_turn, model, platform ("cron", "curator", "webhook": no
  person's), sender_id. Its results can only add context. agent/turn_context.py fires it after
  binding the skill write origin, so the review fork's turn can be told apart.
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
HermesFence adapts each hook to the parts beside it: sessions.py (Hermes' ids to fence
sessions), ledger.py (what a call holds until its outcome), gate.py (directives, approvals and
hook order), policy.py (the policy in force), view.py (/fence), payloads.py and environment.py
(what Hermes hands over, and its own state).
"""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..audit import AuditLog, scrub
from ..errors import FenceError
from ..layout import hermes_state
from ..records import host_decision
from ..rules import LearnedRule, RulesError, add_rule, rule_for, rules_path
from ..state import SessionStore, StoreUnavailable
from ..store import open_store
from .approvals import Approvals, call_reference
from .bridge import BATCH_TOOL, Bridge
from .confine import Confiner, Ruling
from .environment import ToolSchemas, forget_permanent, on_allowlist, on_permanent_allowlist, working_directory
from .gate import Directive, Gate, block, blocking_middleware, fault_block, move_first, move_last
from .homes import hermes_home, hermes_homes
from .ledger import Held, Ledger
from .notices import Notices
from .payloads import arguments_json, output_text, with_patch_paths
from .policy import PolicyWatch
from .question import block_notice, call_words, question
from .sessions import Sessions
from .turns import background_review, hermes_templates, typed_text
from .view import SessionView, run_cli, setup_cli

if TYPE_CHECKING:
    from ..api import Decision, Fence, Session
    from ..bundle import BundleSource
    from ..installed import Installed, PolicyFiles
    from ..llm import IntentReader
    from ..settings import Settings

logger = logging.getLogger("agentsfence")

NOT_RUN = frozenset({"blocked", "cancelled", "timeout"})  # post_tool_call statuses of a call that did not run
# Decisions that are faults, not the policy's: they block in observe mode too (docs/bytecode.md §8.1).
FAULTS = frozenset({"engine_fault", "host_error", "unknown_session", "unknown_task", "no_policy", "out_of_memory",
                    "bad_arguments", "limit_exceeded", "policy_error"})


FENCE_CLI = ("fence", "AgentsFence: status, and explain one decision", setup_cli, run_cli)
FENCE_CLI_DESCRIPTION = "Show the installed policy and settings, or decide one call and say why."


def register(ctx: Any, **kwargs: Any) -> None:
    home = hermes_home()
    state = hermes_state(home)
    notices = Notices(getattr(ctx, "_manager", None))
    try:
        from ..bundle import policy_source
        from ..settings import load_settings

        settings = load_settings(home)
        policy_files = policy_source(state.path, settings, fetch_first=True)
        from .confine import sandbox_support

        # Confined commands run through the tool_execution middleware: without it, no sandbox.
        can_confine, sandbox_why = sandbox_support(settings.sandbox) if hasattr(ctx, "register_middleware") else \
            (False, "this Hermes has no tool_execution middleware; commands the fence would confine are asked about")
        fence, installed = start_fence(policy_files, can_confine)
    except Exception as error:  # wasmtime missing, no wasm, a rejected policy or settings: fail closed
        logger.error("AgentsFence could not start; every tool call will be blocked: %s", error)
        stopped = Stopped(f"AgentsFence could not start ({type(error).__name__}: {error}), so every tool call is "
                          "blocked; `hermes fence status` says what is wrong and how to fix it", AuditLog(state.audit_log),
                          notices)
        ctx.register_hook("pre_tool_call", stopped.pre_tool_call)
        ctx.register_hook("pre_llm_call", stopped.pre_llm_call)
        move_first(ctx, stopped.pre_tool_call)
        if hasattr(ctx, "register_middleware"):  # for a call another hook's directive lets through
            ctx.register_middleware("tool_execution", blocking_middleware(stopped.why))
        # The way out stays open: `hermes fence` and /fence say what is wrong (best effort: the
        # blocking hook is in place whatever this Hermes lacks).
        try:
            ctx.register_command("fence", lambda raw_args="": stopped.why, description="Show why AgentsFence blocks every call")
            ctx.register_cli_command(*FENCE_CLI, description=FENCE_CLI_DESCRIPTION)
        except Exception as command_error:
            logger.error("AgentsFence could not register its commands: %s", command_error)
        return
    from ..shipping import start_shipping

    store = open_store(settings.state, state.path)
    audit = AuditLog(state.audit_log)
    audit.shipper = start_shipping(settings, state.path)  # None unless settings name a collector
    plugin = HermesFence(fence, settings, SessionStore(state.sessions, store), audit, lambda: plugin.order_hooks(ctx),
                         notices, state.path, lambda: move_last(ctx, plugin.confiner.middleware))
    plugin.policy.watch(policy_files, installed)
    for name, hook in plugin.hooks().items():
        ctx.register_hook(name, hook)
    plugin.sandbox_why = plugin.view.sandbox_why = sandbox_why
    if hasattr(ctx, "register_middleware"):
        ctx.register_middleware("tool_execution", plugin.confiner.middleware)
    if sandbox_why:
        logger.warning("AgentsFence: %s", sandbox_why)
    ctx.register_command("fence", lambda raw_args="": plugin.fence_command(raw_args),
                         description="Show or change this session's AgentsFence policy", args_hint="[show|allow TEXT|deny TEXT|rules]")
    ctx.register_cli_command(*FENCE_CLI, description=FENCE_CLI_DESCRIPTION)
    if settings.llm_intent:  # off, the class's reader is none (agentsfence.llm is not imported)
        from ..llm import reader_for

        plugin.intent_reader = reader_for(ctx, settings.llm_intent, settings.llm_timeout)
    plugin.order_hooks(ctx)
    if installed.error is not None:
        logger.error("AgentsFence: every tool call will be blocked until the policy compiles: %s", installed.error)
        notices.at_start(f"AgentsFence blocks every tool call until its policy compiles: {installed.error.splitlines()[-1]} "
                         "(`hermes fence status` says more)")
    if installed.learned_error is not None:
        notices.at_start(f"AgentsFence: your learned rules are not in force, their calls are asked about: {installed.learned_error}")
    if sandbox_why:
        notices.at_start(f"AgentsFence: no sandbox, so commands it would confine are asked about: {sandbox_why}")
    logger.info("AgentsFence active: policy %s (%s) from %s, mode %s, fence.wasm: %s", fence.policy_name,
                fence.policy_hash[:12], installed.origin, settings.mode, fence.module_source)


def start_fence(policy_files: PolicyFiles | BundleSource, sandbox: bool = False) -> tuple[Fence, Installed]:
    """The fence with the state folder's policy. A policy.yaml that does not compile gives the
    shipped default here, which decides nothing: the plugin blocks every call with the error. A
    cached compilation the evaluator rejects is dropped and compiled again, once."""
    from ..api import Fence

    installed = policy_files.current()
    try:
        return Fence(installed.bytecode, hermes_homes=hermes_homes(), sandbox=sandbox), installed
    except FenceError:
        if not installed.cached:
            raise
    logger.warning("AgentsFence: the evaluator rejected the cached compilation of %s; compiling it again", installed.origin)
    policy_files.forget_cache()
    installed = policy_files.current()
    return Fence(installed.bytecode, hermes_homes=hermes_homes(), sandbox=sandbox), installed


class HermesFence:
    """The hooks: each takes Hermes' keyword arguments, asks the parts beside it, and answers
    Hermes. Every hook body catches everything: a raising hook is no directive, and the tool runs."""

    # The model's reading of user messages (settings llm_intent); register() sets it.
    intent_reader: Callable[[], IntentReader | None] = staticmethod(lambda: None)

    def __init__(self, fence: Fence, settings: Settings, store: SessionStore, audit: AuditLog, reorder: Callable[[], Any],
                 notices: Notices | None = None, state_dir: Path | None = None, innermost: Callable[[], bool] = lambda: False):
        self.fence = fence
        self.notices = notices or Notices(None)
        self.state_dir = state_dir  # where learned rules are kept (None: [a]lways answers make none)
        self._rules_lock = threading.Lock()  # [a]lways answers on Hermes' worker threads each rewrite rules.yaml
        self.settings = settings
        self.audit = audit
        self._reorder = reorder  # puts the hooks in place; True when the fence's pre_tool_call was first already
        self._observe = settings.mode == "observe"
        self.approvals = Approvals()
        self.sessions = Sessions(fence, store, self.approvals, lambda: self.intent_reader())
        self.ledger = Ledger(store, self.sessions.user_of)
        self.policy = PolicyWatch(fence, audit)
        # Through the attribute: a test may stand in for _decide. A tool_call batch is decided by its calls.
        self.bridge = Bridge(lambda *call: self._decide(*call), lambda ref, session, units, session_id, task_id:
                             self.ledger.hold(ref, Held(session, units, session_id, task_id)), self.audit.event)
        self.gate = Gate(self.approvals, settings, self.bridge.decide,
                         lambda: self._observe and self.policy.error is None, self.audit.event)
        self.view = SessionView(fence, self.sessions, self.policy, self.approvals, self._observe, state_dir)
        self.tools = ToolSchemas(fence)
        self.sandbox_why = ""  # why confined calls are asked about instead (register() sets it)
        # innermost: whether the fence's tool_execution middleware is the last (it is moved last).
        self.confiner = Confiner(self.audit.event, self.redecide, innermost)
        # Bound once (a Fence means api is loaded): an import statement per call costs more than the lookup.
        from ..api import encode_call, host_decision
        self._encode_call = encode_call
        self._host_decision = host_decision

    def hooks(self) -> dict[str, Callable[..., Any]]:
        """Every hook the plugin registers (plugin.yaml lists the same)."""
        return {"pre_tool_call": self.pre_tool_call, "pre_llm_call": self.pre_llm_call,
                "subagent_start": self.subagent_start, "on_session_finalize": self.on_session_finalize,
                "on_session_reset": self.on_session_reset, "post_tool_call": self.post_tool_call,
                "post_approval_response": self.post_approval_response, "on_session_end": self.on_session_end}

    @property
    def policy_error(self) -> str | None:
        """Why the installed policy cannot be used (every call is blocked), or None."""
        return self.policy.error

    def order_hooks(self, ctx: Any) -> bool:
        """Puts the fence's hook first and its middleware last; whether the hook was first already."""
        return self.gate.order_hooks(ctx, self.pre_tool_call,
                                     self.confiner.middleware if hasattr(ctx, "register_middleware") else None)

    def fence_command(self, raw_args: str = "") -> str:
        """/fence, after a warning for each loaded plugin that runs tools no hook sees (gate.py)."""
        text = self.view.command(raw_args)
        return "\n".join([*(f"AgentsFence warning: {w}" for w in self.gate.warnings), text])

    def describe_session(self, session_id: str) -> str:
        return self.view.describe(session_id)

    def amend(self, session_id: str, text: str) -> None:
        self.view.amend(session_id, text)

    # ---- a user turn ----

    def pre_llm_call(self, session_id: str = "", task_id: str = "", user_message: Any = None, sender_id: Any = "",
                     platform: Any = "", **kwargs: Any) -> None:
        self._reorder()
        self.notices.show_started()
        self.policy.refresh()  # an edited policy.yaml or rules.yaml takes effect from this turn
        key = session_id or task_id
        sessions = self.sessions
        try:
            parent = sessions.parent(key)
            if parent is not None:
                # A subagent's "user message" is its parent model's goal text: it grants nothing.
                sessions.alias(task_id, parent)
                return None
            session = sessions.top(key)
            sessions.refresh(key)  # what another gateway saved for the session since
            sessions.alias(task_id, session)
            sessions.current = key
            # Only what the person typed: a turn Hermes wrote binds nothing, and the session
            # keeps the intent its earlier turns bound.
            text = typed_text(user_message, platform, hermes_templates(), background_review)
            directory = working_directory(task_id)
            if text:
                sessions.bind(key, session, text, directory)
            elif user_message:
                logger.info("AgentsFence: a turn of session %s has no words a person typed (Hermes wrote it); "
                            "it grants nothing", key)
            sessions.remember_turn(key, task_id, text, directory, sender_id if isinstance(sender_id, str) else "")
        except StoreUnavailable as error:
            # Not a fault of the session: its calls block while the store is down (loading it
            # fails again), and it is loaded when the store is back, without this turn's words.
            logger.error("AgentsFence could not load session %s, so its calls block until the state store is back: %s",
                         key, error)
        except Exception as error:
            logger.error("AgentsFence could not bind the user's message: %s", error)
            for fault_key in (session_id, task_id):
                if fault_key:
                    sessions.set_fault(fault_key, f"{type(error).__name__}: {error}")
        return None

    # ---- a tool call ----

    def pre_tool_call(self, tool_name: str = "", args: Any = None, task_id: str = "", session_id: str = "",
                      tool_call_id: str = "", **kwargs: Any) -> Directive:
        # Before each decision too: a plugin may have been loaded, or a hook moved, since the last turn.
        first = bool(self._reorder())
        key = session_id or task_id
        try:
            policy_error = self.policy.error
            if policy_error is not None:
                refused = self._host_decision(tool_name, "policy_error", f"the installed policy cannot be used, so every "
                                              f"call is blocked until it can: {policy_error}")
                self.audit.decision(key, tool_name, tool_call_id, args, refused, 0.0)
                self.notices.show(f"AgentsFence blocked {tool_name}: the policy cannot be used (`hermes fence status` says why)")
                return self._ruled(tool_call_id, key, Ruling(tool_name, ruled_json_of(args), "block", refused.message,
                                                             None, None))
            if not tool_call_id and self.settings.no_tool_call_id == "block":
                refused = self._host_decision(tool_name, "no_tool_call_id", "the call has no tool_call_id, and this fence is "
                                              "set to block such calls (no_tool_call_id: block)")
                self.audit.decision(key, tool_name, tool_call_id, args, refused, 0.0)
                return self._ruled(tool_call_id, key, Ruling(tool_name, ruled_json_of(args), "block", refused.message,
                                                             None, None))
            started = time.perf_counter_ns()
            if self.settings.plugin_conflicts == "strict":
                session, decision, decided_json = self.gate.decide_shared(tool_name, args, task_id, session_id, tool_call_id)
            else:
                session, decision, decided_json = self.bridge.decide(tool_name, args, task_id, session_id, tool_call_id)
            elapsed_us = (time.perf_counter_ns() - started) / 1000
            observing = self._observe and decision.reason not in FAULTS
            try:
                self.audit.decision(session_id or task_id, tool_name, tool_call_id, args, decision, elapsed_us,
                                    "observe" if observing else "enforce")
            except Exception:
                # A decision that cannot be recorded is not acted on: the error blocks (see _fault),
                # so a unit it reserved is free again.
                if decision.reservation and session is not None:
                    self.ledger.cancel(session, decision.reservation)
                raise
            kind = decision.kind
            if session is not None:
                self.sessions.note_decision(session.id, decision.message)
            if tool_call_id and (kind != "block" or observing):
                # compared in post_tool_call: did the call run with what was decided?
                self.ledger.decided(tool_call_id, decided_json)
            ruled_json = decided_json or ruled_json_of(args)  # b"" for a call decided without its JSON (a fault)
            if observing:
                # Decided and recorded (its record says what enforce would have done), not acted on.
                if decision.reservation and session is not None:
                    call_ref = call_reference(tool_call_id, key, tool_name, decided_json)
                    self.ledger.hold(call_ref, Held(session, decision.reservation, session_id, task_id))
                return self._ruled(tool_call_id, key, Ruling(tool_name, ruled_json, "allow", decision.message, None, None))
            ruling = Ruling(tool_name, ruled_json, kind, decision.message, session, working_directory(task_id))
            if kind == "block":
                self._notice(lambda: block_notice(tool_name, args, decision, working_directory(task_id)))
                return self._ruled(tool_call_id, key, ruling)
            call_ref = call_reference(tool_call_id, key, tool_name, decided_json) \
                if decision.reservation or decision.kind == "ask" else ""
            if decision.reservation and session is not None:
                self.ledger.hold(call_ref, Held(session, decision.reservation, session_id, task_id))
            if kind != "ask":  # allow, or confine: run inside the task's sandbox by the middleware
                return self._ruled(tool_call_id, key, ruling)
            directory = working_directory(task_id)
            # A rule can allow what no rule of the policy decided (its default, a confinement
            # that cannot hold); never what a reader could not read, nor what a rule asks about.
            lasting = rule_for(tool_name, args, decision.targets, call_words(tool_name, args, decision, directory)) \
                if self.state_dir is not None and not decision.rule and not decision.opaque else None
            directive = self.gate.ask(decision, session.id if session is not None else "", tool_name, decided_json, call_ref,
                                      question(tool_name, args, decision, directory, lasting), lasting)
            if directive is not None and directive["action"] == "block":
                self.ledger.settle(call_ref, ran=False)  # the fence refused it after all: it will not run
                ruling.kind, ruling.message = "block", directive["message"]
                self._notice(lambda: f"AgentsFence blocked: {call_words(tool_name, args, decision, directory)}: it needs "
                                     "your approval, and nobody would be asked (strict_yolo)")
            # An approve Hermes put behind an earlier hook's directive: the question answered was not the fence's.
            ruling.asked_behind = directive is not None and not first
            return self._ruled(tool_call_id, key, ruling, directive)
        except Exception as error:
            return self._fault(tool_name, error, key, tool_call_id, args)

    def _ruled(self, tool_call_id: str, session_key: str, ruling: Ruling, directive: Directive = None) -> Directive:
        """Keeps the ruling for the middleware, which holds the call that runs to it, and answers
        Hermes: a block's message, an ask's directive, or none."""
        self.confiner.decided(tool_call_id, session_key, ruling)
        return block(ruling.message) if ruling.kind == "block" else directive

    def redecide(self, tool_name: str, args: Any, task_id: str, session_id: str, tool_call_id: str) -> Ruling:
        """A call whose arguments changed after its decision, decided again on what would run
        (the tool_execution middleware): its ruling, allow, confine or block. An ask goes to
        Hermes' own approval gate, as the hook's would."""
        key = session_id or task_id
        ran_json = arguments_json(args)

        def refused(why: str) -> Ruling:
            return Ruling(tool_name, ran_json, "block", why, None, None)
        try:
            if self.settings.plugin_conflicts == "strict":
                return refused("another plugin changed them (plugin_conflicts: strict) [args_changed]")
            session, decision, decided_json = self._decide(tool_name, args, task_id, session_id)
            observing = self._observe and decision.reason not in FAULTS
            self.audit.decision(key, tool_name, tool_call_id, args, decision, 0.0, "observe" if observing else "enforce")
            call_ref = call_reference(tool_call_id, key, tool_name, decided_json)
            self.ledger.settle(call_ref, ran=False)  # the first decision's units: that call does not run
            if decision.reservation and session is not None:
                self.ledger.hold(call_ref, Held(session, decision.reservation, session_id, task_id))
            self.ledger.decided(tool_call_id, decided_json)  # post_tool_call compares with this decision now
            kind = "allow" if observing else decision.kind
            ruling = Ruling(tool_name, ran_json, kind, decision.message, None if observing else session,
                            working_directory(task_id))
            if kind in ("allow", "confine"):
                return ruling
            directive = None if kind == "block" else \
                self.gate.ask(decision, session.id if session is not None else "", tool_name, decided_json, call_ref)
            if kind == "ask" and directive is None:
                return ruling  # a person granted this very call for the session
            if kind == "ask" and directive["action"] == "approve":
                from tools.approval import request_tool_approval

                answer = request_tool_approval(tool_name, directive["message"], rule_key=directive["rule_key"])
                if answer.get("approved"):
                    return ruling
                directive = {"message": str(answer.get("message") or f"{decision.message} (not approved)")}
            self.ledger.settle(call_ref, ran=False)
            return refused((directive or {}).get("message") or decision.message)
        except Exception as error:  # the middleware must not raise: Hermes would run the call
            logger.error("AgentsFence failed deciding %s again", tool_name, exc_info=error)
            return refused(f"the fence failed ({type(error).__name__}: {error}) [host_error]")

    def _notice(self, words: Callable[[], str]) -> None:
        """A notice whose wording fails is logged: it changes no decision. Outside Hermes (a
        benchmark) none is worded: a block costs what it did."""
        if not self.notices.wanted:
            return
        try:
            self.notices.show(words())
        except Exception as error:
            logger.warning("AgentsFence could not word a notice: %s", error)

    def _decide(self, tool_name: str, args: Any, task_id: str,
                session_id: str) -> tuple[Session | None, Decision, bytes]:
        """The call's session and decision, and its argument JSON as Hermes passed them (what
        post_tool_call compares against); b"" with a block for arguments that are not JSON."""
        session = self.sessions.session_for(session_id, task_id)  # first: loading a saved session may find it corrupt
        fault = self.sessions.fault(session_id or task_id) if session_id or task_id else None
        if fault is not None:
            return None, self._host_decision(tool_name, "host_error", f"the user's request could not be read ({fault})"), b""
        if session is None:
            # execute_code's nested calls carry only a task id: one never seen in a user's turn
            # belongs to no request, so there is no intent to decide it against.
            return None, self._host_decision(tool_name, "unknown_task", f"the call names no session, and its task id "
                                             f"{task_id!r} belongs to no conversation the fence has seen, so nothing says "
                                             "what the user asked for"), b""
        self.tools.describe(tool_name)
        directory = working_directory(task_id)
        encoded = self._encode_call(tool_name, args)
        decided = with_patch_paths(tool_name, args)
        if not isinstance(encoded, tuple):  # decide blocks them (bad_arguments) without reaching the evaluator
            return session, session.decide(tool_name, decided, directory), b""
        if decided is args:  # the evaluator reads the very bytes kept for post_tool_call
            def decide() -> Decision:
                return session.decide_json(tool_name, encoded[1], directory)
        else:
            def decide() -> Decision:
                return session.decide(tool_name, decided, directory)
        with self.ledger.deciding(session.id):  # a budget's counts are set and read around the decision
            return session, self.ledger.counted(session, tool_name, decide(), decide), encoded[1]

    def _fault(self, tool_name: str, error: Exception, session_key: str = "", tool_call_id: str = "", args: Any = None) -> Directive:
        """An internal error blocks the call, unless the policy lets its risk class fail open; the
        block is in the audit log like any other (a log that cannot be written changes nothing)."""
        try:
            if self.policy.error is None and self.fence.fails_open(tool_name):
                logger.error("AgentsFence failed deciding %s; its risk class fails open", tool_name, exc_info=error)
                return self._ruled(tool_call_id, session_key, Ruling(tool_name, ruled_json_of(args), "allow",
                                                                     "its risk class fails open", None, None))
        except Exception:
            pass  # the fail mode cannot be read either: closed
        directive = fault_block(tool_name, error)
        failed = f"the fence failed ({type(error).__name__}: {error})"
        try:  # the middleware refuses it too, whatever another hook's directive made Hermes do
            self.confiner.decided(tool_call_id, session_key, Ruling(tool_name, ruled_json_of(args), "block",
                                                                    directive["message"], None, None))
        except Exception as ruling_error:
            logger.error("AgentsFence could not keep the block of %s: %s", tool_name, ruling_error)
        try:  # the block is on record like every other, with the words the person and the model get
            self.audit.decision(session_key, tool_name, tool_call_id, args,
                                self._host_decision(tool_name, "host_error", failed), 0.0, error=directive["message"])
        except Exception as audit_error:
            logger.error("AgentsFence could not record the block of %s: %s", tool_name, audit_error)
        self.notices.show(f"AgentsFence blocked {tool_name}: {failed}")
        return directive

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
            ran_json = arguments_json(args)
            if tool_call_id and self.ledger.changed_since_decided(tool_call_id, ran_json) and status != "blocked":
                # Another plugin changed the arguments after the fence decided (in place, or
                # with a newer Hermes' modify directive): what ran is not what was decided.
                logger.warning("AgentsFence: %s ran with arguments changed after its decision", tool_name)
                self.audit.event("args_changed", session_id or task_id, tool_name, tool_call_id)
                changed = True
            call_ref = call_reference(tool_call_id, session_id or task_id, tool_name, ran_json)
            self.gate.forget_shared(tool_call_id, session_id or task_id, tool_name, ran_json)
            self.confiner.forget(tool_call_id, session_id or task_id, tool_name, ran_json)
            if tool_name == BATCH_TOOL:
                self.bridge.finish(tool_call_id, session_id or task_id)
            spent = self.ledger.settle(call_ref, ran=status not in NOT_RUN)
            if spent is not None:
                self.audit.event("budget", session_id or task_id, tool_name, tool_call_id,
                                 budgets={b.id: _budget_use(b) for b in spent.session.budgets()})
            answer = self.approvals.settle(call_ref, status in ("ok", "error"), on_allowlist, on_permanent_allowlist)
            if answer is not None:
                logger.info("AgentsFence: %s for %s: %s (%s)", tool_name, answer.rule_key, answer.choice, answer.scope)
                self.audit.event("approval", session_id or task_id, tool_name, tool_call_id, choice=answer.choice,
                                 granted=answer.scope, **({"learnable": learnable(answer.lasting)} if answer.lasting else {}))
                if answer.scope == "session":
                    self.sessions.save(answer.session_key)
                if answer.choice == "always":
                    self._keep(answer, session_id or task_id, tool_name, tool_call_id)
        except Exception as error:
            logger.error("AgentsFence could not settle %s: %s", tool_name, error)
        if status == "ok" and not changed and result is not None:
            try:
                session = self.sessions.session_for(session_id, task_id)
                if session is not None:
                    session.observe(tool_name, with_patch_paths(tool_name, args), output_text(result))
            except Exception as error:  # derived targets only ever allow more: losing them fails closed
                logger.warning("AgentsFence could not read the output of %s: %s", tool_name, error)
        return None

    def _keep(self, answer: Any, session_key: str, tool_name: str, tool_call_id: str) -> None:
        """An [a]lways answer: its learned rule is written (the next turn's policy includes it),
        and Hermes' permanent allowlist loses the key, which names this session only."""
        forget_permanent(answer.rule_key)
        rule = answer.lasting
        if rule is None:
            self.notices.show(f"AgentsFence: no lasting rule can allow this {tool_name} call (its question said why), "
                              "so \"always\" holds for this session only")
            return
        try:
            with self._rules_lock:
                added = add_rule(rules_path(self.state_dir), rule)
        except (RulesError, OSError) as error:
            self.notices.show(f"AgentsFence could not keep your answer as a rule, so it holds for this session only: {error}")
            return
        self.audit.event("rule_learned", session_key, tool_name, tool_call_id, rule=rule.id)
        if added:
            self.notices.show(f"AgentsFence kept a rule ({rule.id}): allow {rule.describe()}. "
                              f"`agentsfence rules remove {rule.id}` removes it")

    # ---- subagents, and the ends of turns and sessions ----

    def subagent_start(self, parent_session_id: str = "", child_session_id: str = "", **kwargs: Any) -> None:
        """Binds the child to its parent's session, so the parent's intent is the child's ceiling."""
        try:
            if not child_session_id:
                return None
            # Without a parent we know, the child gets a session of its own that its (model-written)
            # messages never amend: an empty intent.
            parent = self.sessions.session_for(parent_session_id or "", "") or self.fence.session(child_session_id)
            self.sessions.link_child(child_session_id, parent)
        except Exception as error:
            logger.error("AgentsFence could not link subagent %s: %s", child_session_id, error)
            self.sessions.set_fault(child_session_id, f"{type(error).__name__}: {error}")
        return None

    def on_session_end(self, session_id: str = "", task_id: str = "", **kwargs: Any) -> None:
        """The end of a turn (Hermes fires it after every run_conversation): a reserved call whose
        post_tool_call never came (the tool raised, an edit approval refused it) did not finish; its
        units are released."""
        try:
            self.confiner.end_turn({key for key in (session_id, task_id) if key})
            self.ledger.end_turn(session_id, task_id)
        except Exception as error:
            logger.error("AgentsFence could not release the reservations of session %s: %s", session_id, error)
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
            self.ledger.forget(session_id)
            self.sessions.drop(session_id)
        except Exception as error:
            logger.error("AgentsFence could not drop session %s: %s", session_id, error)


def learnable(rule: LearnedRule) -> dict[str, Any]:
    """A learned rule as an approval's audit record keeps it (for `agentsfence report`'s
    suggestions), its values scrubbed of what looks like a secret."""
    policy = rule.as_policy()
    policy["when"] = {subject: {"in": [scrub(v) for v in predicate["in"]]} for subject, predicate in policy["when"].items()}
    return {key: value for key, value in policy.items() if key not in ("effect", "reason")}


class Stopped:
    """The plugin when the fence could not start: every call is blocked, recorded and shown, and
    the person is told why at their first turn."""

    def __init__(self, why: str, audit: AuditLog, notices: Notices):
        self.why = why
        self._audit = audit
        self._notices = notices
        notices.at_start(why)

    def pre_llm_call(self, **kwargs: Any) -> None:
        self._notices.show_started()
        return None

    def pre_tool_call(self, tool_name: str = "", args: Any = None, task_id: str = "", session_id: str = "",
                      tool_call_id: str = "", **kwargs: Any) -> Directive:
        refused = host_decision(tool_name, "host_error", self.why)
        try:
            self._audit.decision(session_id or task_id, tool_name, tool_call_id, args, refused, 0.0)
        except Exception as error:
            logger.error("AgentsFence could not record a block: %s", error)
        self._notices.show(f"AgentsFence blocked {tool_name}: it could not start (`hermes fence status` says why)")
        return block(self.why)


def ruled_json_of(args: Any) -> bytes:
    """The argument JSON a ruling is found by, b"" for arguments that cannot be read (their call
    is blocked; the middleware, failing to read them too, refuses it)."""
    try:
        return arguments_json(args)
    except Exception:
        return b""


def _budget_use(budget: Any) -> dict[str, Any]:
    """A budget's use as the audit log keeps it: calls as integers; a budget of sums as decimal
    text, its cap with its currency when it names one ("500 EUR")."""
    if not budget.sums:
        return {"spent": budget.spent, "limit": budget.limit}
    return {"spent": budget.saved, "limit": f"{budget.limit} {budget.currency}".strip(), "sums": True}
