"""The state store's one schema, for SQLite and PostgreSQL alike.

The SQL here is the one text both backends run; a backend substitutes only what its dialect
spells otherwise: `{identity}` (an id column that only grows) and `{greatest}` (the larger of two).

Tables:
    meta           schema version
    sessions       one row per top-level session: when it was first saved, whether a call moved
                   its terminal
    session_items  what a session was told, in order: its user messages (with the directory each
                   was read in), task ids, the rule keys a person granted for the session, and
                   the gateway users whose messages were bound. Appended, never rewritten: two
                   processes continuing one session each add theirs, and neither's is lost.
    budget_spent   per session and budget, the units spent by calls that ran
    reservations   per call decided and not yet settled, the units it holds of each budget:
                   written before the call runs, so a crash leaves it counted as spent
    audit_heads    per audit log, the chain's last record (seq, hash) and where it ends
    resets         what `agentsfence sessions reset` removed, kept as text

Units: every count is in millionths (a call is 1000000, a sum of 1.5 EUR is 1500000), the
evaluator's own unit for sums (docs/bytecode.md §8.2), so one integer column holds both kinds.
"""
from __future__ import annotations

VERSION = 1
UNIT = 1_000_000  # a store unit per call, and per whole unit of a sum

TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, "
    "moved INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS session_items (id {identity}, session_id TEXT NOT NULL, kind TEXT NOT NULL, "
    "value TEXT NOT NULL, directory TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX IF NOT EXISTS session_items_by_session ON session_items (session_id, id)",
    "CREATE TABLE IF NOT EXISTS budget_spent (session_id TEXT NOT NULL, budget_id TEXT NOT NULL, units BIGINT NOT NULL, "
    "PRIMARY KEY (session_id, budget_id))",
    "CREATE TABLE IF NOT EXISTS reservations (owner TEXT NOT NULL, ticket BIGINT NOT NULL, budget_id TEXT NOT NULL, "
    "session_id TEXT NOT NULL, units BIGINT NOT NULL, created DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (owner, ticket, budget_id))",
    "CREATE INDEX IF NOT EXISTS reservations_by_session ON reservations (session_id)",
    "CREATE TABLE IF NOT EXISTS audit_heads (log TEXT PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL, "
    "size BIGINT NOT NULL, inode BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS resets (session_id TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, rows TEXT NOT NULL)",
)

ITEM_KINDS = ("message", "task", "grant", "sender")
