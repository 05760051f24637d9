"""The store's one interface on both backends: the same calls give the same answers on SQLite and
on the test's own PostgreSQL server, garbage included."""
from __future__ import annotations

from pathlib import Path

import pytest

from agentsfence.store import StateCorrupt, Store, open_store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    setting = request.getfixturevalue("database") if request.param == "postgresql" else ""
    opened = open_store(setting, tmp_path)
    yield opened
    opened.close()


def test_the_same_calls_give_the_same_answers(store: Store):
    assert store.load("s") is None
    first = store.append("s", "message", "Email bob@example.com", "/w")
    assert store.append("s", "task", "t1") > first and store.append("s", "task", "t1") == 0
    with store.transaction("s") as tx:
        tx.reserve("s", "owner-a", 1, {"sends": 1_000_000})
        tx.reserve("s", "owner-b", 1, {"sends": 1_000_000, "euros": 2_500_000})
    store.settle("owner-a", 1, commit=True)
    moved, items, units = store.load("s")
    assert not moved and [(i.kind, i.value) for i in items] == [("message", "Email bob@example.com"), ("task", "t1")]
    assert units == {"sends": 2_000_000, "euros": 2_500_000}  # spent, and held by owner-b's open reservation
    store.settle("owner-b", 1, commit=False)
    assert store.load("s")[2] == {"sends": 1_000_000}
    assert store.items_since("s", first) == items[1:]
    store.set_audit_head("/log", 7, "a" * 64, 1234, 99)
    store.set_audit_head("/log", 8, "b" * 64, 2345, 99)
    assert store.audit_head("/log") == (8, "b" * 64, 2345, 99)
    assert store.reset("s") == 4 and store.load("s") is None  # session, 2 items, the spent row


@pytest.mark.parametrize("garbage", ["UPDATE session_items SET kind = 'rumour'", "UPDATE budget_spent SET units = -3"])
def test_garbage_is_a_fault_on_both(store: Store, garbage: str):
    store.append("s", "message", "Email bob@example.com", "/w")
    store.raise_spent("s", {"sends": 1_000_000})
    with store.transaction() as tx:
        tx.run(garbage)
    with pytest.raises(StateCorrupt, match="cannot be read"):
        store.load("s")
