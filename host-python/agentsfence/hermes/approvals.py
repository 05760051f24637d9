"""What humans answered at Hermes' approval gate for the fence's asks.

Hermes 0.19.0 (tools/approval.py, hermes_cli/plugins.py) does not hand a plugin the gate's
answer. `post_approval_response` fires only on the gateway path; yolo, the allowlist and the
CLI prompt decide silently. So an ask is remembered as pending until its post_tool_call: a call
that ran was approved, and the scope is read back from Hermes' allowlist (a [s]ession or
[a]lways answer puts `plugin_rule:<rule_key>` there; [o]nce does not).

Only a session-scoped grant outlives its call: the fence then allows the same delta itself, so
the gate is never asked again and an allowlist hit the fence did not see granted stays suspect.
An [a]lways answer (Hermes also files the key in its permanent allowlist) makes a learned rule
(agentsfence/rules.py) when the ask could be one, scoped to the call, which the next session
uses: the plugin writes it and takes the key, which names this session only, out of Hermes'
permanent allowlist. The gate's own state is read in environment.py.
"""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Literal

if TYPE_CHECKING:
    from ..rules import LearnedRule

Scope = Literal["once", "session"]
RULE_PREFIX = "plugin_rule:"


# Witness subjects that are targets (docs/bytecode.md §5.1): what a call reaches. An argument
# value ("args") is a flag or a field, not a target.
TARGET_SUBJECTS = frozenset({"email", "domain", "url", "path", "program", "recipient"})


def rule_key(session_key: str, tool_name: str, capability: str, rule: str, witness: tuple[tuple[str, str], ...],
             arguments_json: bytes) -> str:
    """The allowlist grain of one ask: this session, tool and capability, and the capability
    delta: the targets the deciding rule held on outside what the user granted (the recipient
    they never named), so an answer for one target never covers another. When the rule held on
    no target (a flag such as cross_profile, or the class default), every argument value counts."""
    if any(subject in TARGET_SUBJECTS for subject, _ in witness):
        material = "\n".join(f"{subject}\t{len(value)}\t{value}" for subject, value in witness)
        delta = "w" + hashlib.sha256(f"{rule}\n{material}".encode("utf-8", "surrogatepass")).hexdigest()[:20]
    else:
        delta = "a" + hashlib.sha256(arguments_json).hexdigest()[:20]
    return f"agentsfence:{session_key}:{tool_name}:{capability}:{delta}"


@dataclass(frozen=True, slots=True)
class Pending:
    """An ask the gate has not answered yet, by its call."""

    session_key: str
    rule_key: str
    lasting: LearnedRule | None  # the rule an [a]lways answer makes, None when no rule can allow the call


@dataclass(frozen=True, slots=True)
class Answer:
    """What a person answered at the gate for one ask, or what post_tool_call inferred."""

    session_key: str
    rule_key: str
    choice: str  # once / session / always / deny / timeout, or how post_tool_call inferred it
    scope: Scope | None  # None: nothing was granted
    lasting: LearnedRule | None = None  # the rule an [a]lways answer to this ask makes (kept when it was one)


class Approvals:
    """Pending asks by call, and the session-scoped grants. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, Pending] = {}  # call reference -> the ask it is waiting on
        self._answered: dict[str, str] = {}  # rule key -> choice from post_approval_response
        self._grants: dict[str, set[str]] = {}  # session key -> rule keys granted for the session
        self.history: dict[str, list[Answer]] = {}  # session key -> answers, oldest first

    def granted(self, session_key: str, key: str) -> bool:
        with self._lock:
            return key in self._grants.get(session_key, ())

    def asked(self, call_ref: str, session_key: str, key: str, lasting: LearnedRule | None = None) -> None:
        with self._lock:
            self._pending[call_ref] = Pending(session_key, key, lasting)

    def answered(self, pattern_key: str, choice: str) -> None:
        """post_approval_response: the human's own word, when Hermes reports it."""
        if pattern_key.startswith(RULE_PREFIX):
            with self._lock:
                self._answered[pattern_key[len(RULE_PREFIX):]] = choice

    def settle(self, call_ref: str, ran: bool, on_allowlist: Callable[[str], bool],
               permanent: Callable[[str], bool] = lambda key: False) -> Answer | None:
        """post_tool_call for a call the fence asked about: what was granted, if anything.
        on_allowlist(rule_key): whether Hermes now remembers the key (a [s]ession/[a]lways answer);
        permanent(rule_key): whether it is in Hermes' permanent allowlist (an [a]lways answer)."""
        with self._lock:
            pending = self._pending.pop(call_ref, None)
            if pending is None:
                return None
            choice = self._answered.pop(pending.rule_key, None)
            if not ran:
                answer = Answer(pending.session_key, pending.rule_key, choice or "refused", None)
            elif choice in ("session", "always") or (choice is None and on_allowlist(pending.rule_key)):
                always = choice == "always" or (choice is None and permanent(pending.rule_key))
                answer = Answer(pending.session_key, pending.rule_key, choice or ("always" if always else "allowlisted"),
                                "session", pending.lasting)
                self._grants.setdefault(pending.session_key, set()).add(pending.rule_key)
            else:
                answer = Answer(pending.session_key, pending.rule_key, choice or "approved", "once", pending.lasting)
            self.history.setdefault(pending.session_key, []).append(answer)
            return answer

    def session_grants(self, session_key: str) -> list[str]:
        with self._lock:
            return sorted(self._grants.get(session_key, ()))

    def withdraw(self, session_key: str) -> list[str]:
        """Drops the session's grants (a /fence deny: a grant made earlier must not outvote it);
        their rule keys, for Hermes' allowlist to drop them too."""
        with self._lock:
            return sorted(self._grants.pop(session_key, ()))

    def restore(self, session_key: str, keys: list[str]) -> None:
        """Grants saved with a session that is being resumed."""
        if keys:
            with self._lock:
                self._grants.setdefault(session_key, set()).update(keys)

    def forget(self, session_key: str) -> None:
        with self._lock:
            self._grants.pop(session_key, None)
            self.history.pop(session_key, None)
            for ref in [r for r, p in self._pending.items() if p.session_key == session_key]:
                del self._pending[ref]


def call_reference(tool_call_id: str, session_key: str, tool_name: str, arguments_json: bytes) -> str:
    """Pairs a pre_tool_call with its post_tool_call: by tool_call_id, else (execute_code's nested
    calls have none) by session, tool and arguments."""
    if tool_call_id:
        return f"id:{tool_call_id}"
    return f"call:{session_key}:{tool_name}:{hashlib.sha256(arguments_json).hexdigest()}"
