"""Hermes' ids and the fence's sessions.

A top-level Hermes session (its session_id) is one fence session; each turn's task_id is an
alias of it (execute_code's nested calls carry a task id only), and a subagent's session is
bound to its parent's at subagent_start, so the parent's intent is the child's ceiling. What a
top-level session was told is saved in the state store (state.py): a resumed session (`hermes
--resume`), or one another gateway continues, is restored, messages, task ids, grants and budget
units, the first time this process sees its id, and each turn adds what other processes saved
for it since.

Reads take no lock (a dict read is atomic); writes hold the registry's lock, which no write to
the store is made under: one slow disk holds up no other session.
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from typing import TYPE_CHECKING, Callable

from ..errors import FenceError
from ..state import SessionRecord, SessionStore, StateCorrupt, StoreUnavailable
from .approvals import Approvals

if TYPE_CHECKING:
    from ..api import Fence, Intent, Session
    from ..llm import IntentReader

logger = logging.getLogger("agentsfence")

RECENT_DECISIONS = 8  # how many /fence shows


class Sessions:
    """The links from Hermes' ids to fence sessions, each session's intent as last bound, why a
    session cannot be used (a fault: its calls block), and its latest decisions (for /fence)."""

    def __init__(self, fence: Fence, store: SessionStore, approvals: Approvals,
                 reader: Callable[[], IntentReader | None]):
        self.fence = fence
        self.store = store
        self._approvals = approvals
        self._reader = reader  # the model's reading of user messages (settings llm_intent), or none
        self._lock = threading.Lock()
        self._records: dict[str, SessionRecord] = {}  # top-level session_id -> what is saved for it
        self._tasks: dict[str, Session] = {}  # task_id -> session (tool calls that carry only a task id)
        self._children: dict[str, Session] = {}  # a subagent's session_id -> its parent's session
        self._faults: dict[str, str] = {}  # session or task id -> why its user message could not be bound
        self._intents: dict[str, Intent] = {}  # session_id -> what its messages named and ruled out
        self._recent: dict[str, deque[str]] = {}  # session_id -> its latest decision messages
        self._own: dict[str, set[int]] = {}  # session_id -> ids of the items this process saved
        self._users: dict[str, str] = {}  # session_id -> the gateway user id of its latest turn
        self._unreadable: set[str] = set()  # sessions whose saved state cannot be read: nothing is added to it
        self.current: str | None = None  # the top-level session of the latest user turn (for /fence)

    # ---- links ----

    def session_for(self, session_id: str, task_id: str) -> Session | None:
        """The fence session a call belongs to: a subagent's parent's, a top-level session's own
        (restored from its record on first sight), else the one its task id is an alias of."""
        # Read without the lock: a dict read is atomic, and the lock guards the writes.
        if session_id:
            linked = self._children.get(session_id)
        else:
            linked = self._tasks.get(task_id) if task_id else None
        if linked is None:
            if not session_id:
                return None
            linked = self.top(session_id)
        self.alias(task_id, linked)
        return linked

    def parent(self, session_id: str) -> Session | None:
        """The parent's session of a subagent's session id, or None for a top-level one."""
        with self._lock:
            return self._children.get(session_id)

    def link_child(self, child_session_id: str, parent: Session) -> None:
        with self._lock:
            self._children[child_session_id] = parent

    def alias(self, task_id: str, session: Session) -> None:
        # Read first without the lock (a dict read is atomic): most calls find the link in place.
        if task_id and self._tasks.get(task_id) is not session:
            with self._lock:
                self._tasks[task_id] = session

    # ---- saved sessions ----

    def top(self, session_id: str) -> Session:
        """The fence session of a top-level Hermes session, restored from its saved record the
        first time this process sees it (a resumed session keeps its intent and grants). Raises
        StoreUnavailable when the store cannot be read: the call blocks, and the next one tries again."""
        if session_id not in self._records:  # an atomic read; the record is added under the lock
            try:
                record = self.store.load(session_id) or SessionRecord(session_id)
            except StateCorrupt as error:
                record = SessionRecord(session_id)
                self._unreadable.add(session_id)
                self.set_fault(session_id, f"the session's saved state is unusable: {error}; it stays blocked until "
                                           f"a person runs `agentsfence sessions reset {session_id}`")
            session = self.fence.session(session_id)
            for text, directory in record.messages:
                self._intents[session_id] = session.intent(text, directory)
                self._narrow_by_model(session_id, session, text)
            for task_id in record.tasks:
                self.alias(task_id, session)
            session.restore_budgets(record.budgets)
            self._approvals.restore(session_id, record.grants)
            with self._lock:
                self._records.setdefault(session_id, record)
        return self.fence.session(session_id)

    def refresh(self, session_id: str) -> None:
        """What other processes saved for a session this one holds (another gateway's turn, a
        grant a person gave there): bound and restored here too."""
        record = self._records.get(session_id)
        if record is None or self.fault(session_id) is not None:
            return
        try:
            items = self.store.refresh(record)
        except StateCorrupt as error:
            self._unreadable.add(session_id)
            self.set_fault(session_id, f"the session's saved state is unusable: {error}; it stays blocked until "
                                       f"a person runs `agentsfence sessions reset {session_id}`")
            return
        except StoreUnavailable as error:  # the next turn looks again; this one's words still bind
            logger.warning("AgentsFence could not read what other processes saved for session %s: %s", session_id, error)
            return
        own = self._own.get(session_id, set())
        session = self.fence.session(session_id)
        for item in items:
            if item.id in own:
                continue
            if item.kind == "message":
                self._intents[session_id] = session.intent(item.value, item.directory)
                self._narrow_by_model(session_id, session, item.value)
            elif item.kind == "task":
                self.alias(item.value, session)
            elif item.kind == "grant":
                self._approvals.restore(session_id, [item.value])

    def bind(self, key: str, session: Session, text: str, directory: str) -> None:
        """The user's own message, bound into the session's intent (and read by the model, with
        llm_intent on)."""
        self._intents[key] = session.intent(text, directory)
        self._narrow_by_model(key, session, text)

    def amend(self, session_id: str, text: str, directory: str) -> None:
        """The CLI user's own words through /fence: bound and saved like a user message."""
        session = self.top(session_id)
        self._intents[session_id] = session.intent(text, directory)
        self.remember_turn(session_id, "", text, directory)

    def remember_turn(self, session_id: str, task_id: str, text: str, directory: str, sender_id: str = "") -> None:
        new: list[tuple[str, str, str]] = []  # (kind, value, directory) to save
        with self._lock:
            record = self._records[session_id]
            if sender_id:
                self._users[session_id] = sender_id
            if text:
                record.messages.append((text, directory))
                new.append(("message", text, directory))
            if task_id and task_id not in record.tasks:
                record.tasks.append(task_id)
                new.append(("task", task_id, ""))
            if sender_id and sender_id not in record.senders:
                # A gateway session shared by several people (group_sessions_per_user: false) binds
                # every sender's messages into one intent: each is on record.
                record.senders.append(sender_id)
                new.append(("sender", sender_id, ""))
        self._append(session_id, new)

    def user_of(self, session_id: str) -> str:
        """The user a session's budgets per user count for: the sender of its latest turn (of the
        last one saved, for a session resumed without a new turn); "" on the CLI."""
        user = self._users.get(session_id)
        if user is None:
            record = self._records.get(session_id)
            user = record.senders[-1] if record is not None and record.senders else ""
        return user

    def save(self, session_id: str) -> None:
        """Saves the session's grants (a person granted one for the session)."""
        record = self._records.get(session_id)
        if record is None:
            return
        grants = self._approvals.session_grants(session_id)
        with self._lock:
            new = [g for g in grants if g not in record.grants]
            record.grants.extend(new)
        self._append(session_id, [("grant", g, "") for g in new])

    def _append(self, session_id: str, items: list[tuple[str, str, str]]) -> None:
        """A session that cannot be saved still decides correctly now; only a resume, or another
        gateway, would miss what was not saved. A session whose saved state cannot be read gets
        nothing added to it: it waits, as it is, for a person to reset it."""
        if not items or session_id in self._unreadable:
            return
        try:
            for kind, value, directory in items:
                saved = self.store.append(session_id, kind, value, directory)
                if saved:
                    with self._lock:
                        self._own.setdefault(session_id, set()).add(saved)
        except (StoreUnavailable, StateCorrupt, OSError) as error:
            logger.error("AgentsFence could not save session %s: %s", session_id, error)

    def drop(self, session_id: str) -> None:
        """Forgets a session: its links, intent and faults, the fence session, its grants and its
        saved record."""
        with self._lock:
            self._faults.pop(session_id, None)
            self._children.pop(session_id, None)
            self._records.pop(session_id, None)
            self._intents.pop(session_id, None)
            self._recent.pop(session_id, None)
            self._own.pop(session_id, None)
            self._users.pop(session_id, None)
            self._unreadable.discard(session_id)
            if self.current == session_id:
                self.current = None
            for task_id in [k for k, s in self._tasks.items() if s.id == session_id]:
                del self._tasks[task_id]
                self._faults.pop(task_id, None)
        self.fence.drop_session(session_id)
        self._approvals.forget(session_id)
        self.store.drop(session_id)

    # ---- faults, and what /fence shows ----

    def fault(self, key: str) -> str | None:
        """Why the session or task cannot be used (its calls block), or None."""
        return self._faults.get(key)

    def set_fault(self, key: str, why: str) -> None:
        with self._lock:
            self._faults[key] = why

    def note_decision(self, session_id: str, message: str) -> None:
        with self._lock:
            recent = self._recent.get(session_id)
            if recent is None:  # not setdefault: that would build a deque every call
                recent = self._recent[session_id] = deque(maxlen=RECENT_DECISIONS)
            recent.append(message)

    def view(self, session_id: str) -> tuple[SessionRecord | None, Intent | None, list[str], str | None]:
        """The session's record, intent, latest decision messages and fault, read together."""
        with self._lock:
            return (self._records.get(session_id), self._intents.get(session_id),
                    list(self._recent.get(session_id, ())), self._faults.get(session_id))

    def _narrow_by_model(self, key: str, session: Session, text: str) -> None:
        """With llm_intent on, the model's reading of the user's message narrows the session
        (agentsfence/llm.py); any failure leaves the deterministic binding alone, logged."""
        reader = self._reader()
        if reader is None:
            return
        from ..llm import ReadingFailed  # loaded already: it made the reader

        try:
            narrowing = reader.read(text)
            if narrowing.prohibit or narrowing.ask:
                self._intents[key] = session.narrow(list(narrowing.prohibit), list(narrowing.ask))
        except (ReadingFailed, FenceError) as error:
            logger.warning("AgentsFence: the model's reading of the message is not used (%s); "
                           "the deterministic binding stands", error)
