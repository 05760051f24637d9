"""The state store: session records, grants, budget counts and reservations, and the audit
chain's head, in one database that every process of a Hermes home (SQLite, the default) or of a
fleet (PostgreSQL, `agentsfence.state: postgresql://...`) shares.

base.py holds every query (schema.py the one schema); a backend (sqlite.py, postgresql.py)
supplies connections, how a transaction locks a session, and which of its driver's errors mean
the store cannot be reached. What the counts mean is the evaluator's (fence.wasm): the store
keeps the units it hands over and hands them back.

Faults: a store that cannot be reached (or written) raises StoreUnavailable, and the call that
needed it blocks; it is tried again on the next call. A row that cannot be read raises
StateCorrupt: the session blocks until a person resets it (`agentsfence sessions reset ID`),
never a fresh start.
"""
from __future__ import annotations

from pathlib import Path

from .base import Item, SavedSession, StateCorrupt, Store, StoreUnavailable, Transaction

__all__ = ["Item", "SavedSession", "StateCorrupt", "Store", "StoreUnavailable", "Transaction", "open_store"]


def open_store(setting: str, folder: Path) -> Store:
    """The store a setting names: "" for SQLite in the state folder (state.db), or a
    postgresql:// URL. Connects lazily: an unreachable store is found by the first call that needs it."""
    if setting.startswith(("postgresql://", "postgres://")):
        from .postgresql import PostgresStore

        return PostgresStore(setting)
    from .sqlite import SQLiteStore

    return SQLiteStore(folder / "state.db")
