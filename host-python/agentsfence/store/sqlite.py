"""The state store in one SQLite file ($HERMES_HOME/agentsfence/state.db), in WAL mode: every
process of the Hermes home (a CLI, a gateway or several) shares it.

A transaction that writes begins IMMEDIATE: it takes the file's write lock at once, so two
processes deciding budgeted calls take turns (a deferred one would fail where it upgrades).
synchronous=FULL: a commit (a reservation made before its call runs) is on disk when it returns;
a store opened with durable=False (the audit chain's head, a hint the log can always be read for)
skips that sync, and a commit survives a crash of the process but maybe not of the machine.
A file that is not a SQLite database, or a damaged one, is never replaced: every call that needs
it blocks, and the message says where it is.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from .base import StateCorrupt, Store, StoreUnavailable

BUSY_SECONDS = 30.0  # how long a writer waits for another process's transaction


class SQLiteStore(Store):
    identity = "INTEGER PRIMARY KEY AUTOINCREMENT"
    greatest = "MAX"

    def __init__(self, path: Path, durable: bool = True):
        super().__init__()
        self.path = Path(path)
        self.where = str(self.path)
        self.durable = durable

    def _connect(self) -> Any:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise self._fault(error) or StoreUnavailable(str(error)) from error
        try:
            self.path.chmod(0o600)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL" if self.durable else "PRAGMA synchronous=NORMAL")
        except (OSError, sqlite3.Error) as error:
            connection.close()
            raise self._fault(error) or StoreUnavailable(str(error)) from error
        return connection

    def _begin(self, connection: Any, session_id: str | None, write: bool) -> None:
        connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def _fault(self, error: Exception) -> Exception | None:
        if isinstance(error, sqlite3.OperationalError) or isinstance(error, OSError):
            return StoreUnavailable(f"the state store {self.where} cannot be used: {error}")
        if isinstance(error, sqlite3.DatabaseError):  # not a database, or a damaged one
            return StoreUnavailable(f"the state store {self.where} cannot be read ({error}); it is left as it is: "
                                    "restore it from a backup, or move it aside to start with no saved state")
        if isinstance(error, (sqlite3.InterfaceError, sqlite3.ProgrammingError)):
            return StateCorrupt(f"a value in {self.where} cannot be read: {error}")
        return None
