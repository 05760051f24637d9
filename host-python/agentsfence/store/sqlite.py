"""The state store in one SQLite file ($HERMES_HOME/agentsfence/state.db), in WAL mode: every
process of the Hermes home (a CLI, a gateway or several) shares it.

A transaction that writes begins IMMEDIATE: it takes the file's write lock at once, so two
processes deciding budgeted calls take turns (a deferred one would fail where it upgrades). The
threads of one process queue for it on a lock of their own first: SQLite has one writer at a
time anyway, and its busy handler would have each waiter poll, sleeping up to 100 ms between
tries. Reads take neither.
A durable transaction (a reservation made before its call runs) commits with synchronous=FULL:
on disk when it returns. Any other commits with synchronous=NORMAL, WAL's default: it survives a
crash of the process, and the next durable commit syncs it too.
A file that is not a SQLite database, or a damaged one, is never replaced: every call that needs
it blocks, and the message says where it is.
"""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from .base import StateCorrupt, Store, StoreUnavailable

BUSY_SECONDS = 30.0  # how long a writer waits for another process's transaction


class SQLiteStore(Store):
    identity = "INTEGER PRIMARY KEY AUTOINCREMENT"
    greatest = "MAX"

    def __init__(self, path: Path):
        super().__init__()
        self.path = Path(path)
        self.where = str(self.path)
        self._writer = threading.Lock()  # this process's turn at the file's write lock

    def _connect(self) -> Any:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise self._fault(error) or StoreUnavailable(str(error)) from error
        try:
            self.path.chmod(0o600)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            self._local.durable = False
        except (OSError, sqlite3.Error) as error:
            connection.close()
            raise self._fault(error) or StoreUnavailable(str(error)) from error
        return connection

    def _begin(self, connection: Any, session_id: str | None, write: bool, durable: bool, keys: list[str]) -> None:
        # A write takes the file's one write lock: it holds every session and count at once.
        if write:
            self._writer.acquire()  # released by _finish, whatever happens from here
            self._local.writing = True
        if write and durable != self._local.durable:  # per connection, and only outside a transaction
            connection.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=NORMAL")
            self._local.durable = durable
        connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def _finish(self, write: bool) -> None:
        if getattr(self._local, "writing", False):
            self._local.writing = False
            self._writer.release()

    def _fault(self, error: Exception) -> Exception | None:
        if isinstance(error, sqlite3.OperationalError) or isinstance(error, OSError):
            return StoreUnavailable(f"the state store {self.where} cannot be used: {error}")
        if isinstance(error, sqlite3.DatabaseError):  # not a database, or a damaged one
            return StoreUnavailable(f"the state store {self.where} cannot be read ({error}); it is left as it is: "
                                    "restore it from a backup, or move it aside to start with no saved state")
        if isinstance(error, (sqlite3.InterfaceError, sqlite3.ProgrammingError)):
            return StateCorrupt(f"a value in {self.where} cannot be read: {error}")
        return None
