"""Session records under $HERMES_HOME/agentsfence/sessions/, so a resumed session (`hermes
--resume`) has the policy it had.

A session's intent is a deterministic function of its user messages (and the directory each was
read in), so the record keeps those and they are replayed into a fresh session on load; with
them, the task ids that alias the session, the approvals a person granted for the session and
the budget units its calls spent (by budget id; restored into the evaluator on load), and whether
a call may have left the terminal in another directory.
Each write goes to a temporary file that replaces the record atomically. A record that cannot
be read is moved aside (kept for inspection) and reported: the caller blocks rather than guess.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = 1


class StateCorrupt(Exception):
    """The session's record exists but cannot be used; the message says where it was moved."""


@dataclass(slots=True)
class SessionRecord:
    """What is saved of one top-level session, so a resumed session is fenced as before."""

    session_id: str
    messages: list[tuple[str, str]] = field(default_factory=list)  # (user message, directory it was read in)
    tasks: list[str] = field(default_factory=list)
    grants: list[str] = field(default_factory=list)  # rule keys a person granted for the session
    senders: list[str] = field(default_factory=list)  # gateway user ids whose messages were bound
    # budget id -> units spent (committed calls), or a budget of sums' decimal text ("120.5")
    budgets: dict[str, int | str] = field(default_factory=dict)
    # A call that ran may have left the terminal in another directory (api.Session.moved)
    moved: bool = False


class SessionStore:
    def __init__(self, directory: Path):
        self.directory = directory

    def path(self, session_id: str) -> Path:
        # Hashed: a session id is Hermes' string and must not name a path of its own.
        return self.directory / f"{hashlib.sha256(session_id.encode('utf-8', 'replace')).hexdigest()[:32]}.json"

    def save(self, record: SessionRecord) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path(record.session_id)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        document = {"format": FORMAT, "session_id": record.session_id, "messages": [list(m) for m in record.messages],
                    "tasks": record.tasks, "grants": record.grants, "senders": record.senders,
                    "budgets": record.budgets, "moved": record.moved}
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(descriptor, json.dumps(document, ensure_ascii=False).encode("utf-8"))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, target)

    def load(self, session_id: str) -> SessionRecord | None:
        path = self.path(session_id)
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise StateCorrupt(f"its state file {path} cannot be read ({error.strerror or error})") from error
        try:
            return _parse(text, session_id)
        except (ValueError, TypeError, KeyError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
            try:
                os.replace(path, aside)
                where = f"moved to {aside}"
            except OSError as move_error:
                where = f"left at {path}: it could not be moved ({move_error.strerror or move_error})"
            raise StateCorrupt(f"its state file is corrupt ({error}); {where}") from error

    def drop(self, session_id: str) -> None:
        try:
            self.path(session_id).unlink()
        except FileNotFoundError:
            pass


def _parse(text: bytes, session_id: str) -> SessionRecord:
    document = json.loads(text.decode("utf-8"))
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"not a format {FORMAT} session record")
    if document["session_id"] != session_id:
        raise ValueError("it belongs to another session")
    messages = [(str(m), str(d)) for m, d in document["messages"] if isinstance(m, str) and isinstance(d, str)]
    if len(messages) != len(document["messages"]):
        raise ValueError("a message is not text")
    tasks, grants, senders = document["tasks"], document["grants"], document["senders"]
    if not all(isinstance(v, str) for v in (*tasks, *grants, *senders)):
        raise ValueError("a task id, grant or sender is not text")
    budgets = document.get("budgets", {})  # absent in records written before budgets existed
    if not isinstance(budgets, dict) or not all(isinstance(k, str) and _budget_count(v) for k, v in budgets.items()):
        raise ValueError("a budget count is not a whole number of calls or a decimal sum")
    moved = document.get("moved", False)  # absent in records written before it was kept
    if type(moved) is not bool:
        raise ValueError("moved is not true or false")
    return SessionRecord(session_id, messages, list(tasks), list(grants), list(senders), dict(budgets), moved)


def _budget_count(value: object) -> bool:
    """A count a session record keeps: calls (a whole number), or a budget of sums' decimal text."""
    if type(value) is int:
        return 0 <= value <= 0xFFFFFFFF
    return isinstance(value, str) and re.fullmatch(r"\d{1,40}(\.\d{1,40})?", value) is not None
