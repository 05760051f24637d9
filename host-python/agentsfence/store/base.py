"""Every query of the state store, its faults, and the one class both backends share (what the
store holds: store/__init__.py; its schema: schema.py). A backend (sqlite.py, postgresql.py)
supplies connections, how a transaction locks a session, and which of its driver's errors mean
the store cannot be reached (StoreUnavailable: the call blocks, the next one tries again) or a
value cannot be read (StateCorrupt: the session blocks until a person resets it)."""
from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from . import schema


class StoreUnavailable(Exception):
    """The store cannot be reached or written now; the message says which and why."""


class StateCorrupt(Exception):
    """A session's saved state exists but cannot be read; the message says what."""


@dataclass(frozen=True, slots=True)
class Item:
    """One thing a session was told (schema.ITEM_KINDS), in the order it was saved."""

    id: int
    kind: str
    value: str
    directory: str


@dataclass(frozen=True, slots=True)
class SavedSession:
    """What `agentsfence sessions` lists of one session."""

    session_id: str
    created: float
    messages: int
    spent: dict[str, int]  # budget id -> units spent and held by open reservations
    fault: str | None  # why its state cannot be read, or None


class Store:
    """Every query of the store; a subclass connects (one connection per thread) and locks."""

    where: str  # the store as the messages name it (a path, or a URL without its password)
    identity = ""  # the dialect's growing id column
    greatest = ""  # the dialect's larger-of-two function

    def __init__(self) -> None:
        self._local = threading.local()
        self._ready = False
        self._ready_lock = threading.Lock()

    # ---- what a backend supplies ----

    def _connect(self) -> Any:
        raise NotImplementedError

    def _begin(self, connection: Any, session_id: str | None, write: bool, durable: bool, keys: list[str]) -> None:
        """Starts a transaction; one that writes holds the session (None: the rows it writes),
        and the counts kept under `keys`, against other writers until it ends. durable: its
        commit is on disk when it returns."""
        raise NotImplementedError

    def _fault(self, error: Exception) -> Exception | None:
        """The error as StoreUnavailable or StateCorrupt, or None when it is not the driver's."""
        raise NotImplementedError

    def _finish(self, write: bool) -> None:
        """After a transaction's end, committed or not."""

    def _sql(self, text: str) -> str:
        return text

    # ---- connections and transactions ----

    def _connection(self) -> Any:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._connect()
        if not self._ready:
            with self._ready_lock:
                if not self._ready:
                    self._create(connection)
                    self._ready = True
        return connection

    def _create(self, connection: Any) -> None:
        self._run(connection, "BEGIN")
        try:
            for statement in schema.TABLES:
                self._run(connection, statement.format(identity=self.identity, greatest=self.greatest))
            row = self._run(connection, "SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self._run(connection, "INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(schema.VERSION),))
            elif row[0] != str(schema.VERSION):
                raise StoreUnavailable(f"the state store {self.where} has schema {row[0]!r}, and this AgentsFence "
                                       f"reads schema {schema.VERSION}")
            self._run(connection, "COMMIT")
        except BaseException:
            self._rollback(connection)
            raise

    def _run(self, connection: Any, text: str, args: tuple[Any, ...] = ()) -> Any:
        return connection.execute(self._sql(text), args)

    def _rollback(self, connection: Any) -> None:
        try:
            self._run(connection, "ROLLBACK")
        except Exception:
            self._forget_connection()

    def _forget_connection(self) -> None:
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            try:
                connection.close()
            except Exception:
                pass

    @contextmanager
    def transaction(self, session_id: str | None = None, write: bool = True, durable: bool = False,
                    keys: list[str] | None = None) -> Iterator[Transaction]:
        """A transaction (one that writes holds the session against other writers); committed
        when the block ends, rolled back when it raises. durable: the commit waits for the disk;
        only a budget's reservation needs that (a lost one would let a call run twice). Anything
        else a crash of the machine may lose is safe to lose: a message or grant (the session
        then asks more), a settlement (the reservation stays counted as spent), an audit head
        (the log is read instead)."""
        try:
            try:
                connection = self._connection()
                self._begin(connection, session_id, write, durable, keys or [])
            except (StoreUnavailable, StateCorrupt):
                self._forget_connection()
                raise
            except Exception as error:
                self._forget_connection()
                raise self._translate(error) from error
            try:
                yield Transaction(self, connection)
                self._run(connection, "COMMIT")
            except (StoreUnavailable, StateCorrupt):
                self._rollback(connection)
                raise
            except Exception as error:
                self._rollback(connection)
                fault = self._fault(error)
                if fault is None:
                    raise
                raise fault from error
        finally:
            self._finish(write)

    def _translate(self, error: Exception) -> Exception:
        fault = self._fault(error)
        return fault if fault is not None else StoreUnavailable(f"the state store {self.where} failed: {error}")

    # ---- sessions ----

    def load(self, session_id: str) -> tuple[bool, list[Item], dict[str, int]] | None:
        """(moved, items, units spent and held by budget id) of a saved session, or None."""
        with self.transaction(write=False) as tx:
            row = tx.one("SELECT moved FROM sessions WHERE session_id = ?", (session_id,))
            if row is None:
                return None
            moved = row[0]
            if moved not in (0, 1) or type(moved) is not int:
                raise StateCorrupt(f"its row in {self.where} cannot be read: moved is {moved!r}, not 0 or 1")
            return bool(moved), tx.items(session_id, 0), tx.units(session_id)

    def items_since(self, session_id: str, after: int) -> list[Item]:
        with self.transaction(write=False) as tx:
            return tx.items(session_id, after)

    def append(self, session_id: str, kind: str, value: str, directory: str = "") -> int:
        """Adds one item (a task, grant or sender only when the session lacks it); its id, or 0."""
        with self.transaction(session_id) as tx:
            return tx.append(session_id, kind, value, directory)

    def drop(self, session_id: str) -> None:
        with self.transaction(session_id) as tx:
            tx.delete(session_id)

    def reset(self, session_id: str) -> int:
        """Removes a session's rows, readable or not, keeping them as text in `resets`; how many."""
        with self.transaction(session_id) as tx:
            kept = []
            for table in ("sessions", "session_items", "budget_spent", "reservations"):
                rows = tx.all(f"SELECT * FROM {table} WHERE session_id = ?", (session_id,))
                kept += [[table, *map(repr, row)] for row in rows]
            if kept:
                tx.run("INSERT INTO resets (session_id, at, rows) VALUES (?, ?, ?)",
                       (session_id, time.time(), json.dumps(kept)))
            tx.delete(session_id)
            return len(kept)

    def sessions(self) -> list[SavedSession]:
        with self.transaction(write=False) as tx:
            rows = tx.all("SELECT session_id, created FROM sessions ORDER BY created")
        listed = []
        for session_id, created in rows:
            try:
                loaded = self.load(str(session_id))
                fault = None
                items, units = (loaded[1], loaded[2]) if loaded else ([], {})
            except StateCorrupt as error:
                items, units, fault = [], {}, str(error)
            listed.append(SavedSession(str(session_id), float(created) if isinstance(created, (int, float)) else 0.0,
                                       sum(1 for item in items if item.kind == "message"), units, fault))
        return listed

    # ---- budgets ----

    def shared_counts(self) -> dict[str, dict[str, int]]:
        """The counts kept for more than one session (budgets per user or team: hermes/ledger.py),
        by key, then budget id: units spent and held."""
        with self.transaction(write=False) as tx:
            keys = {str(key) for table in ("budget_spent", "reservations")
                    for (key,) in tx.all(f"SELECT DISTINCT session_id FROM {table} WHERE session_id LIKE '@%'")}
            return {key: tx.units(key) for key in sorted(keys)}

    def settle(self, owner: str, ticket: int, commit: bool) -> None:
        """A reserved call's outcome: its units become spent (commit) or free."""
        with self.transaction() as tx:
            held = tx.all("SELECT session_id, budget_id, units FROM reservations WHERE owner = ? AND ticket = ?",
                          (owner, ticket))
            if commit:
                for session_id, budget_id, units in held:
                    tx.add_spent(str(session_id), str(budget_id), _units(units, self.where))
            tx.run("DELETE FROM reservations WHERE owner = ? AND ticket = ?", (owner, ticket))

    def raise_spent(self, session_id: str, units: dict[str, int]) -> None:
        """Raises spent units to at least those given (a process that commits at once: shell hooks)."""
        with self.transaction(session_id, durable=True) as tx:
            tx.session_row(session_id)
            for budget_id, count in units.items():
                tx.run("INSERT INTO budget_spent (session_id, budget_id, units) VALUES (?, ?, ?) "
                       f"ON CONFLICT (session_id, budget_id) DO UPDATE SET units = {self.greatest}(budget_spent.units, excluded.units)",
                       (session_id, budget_id, count))

    # ---- the audit chain's head ----

    def audit_head(self, log: str) -> tuple[int, str, int, int] | None:
        """(seq, hash, size, inode) of the log's last record as its writer saved it, or None."""
        with self.transaction(write=False) as tx:
            row = tx.one("SELECT seq, hash, size, inode FROM audit_heads WHERE log = ?", (log,))
        if row is None:
            return None
        seq, digest, size, inode = row
        if not all(type(v) is int for v in (seq, size, inode)) or not isinstance(digest, str) or len(digest) != 64:
            raise StateCorrupt(f"the audit head of {log} in {self.where} cannot be read: {row!r}")
        return seq, digest, size, inode

    def set_audit_head(self, log: str, seq: int, digest: str, size: int, inode: int) -> None:
        with self.transaction() as tx:
            tx.run("INSERT INTO audit_heads (log, seq, hash, size, inode) VALUES (?, ?, ?, ?, ?) "
                   "ON CONFLICT (log) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, size = excluded.size, "
                   "inode = excluded.inode WHERE audit_heads.seq <= excluded.seq",  # another writer's later head stays
                   (log, seq, digest, size, inode))

    def close(self) -> None:
        self._forget_connection()


class Transaction:
    """The queries of one transaction."""

    def __init__(self, store: Store, connection: Any):
        self.store = store
        self._connection = connection

    def run(self, text: str, args: tuple[Any, ...] = ()) -> Any:
        return self.store._run(self._connection, text, args)

    def one(self, text: str, args: tuple[Any, ...] = ()) -> Any:
        return self.run(text, args).fetchone()

    def all(self, text: str, args: tuple[Any, ...] = ()) -> list[Any]:
        return list(self.run(text, args).fetchall())

    def session_row(self, session_id: str) -> None:
        self.run("INSERT INTO sessions (session_id, created) VALUES (?, ?) ON CONFLICT (session_id) DO NOTHING",
                 (session_id, time.time()))

    def items(self, session_id: str, after: int) -> list[Item]:
        items = []
        for row in self.all("SELECT id, kind, value, directory FROM session_items WHERE session_id = ? AND id > ? ORDER BY id",
                            (session_id, after)):
            item_id, kind, value, directory = row
            if type(item_id) is not int or kind not in schema.ITEM_KINDS or not isinstance(value, str) \
                    or not isinstance(directory, str):
                raise StateCorrupt(f"an item saved for it in {self.store.where} cannot be read: {_shown(row)}")
            items.append(Item(item_id, kind, value, directory))
        return items

    def units(self, session_id: str) -> dict[str, int]:
        """Units by budget id kept under a session's id (or another count's key, ledger.py):
        spent, and held by reservations (a call under way, or one whose process died before its
        outcome was known, counts as spent)."""
        units: dict[str, int] = {}
        where = self.store.where
        # One statement: PostgreSQL reads each statement as of its own start, and a settlement
        # committed between two reads would move its units out of the one already read and into
        # the one not yet read, counted in neither.
        for budget_id, count in self.all("SELECT budget_id, units FROM budget_spent WHERE session_id = ? "
                                         "UNION ALL SELECT budget_id, units FROM reservations WHERE session_id = ?",
                                         (session_id, session_id)):
            if not isinstance(budget_id, str):
                raise StateCorrupt(f"a budget id saved for it in {where} cannot be read: {budget_id!r} is not text")
            units[budget_id] = units.get(budget_id, 0) + _units(count, where)
        return units

    def append(self, session_id: str, kind: str, value: str, directory: str = "") -> int:
        self.session_row(session_id)
        if kind != "message" and self.one("SELECT 1 FROM session_items WHERE session_id = ? AND kind = ? AND value = ?",
                                          (session_id, kind, value)) is not None:
            return 0
        row = self.one("INSERT INTO session_items (session_id, kind, value, directory) VALUES (?, ?, ?, ?) RETURNING id",
                       (session_id, kind, value, directory))
        return int(row[0])

    def reserve(self, session_id: str, owner: str, ticket: int, units: dict[str, int]) -> None:
        now = time.time()
        for budget_id, count in units.items():
            self.run("INSERT INTO reservations (owner, ticket, budget_id, session_id, units, created) VALUES (?, ?, ?, ?, ?, ?)",
                     (owner, ticket, budget_id, session_id, count, now))

    def add_spent(self, session_id: str, budget_id: str, units: int) -> None:
        self.run("INSERT INTO budget_spent (session_id, budget_id, units) VALUES (?, ?, ?) "
                 "ON CONFLICT (session_id, budget_id) DO UPDATE SET units = budget_spent.units + excluded.units",
                 (session_id, budget_id, units))

    def set_moved(self, session_id: str) -> None:
        self.session_row(session_id)
        self.run("UPDATE sessions SET moved = 1 WHERE session_id = ?", (session_id,))

    def delete(self, session_id: str) -> None:
        for table in ("session_items", "budget_spent", "reservations", "sessions"):
            self.run(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))


MAX_UNITS = (1 << 63) - 1


def _units(value: Any, where: str) -> int:
    if type(value) is not int or not 0 <= value <= MAX_UNITS:
        raise StateCorrupt(f"a budget count saved for it in {where} cannot be read: {value!r} is not a whole number of units")
    return value


def _shown(row: Any) -> str:
    text = repr(tuple(row))
    return text if len(text) <= 200 else text[:200] + "…"
