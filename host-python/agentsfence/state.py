"""Session records in the state store (agentsfence/store/), so a resumed session (`hermes
--resume`), or one continued by another gateway, has the policy it had.

A session's intent is a deterministic function of its user messages (and the directory each was
read in), so the record keeps those and they are replayed into a fresh session on load; with
them, the task ids that alias the session, the approvals a person granted for the session, the
gateway users whose messages were bound, the budget units its calls spent or hold (by budget id;
restored into the evaluator on load), and whether a call may have left the terminal in another
directory.

Records written before the store, one JSON file each in sessions/, are moved into the store the
first time a process opens it, and the files are kept in sessions/migrated/. A file that cannot
be read stays where it is, and its session blocks until a person resets it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from .store import Item, StateCorrupt, Store, StoreUnavailable, open_store
from .store.schema import UNIT

if TYPE_CHECKING:
    import argparse

__all__ = ["SessionRecord", "SessionStore", "StateCorrupt", "StoreUnavailable", "to_units", "from_units"]

FORMAT = 1  # the JSON records' format, read when they are moved into the store

logger = logging.getLogger("agentsfence")


@dataclass(slots=True)
class SessionRecord:
    """What is saved of one top-level session, so a resumed session is fenced as before."""

    session_id: str
    messages: list[tuple[str, str]] = field(default_factory=list)  # (user message, directory it was read in)
    tasks: list[str] = field(default_factory=list)
    grants: list[str] = field(default_factory=list)  # rule keys a person granted for the session
    senders: list[str] = field(default_factory=list)  # gateway user ids whose messages were bound
    # budget id -> units spent and held (a call under way, or one whose outcome a crash lost), as
    # the evaluator restores them: calls, or a budget of sums' decimal text ("120.5")
    budgets: dict[str, int | str] = field(default_factory=dict)
    # A call that ran may have left the terminal in another directory (api.Session.moved)
    moved: bool = False
    seen: int = 0  # the id of the last saved item this record holds


def to_units(count: int | Decimal | str) -> int:
    """A count of the evaluator's (calls, or a sum) in store units (store/schema.py)."""
    return int(Decimal(count) * UNIT)


def from_units(units: int) -> int | str:
    """Store units as a count budget_restore reads: whole calls as an int, else decimal text."""
    whole, rest = divmod(units, UNIT)
    return whole if rest == 0 else format(Decimal(units) / UNIT, "f")


class SessionStore:
    """The sessions of one state store; `directory` is the sessions/ folder of the JSON records
    the store replaces (and the shell hooks' lock files)."""

    def __init__(self, directory: Path, store: Store | None = None):
        self.directory = Path(directory)
        self.store = store if store is not None else open_store("", self.directory.parent)
        self._migrated = False

    def path(self, session_id: str) -> Path:
        # Hashed: a session id is Hermes' string and must not name a path of its own.
        return self.directory / f"{hashlib.sha256(session_id.encode('utf-8', 'replace')).hexdigest()[:32]}.json"

    def load(self, session_id: str) -> SessionRecord | None:
        """The saved record, or None. Raises StateCorrupt (the session must block until reset)
        or StoreUnavailable (blocks for now)."""
        self._migrate()
        legacy = self.path(session_id)
        if legacy.exists():  # moving it failed: it cannot be read
            raise StateCorrupt(f"its state file {legacy} cannot be read (see the log for why); run `agentsfence sessions "
                               f"reset {session_id}` to set it aside and start the session with no saved state")
        loaded = self.store.load(session_id)
        if loaded is None:
            return None
        moved, items, units = loaded
        record = SessionRecord(session_id, moved=moved)
        add_items(record, items)
        record.budgets = {budget_id: from_units(count) for budget_id, count in units.items() if count}
        return record

    def refresh(self, record: SessionRecord) -> list[Item]:
        """Items another process saved for the session since the record was read, added to it."""
        items = self.store.items_since(record.session_id, record.seen)
        add_items(record, items)
        return items

    def append(self, session_id: str, kind: str, value: str, directory: str = "") -> int:
        """Saves one item (a message; a task, grant or sender the session lacks) at once; its id,
        or 0 when the session had it."""
        return self.store.append(session_id, kind, value, directory)

    def save(self, record: SessionRecord) -> None:
        """Saves what the store lacks of a whole record (migration, and the shell hooks, which
        hold the session's lock file): its messages past those saved, other items it lacks, and
        moved. Budget counts are saved by the ledger (or raise_spent), never from a record."""
        with self.store.transaction(record.session_id) as tx:
            tx.session_row(record.session_id)
            saved = sum(1 for item in tx.items(record.session_id, 0) if item.kind == "message")
            for text, directory in record.messages[saved:]:
                tx.append(record.session_id, "message", text, directory)
            for kind, values in (("task", record.tasks), ("grant", record.grants), ("sender", record.senders)):
                for value in values:
                    tx.append(record.session_id, kind, value)
            if record.moved:
                tx.set_moved(record.session_id)

    def raise_spent(self, session_id: str, budgets: dict[str, int | str]) -> None:
        self.store.raise_spent(session_id, {budget_id: to_units(count) for budget_id, count in budgets.items()})

    def drop(self, session_id: str) -> None:
        self.store.drop(session_id)

    def reset(self, session_id: str) -> list[str]:
        """Sets a session's unreadable (or any) state aside: its rows kept as text in the store's
        resets table, a JSON file renamed *.reset. What was done, line by line."""
        done = []
        legacy = self.path(session_id)
        if legacy.exists():
            aside = legacy.with_name(legacy.name + ".reset")
            os.replace(legacy, aside)
            done.append(f"moved its state file to {aside}")
        rows = self.store.reset(session_id)
        if rows:
            done.append(f"removed its {rows} rows from {self.store.where} (kept as text in its resets table)")
        return done

    def _migrate(self) -> None:
        """Moves the JSON records of sessions/ into the store (once per process)."""
        if self._migrated:
            return
        files = sorted(self.directory.glob("*.json")) if self.directory.is_dir() else []
        if files:
            kept = self.directory / "migrated"
            kept.mkdir(exist_ok=True)
            for path in files:
                try:
                    record = _parse(path.read_bytes())
                except (OSError, ValueError, TypeError, KeyError) as error:
                    logger.error("AgentsFence: the session record %s cannot be read (%s); its session blocks until "
                                 "`agentsfence sessions reset ID`", path, error)
                    continue
                if path != self.path(record.session_id):
                    logger.error("AgentsFence: %s holds session %r, whose record has another name; left as it is",
                                 path, record.session_id)
                    continue
                self.save(record)
                self.raise_spent(record.session_id, record.budgets)
                try:
                    os.replace(path, kept / path.name)
                except FileNotFoundError:
                    pass  # another process moved it first
        self._migrated = True


def add_items(record: SessionRecord, items: list[Item]) -> None:
    for item in items:
        if item.kind == "message":
            record.messages.append((item.value, item.directory))
        else:
            values = {"task": record.tasks, "grant": record.grants, "sender": record.senders}[item.kind]
            if item.value not in values:
                values.append(item.value)
        record.seen = max(record.seen, item.id)


def _parse(text: bytes) -> SessionRecord:
    """A JSON record of the files the store replaces."""
    document = json.loads(text.decode("utf-8"))
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"not a format {FORMAT} session record")
    session_id = document["session_id"]
    if not isinstance(session_id, str):
        raise ValueError("its session id is not text")
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
    """A count a JSON record kept: calls (a whole number), or a budget of sums' decimal text."""
    if type(value) is int:
        return 0 <= value <= 0xFFFFFFFF
    return isinstance(value, str) and re.fullmatch(r"\d{1,40}(\.\d{1,40})?", value) is not None


# ---- the command line: `agentsfence sessions [list | reset ID]` ----

def sessions_command(options: argparse.Namespace) -> int:
    from .layout import hermes_state
    from .settings import load_settings

    if options.state is not None:
        folder, setting = Path(options.state), ""
    else:
        from .hermes.homes import hermes_home

        home = hermes_home()
        folder, setting = hermes_state(home).path, load_settings(home).state
    sessions = SessionStore(folder / "sessions", open_store(setting, folder))
    try:
        if options.action == "reset":
            if not options.session_id:
                print("agentsfence sessions reset: name the session (agentsfence sessions lists them)", file=sys.stderr)
                return 2
            done = sessions.reset(options.session_id)
            print(f"session {options.session_id}: " + ("; ".join(done) if done else "nothing was saved for it"))
            return 0
        sessions._migrate()
        listed = sessions.store.sessions()
        shared = sessions.store.shared_counts()
        unreadable = sorted(sessions.directory.glob("*.json")) if sessions.directory.is_dir() else []
    except (StoreUnavailable, StateCorrupt, OSError) as error:
        print(f"agentsfence sessions: {error}", file=sys.stderr)
        return 1
    for saved in listed:
        spent = ", ".join(f"{budget_id} {from_units(units)}" for budget_id, units in sorted(saved.spent.items()))
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(saved.created))
        state = f"UNREADABLE: {saved.fault}" if saved.fault else f"{saved.messages} messages" + (f"; spent {spent}" if spent else "")
        print(f"{saved.session_id}\t{stamp}\t{state}")
    for key, units in shared.items():  # budgets per user or team
        print(f"{key}\tspent " + ", ".join(f"{budget_id} {from_units(count)}" for budget_id, count in sorted(units.items())))
    for path in unreadable:
        print(f"(a record from before the store that cannot be read: {path}; its session blocks until reset)")
    print(f"{len(listed)} sessions in {sessions.store.where}")
    return 0
