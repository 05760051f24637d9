"""`agentsfence hook hermes|claude-code`: the fence as a shell hook, for agents that run a command
per event with the event as JSON on stdin. The same evaluator and policy as the plugin decide.

Each event is a new process, so a session's intent lives in its saved record (state.py): the
user's messages are saved when they arrive and replayed into a fresh session for each decision,
with the budget units its calls spent.

Hermes shell hooks (hermes-agent 0.19, agent/shell_hooks.py): stdin
`{hook_event_name, tool_name, tool_input, session_id, cwd, extra}`, where `extra` holds the
event's other keyword arguments (pre_llm_call: user_message, platform; subagent_start:
child_session_id; on_session_finalize: reason). A pre_tool_call hook blocks by printing
`{"action": "block", "message": ...}`; 0.19 reads stdout whatever the exit status, newer
Hermes also blocks on exit status 2, so a block prints the directive and exits 2. Shell hooks
have no approval directive: an ask blocks, naming what a person would have been asked.
Hermes 0.19 lets the call run when a hook crashes or times out; newer Hermes blocks it when
the entry sets `fail_closed: true`.

Claude Code hooks: stdin `{session_id, cwd, hook_event_name, ...}`; UserPromptSubmit carries
`prompt`, PreToolUse `tool_name` and `tool_input`, SessionEnd `reason`. A PreToolUse hook blocks
with exit status 2 and the reason on stderr, and asks with exit status 0 and
`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
"permissionDecisionReason": ...}}` on stdout. An allowed call prints nothing: the fence only
narrows, so Claude Code's own permission rules still apply. Claude Code's tool names are mapped
to capabilities by the shipped policy policies/claude-code.yaml.

Any fault while deciding blocks: exit status 2 (and the Hermes block directive).
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from . import data
from .errors import FenceError
from .hermes.homes import hermes_homes
from .hermes.payloads import with_patch_paths
from .hermes.turns import typed_text
from .layout import StateFolder, claude_code_state, hermes_state
from .records import host_decision
from .state import SessionRecord, SessionStore

EXIT_OK = 0
EXIT_BLOCK = 2  # both agents read exit status 2 from a pre-tool hook as "block"

AGENTS = ("hermes", "claude-code")


@dataclass(frozen=True)
class Answer:
    """What the hook process prints and its exit status."""

    stdout: str = ""
    stderr: str = ""
    status: int = EXIT_OK


def default_state_dir(agent: str) -> Path:
    """Hermes: the plugin's own folder under HERMES_HOME as Hermes resolves it (a profile's
    home under a profile); Claude Code: ~/.claude/agentsfence."""
    return (hermes_state() if agent == "hermes" else claude_code_state()).path


def default_policy(agent: str, state_dir: Path) -> Path | bytes:
    """The state directory's policy.yaml (compiled, cached in compiled/: agentsfence/installed.py),
    else its policy.afb, else the policy shipped for the agent. A policy.yaml that does not
    compile raises FenceError with the compiler's FILE:LINE:COL lines: the event is blocked."""
    from .installed import PolicyFiles

    installed = PolicyFiles(state_dir).current()
    if installed.error is not None:
        raise FenceError(f"the installed policy cannot be used, so every call is blocked until it can: {installed.error}")
    if installed.bytecode is not None:
        return installed.bytecode
    return data.path("default.afb" if agent == "hermes" else "claude-code.afb")


class HookState:
    """Saved sessions, and which session each subagent belongs to (Hermes), as files."""

    def __init__(self, directory: Path):
        folder = StateFolder(directory)
        self.sessions = SessionStore(folder.sessions)
        self._parents = folder.subagents

    def parent_of(self, session_id: str) -> str | None:
        try:
            return self._link(session_id).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def link(self, child_session_id: str, parent_session_id: str) -> None:
        self._parents.mkdir(parents=True, exist_ok=True)
        target = self._link(child_session_id)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        temporary.write_text(parent_session_id, encoding="utf-8")
        os.replace(temporary, target)

    def unlink(self, child_session_id: str) -> None:
        self._link(child_session_id).unlink(missing_ok=True)

    @contextmanager
    def record(self, session_id: str) -> Iterator[SessionRecord]:
        """The session's record, saved on leaving; one process at a time per session, since an
        agent runs the hooks of calls it makes together at once and each may spend a budget."""
        self.sessions.directory.mkdir(parents=True, exist_ok=True)
        lock = self.sessions.path(session_id).with_suffix(".lock")
        with open(lock, "a", encoding="utf-8") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX)
            record = self.sessions.load(session_id) or SessionRecord(session_id)
            yield record
            self.sessions.save(record)

    def remember(self, session_id: str, message: str, directory: str) -> None:
        with self.record(session_id) as record:
            record.messages.append((message, directory))

    def _link(self, session_id: str) -> Path:
        return self._parents / f"{hashlib.sha256(session_id.encode('utf-8', 'replace')).hexdigest()[:32]}"


def _directory(event: dict[str, Any]) -> str:
    cwd = event.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd()


def _decide(policy: Path | bytes, state: HookState, session_id: str, tool_name: Any, args: Any, directory: str,
            spends: Callable[[str], bool]):
    """The decision for one call in the session's saved intent (a subagent: its parent's).
    Budgets: the units of a call that may run (`spends(kind)`) are spent at once and saved,
    since the hook does not learn whether the call ran; a refused call spends nothing."""
    from .api import Fence

    if not isinstance(tool_name, str) or not tool_name:
        return host_decision(str(tool_name), "bad_arguments", "the event names no tool")
    if not isinstance(args, dict):
        return host_decision(tool_name, "bad_arguments", "the event's tool input is not an object")
    # A shell hook answers allow, ask or block, and cannot wrap the command it lets run: no
    # sandbox, so what the fence would confine is asked about (sandbox_unavailable).
    fence = Fence(policy, cwd=directory, hermes_homes=hermes_homes(), sandbox=False)
    if not session_id:  # nothing says what the user asked for: an empty intent
        return fence.decide(tool_name, with_patch_paths(tool_name, args), directory)
    owner = state.parent_of(session_id) or session_id
    with state.record(owner) as record:
        session = fence.session(owner)
        for message, message_directory in record.messages:
            session.intent(message, message_directory)
        session.restore_budgets(record.budgets)
        # The event's cwd need not follow the terminal (Hermes sends its own process's directory,
        # which no `cd` changes): it is the Fence's, so after a call that moved the terminal,
        # relative paths resolve nowhere known rather than there.
        session.moved = record.moved
        decision = session.decide(tool_name, with_patch_paths(tool_name, args))
        if decision.reservation:
            (session.commit if spends(decision.kind) else session.release)(decision.reservation)
            state.sessions.raise_spent(owner, {budget.id: budget.saved for budget in session.budgets() if budget.spent})
        record.moved = record.moved or (decision.moves and spends(decision.kind))
    return decision


def hermes_event(event: dict[str, Any], policy: Path | bytes, state: HookState) -> Answer:
    name = event.get("hook_event_name")
    session_id = event.get("session_id") if isinstance(event.get("session_id"), str) else ""
    extra = event.get("extra") if isinstance(event.get("extra"), dict) else {}
    if name == "pre_tool_call":
        # An ask blocks here, so only an allowed call runs.
        decision = _decide(policy, state, session_id, event.get("tool_name"), event.get("tool_input"), _directory(event),
                           spends=lambda kind: kind == "allow")
        if decision.kind == "allow":
            return Answer()
        message = decision.message if decision.kind == "block" else (
            f"{decision.message} (a person must approve this call, and a shell hook cannot ask: "
            "the agentsfence plugin can)")
        return Answer(stdout=json.dumps({"action": "block", "message": message}), status=EXIT_BLOCK)
    if name == "pre_llm_call":
        # Only what the person typed (hermes/turns.py, with the wording recorded from Hermes: this
        # process must not start Hermes to read it); a turn Hermes wrote saves nothing.
        text = typed_text(extra.get("user_message"), extra.get("platform"))
        # A subagent's "user message" is its parent model's goal: it grants nothing.
        if session_id and text and state.parent_of(session_id) is None:
            state.remember(session_id, text, _directory(event))
        return Answer()
    if name == "subagent_start":
        child = extra.get("child_session_id")
        if isinstance(child, str) and child and session_id:
            state.link(child, state.parent_of(session_id) or session_id)
        return Answer()
    if name == "on_session_finalize":
        if session_id and extra.get("reason") != "shutdown":  # a shut-down session can be resumed
            state.sessions.drop(session_id)
            state.unlink(session_id)
        return Answer()
    if name == "on_session_reset":
        for ended in (session_id, extra.get("old_session_id")):
            if isinstance(ended, str) and ended:
                state.sessions.drop(ended)
        return Answer()
    return Answer()


def claude_code_event(event: dict[str, Any], policy: Path | bytes, state: HookState) -> Answer:
    name = event.get("hook_event_name")
    session_id = event.get("session_id") if isinstance(event.get("session_id"), str) else ""
    if name == "PreToolUse":
        # An asked call runs if the person says yes: it spends its units now, as an allowed one.
        decision = _decide(policy, state, session_id, event.get("tool_name"), event.get("tool_input"), _directory(event),
                           spends=lambda kind: kind != "block")
        if decision.kind == "block":
            return Answer(stderr=decision.message, status=EXIT_BLOCK)
        if decision.kind == "ask":
            output = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                             "permissionDecisionReason": decision.message}}
            return Answer(stdout=json.dumps(output))
        return Answer()
    if name == "UserPromptSubmit":
        prompt = event.get("prompt")
        if session_id and isinstance(prompt, str) and prompt:
            state.remember(session_id, prompt, _directory(event))
        return Answer()
    if name == "SessionEnd":
        if session_id and event.get("reason") == "clear":  # /clear starts over; other endings can be resumed
            state.sessions.drop(session_id)
        return Answer()
    return Answer()


HANDLERS: dict[str, Callable[[dict[str, Any], Path, HookState], Answer]] = {
    "hermes": hermes_event,
    "claude-code": claude_code_event,
}


def _fault(agent: str, text: str) -> Answer:
    message = f"AgentsFence blocked the call: {text} [host_error]"
    stdout = json.dumps({"action": "block", "message": message}) if agent == "hermes" else ""
    return Answer(stdout=stdout, stderr=message, status=EXIT_BLOCK)


def answer(agent: str, stdin_text: str, policy: Path | None = None, state_dir: Path | None = None) -> Answer:
    """The hook's answer to one event. Any fault blocks (for an event that decides nothing,
    the agent ignores the block: a lost message only narrows the intent)."""
    try:
        event = json.loads(stdin_text)
    except ValueError as error:
        return _fault(agent, f"the hook's input is not JSON ({error})")
    if not isinstance(event, dict):
        return _fault(agent, "the hook's input is not a JSON object")
    directory = state_dir if state_dir is not None else default_state_dir(agent)
    try:
        return HANDLERS[agent](event, policy or default_policy(agent, directory), HookState(directory))
    except Exception as error:  # any fault blocks: never fail open
        return _fault(agent, f"the fence failed ({type(error).__name__}: {error})")


def run(agent: str, policy: Path | None, state_dir: Path | None, stdin: IO[str] = sys.stdin,
        stdout: IO[str] = sys.stdout, stderr: IO[str] = sys.stderr) -> int:
    try:
        text = stdin.read()
    except (OSError, UnicodeDecodeError) as error:
        result = _fault(agent, f"the hook's input cannot be read ({error})")
    else:
        result = answer(agent, text, policy, state_dir)
    if result.stdout:
        print(result.stdout, file=stdout)
    if result.stderr:
        print(result.stderr, file=stderr)
    return result.status
