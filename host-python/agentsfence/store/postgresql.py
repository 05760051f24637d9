"""The state store in PostgreSQL (`agentsfence.state: postgresql://USER@HOST/DB` in Hermes'
config.yaml): every gateway of a fleet shares its sessions, grants and budget counts.

Needs psycopg 3 (`pip install 'agentsfence[postgresql]'`). A transaction that writes for a session
locks the session's row (SELECT ... FOR UPDATE), so gateways deciding budgeted calls of one
session take turns and other sessions go on. A server that cannot be reached raises
StoreUnavailable: the call that needed it blocks, and the next call connects again.
"""
from __future__ import annotations

import re
import time
from typing import Any

from .base import StateCorrupt, Store, StoreUnavailable

CONNECT_SECONDS = 5  # a server that does not answer within this blocks the call, rather than hang it


class PostgresStore(Store):
    identity = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    greatest = "GREATEST"

    def __init__(self, url: str):
        super().__init__()
        self.url = url
        self.where = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)  # never the password in a message

    def _connect(self) -> Any:
        try:
            import psycopg
        except ImportError as error:
            raise StoreUnavailable("agentsfence.state names PostgreSQL, and psycopg 3 is not installed "
                                   "(pip install 'agentsfence[postgresql]')") from error
        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_SECONDS)
        except psycopg.Error as error:
            raise StoreUnavailable(f"the state store {self.where} cannot be reached: {_first_line(error)}") from error

    def _sql(self, text: str) -> str:
        return text.replace("?", "%s")

    def _begin(self, connection: Any, session_id: str | None, write: bool, durable: bool, keys: list[str]) -> None:
        connection.execute("BEGIN")
        if write and not durable:
            connection.execute("SET LOCAL synchronous_commit TO OFF")
        if write and session_id is not None:
            connection.execute("INSERT INTO sessions (session_id, created) VALUES (%s, %s) ON CONFLICT (session_id) DO NOTHING",
                               (session_id, time.time()))
            connection.execute("SELECT 1 FROM sessions WHERE session_id = %s FOR UPDATE", (session_id,))
        for key in keys if write else ():  # a user's or the team's count: one holder at a time (sorted: no deadlock)
            if key != session_id:
                connection.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))

    def _create(self, connection: Any) -> None:
        # Two processes creating the schema at once would race on the catalog: one at a time.
        connection.execute("SELECT pg_advisory_lock(7470651)")
        try:
            super()._create(connection)
        finally:
            connection.execute("SELECT pg_advisory_unlock(7470651)")

    def _fault(self, error: Exception) -> Exception | None:
        import psycopg

        if isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
            return StoreUnavailable(f"the state store {self.where} cannot be reached: {_first_line(error)}")
        if isinstance(error, psycopg.DataError):
            return StateCorrupt(f"a value in {self.where} cannot be read: {_first_line(error)}")
        if isinstance(error, psycopg.Error):
            return StoreUnavailable(f"the state store {self.where} failed: {_first_line(error)}")
        return None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
