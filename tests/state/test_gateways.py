"""Several gateway processes of one profile (fence_gateway.py: real Hermes, its hook entry points)
continue one session at once, on one SQLite file and on PostgreSQL: the session's budget of
sends holds across all of them, and no turn, decision or spend is lost."""
from __future__ import annotations

from pathlib import Path

import pytest

from agentsfence.store.schema import UNIT
from conftest import make_home
from gateways import chain_ok, decisions, result, sent, start, stored

LIMIT, ATTEMPTS = 5, 6


def run_gateways(home: Path, count: int, state: str) -> None:
    sends = home.parent / "sends.log"
    workers = [start(home, "shared", ATTEMPTS, sends) for _ in range(count)]
    reports = [result(worker)[1] for worker in workers]
    # No overspend, and no unit lost: exactly the budget's sends ran, each recorded once.
    assert sum(r["sent"] for r in reports) == LIMIT and len(sent(sends)) == LIMIT == len(set(sent(sends)))
    # Every other attempt was refused by the budget, not by a fault.
    assert all(set(r["blocked"]) <= {"sends"} for r in reports), reports
    messages, units, open_reservations = stored(home, state, "shared")
    assert (messages, units, open_reservations) == (count, {"sends": LIMIT * UNIT}, 0)  # every turn saved
    ok, _, problems = chain_ok(home)
    assert ok, problems
    assert len(decisions(home)) == count * ATTEMPTS  # every decision on record


@pytest.mark.parametrize("count", [2, 4])
def test_gateways_on_one_sqlite_file_share_the_sessions_budget(tmp_path: Path, count: int):
    run_gateways(make_home(tmp_path, LIMIT), count, "")


def test_four_gateways_on_postgresql_share_the_sessions_budget(tmp_path: Path, database: str):
    home = make_home(tmp_path, LIMIT, database)
    run_gateways(home, 4, database)
    assert stored_sessions_in_sqlite(home) == 0  # with PostgreSQL set, the local file holds only the audit head


def stored_sessions_in_sqlite(home: Path) -> int:
    """Sessions in the local SQLite file (which with PostgreSQL set holds only the audit chain's head)."""
    from agentsfence.store.sqlite import SQLiteStore

    return len(SQLiteStore(home / "agentsfence" / "state.db").sessions())
