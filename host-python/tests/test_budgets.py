"""Call budgets through the Python API on the real fence.wasm (docs/bytecode.md §3.2, §8.2):
reservations, settling, the counters, restore, concurrency, and a rebuilt evaluator."""
from __future__ import annotations

import threading
from decimal import Decimal
from pathlib import Path

import pytest

from agentsfence import Fence
from agentsfence import api
from agentsfence.codec import restore_lines
from agentsfence.engine import EngineFault

HOME, CWD = "/home/user", "/home/user/project"
POLICY = """version: 1
name: budget-test
extends: [defaults]
budgets:
  - {id: two-writes, capability: [file.write], limit: 2}
  - {id: one-message, capability: ["email.*", message.send], limit: 1}
"""
WRITE = {"path": "summary.md", "content": "# Summary"}


def calls(session: api.Session) -> list[api.Budget]:
    """The session's budgets of calls: this policy's own (the shipped one adds a budget of sums)."""
    return [b for b in session.budgets() if not b.sums]


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    from agentsfence.compiler import compile_policy

    source = tmp_path_factory.mktemp("policy") / "budgets.yaml"
    source.write_text(POLICY)
    return compile_policy([source])


@pytest.fixture
def fence(policy: bytes) -> Fence:
    return Fence(policy, home=HOME, cwd=CWD)


def test_a_reservation_is_committed_or_released_and_the_counters_say_so(fence):
    session = fence.session("s")
    session.intent("Write summary.md")
    first = session.decide("write_file", WRITE)
    assert first.kind == "allow" and first.reservation > 0
    assert [(b.id, b.limit, b.spent, b.reserved, b.remaining) for b in calls(session)] == [
        ("two-writes", 2, 0, 1, 1), ("one-message", 1, 0, 0, 1)]
    assert session.commit(first.reservation) is True
    assert session.commit(first.reservation) is False  # settled: nothing changes
    second = session.decide("write_file", WRITE)
    assert session.release(second.reservation) is True
    assert session.release(10**6) is False and session.commit(-1) is False
    assert [(b.spent, b.reserved) for b in calls(session)][0] == (1, 0)
    third = session.decide("write_file", WRITE)
    fourth = session.decide("write_file", WRITE)
    assert third.reservation > 0
    assert (fourth.kind, fourth.reason, fourth.rule, fourth.reservation) == ("block", "budget_exhausted", "two-writes", 0)
    assert fourth.message == ("AgentsFence blocked write_file: the policy's budget two-writes allows 2 calls of file.write (write) "
                              "per session, and it is used up (1 made, 1 under way) [two-writes]")


def test_restored_counts_count_and_a_dropped_session_settles_nothing(fence):
    session = fence.session("resumed")
    session.intent("Write summary.md")
    session.restore_budgets({"two-writes": 2, "no-longer-in-the-policy": 5})
    assert session.decide("write_file", WRITE).reason == "budget_exhausted"
    fence.drop_session("resumed")
    assert session.commit(1) is False


def test_concurrent_decisions_on_one_session_never_overshoot(fence):
    """Hermes runs the calls of one model turn on worker threads; the Fence serializes them into
    one evaluator, where the check and the reservation are one call."""
    session = fence.session("batch")
    session.intent("Write summary.md")
    start = threading.Barrier(8)
    decisions: list[api.Decision] = []
    lock = threading.Lock()

    def worker() -> None:
        start.wait()
        for _ in range(5):
            decision = session.decide("write_file", WRITE)
            with lock:
                decisions.append(decision)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(decisions) == 40
    reserved = [d.reservation for d in decisions if d.kind != "block"]
    assert len(reserved) == 2 and len(set(reserved)) == 2
    assert sum(d.reason == "budget_exhausted" for d in decisions) == 38


def test_a_rebuilt_evaluator_keeps_the_counts_and_counts_open_reservations_as_spent(fence, monkeypatch):
    session = fence.session("trapped")
    session.intent("Write summary.md")
    assert session.commit(session.decide("write_file", WRITE).reservation)
    open_reservation = session.decide("write_file", WRITE).reservation
    wasm = fence._wasm

    def trap(*args: object) -> bytes:
        raise EngineFault("decide trapped: simulated")

    monkeypatch.setattr(wasm, "decide", trap)
    assert session.decide("write_file", WRITE).reason == "engine_fault"
    assert fence.rebuilds == 1 and fence._wasm is not wasm
    assert [(b.spent, b.reserved) for b in calls(session)][0] == (2, 0)
    assert session.release(open_reservation) is False  # its id means nothing to the new evaluator
    assert session.decide("write_file", WRITE).reason == "budget_exhausted"


def test_a_session_whose_counts_cannot_be_read_after_a_trap_blocks(fence, monkeypatch):
    session = fence.session("lost")
    session.intent("Write summary.md")
    wasm = fence._wasm

    def fail(*args: object, **kwargs: object) -> bytes:
        raise EngineFault("trapped: simulated")

    monkeypatch.setattr(wasm, "decide", fail)
    monkeypatch.setattr(wasm, "invoke", fail)
    decision = session.decide("write_file", WRITE)
    assert decision.reason == "engine_fault"
    after = session.decide("read_file", {"path": "notes.txt"})
    assert (after.kind, after.reason) == ("block", "host_error") and "budget counts were lost" in after.message


def test_a_yaml_policy_with_budgets_compiles_from_a_path(tmp_path: Path):
    source = tmp_path / "b.yaml"
    source.write_text(POLICY)
    assert [b.id for b in calls(Fence(source).session("p"))] == ["two-writes", "one-message"]


SUMS = """version: 1
name: sums-test
defaults: {"*": ask}
tools:
  - {name: pay, capability: money.pay, risk: money, args: {to: object, invoice: object, amount: amount, currency: amount}}
rules:
  - {id: pay-acme, effect: allow, capability: [money.pay], when: {object: {in_intent: named}}}
budgets:
  - {id: euros, capability: [money.pay], amount: "500 EUR"}
"""


@pytest.fixture
def sums(tmp_path: Path) -> Fence:
    source = tmp_path / "sums.yaml"
    source.write_text(SUMS)
    return Fence(source, home=HOME, cwd=CWD)


def euros(session: api.Session) -> api.Budget:
    return next(b for b in session.budgets() if b.id == "euros")


def test_a_budget_of_sums_reserves_the_sum_and_reads_back_as_decimals(sums):
    session = sums.session("s")
    # Each payment pays another invoice: one paid again would be a repeat, asked as such.
    session.intent("Pay Acme Corp the invoices INV-1, INV-2 and INV-3")
    decision = session.decide("pay", {"to": "Acme Corp", "invoice": "INV-1", "amount": "120.50", "currency": "eur"})
    assert decision.kind == "allow" and decision.reservation > 0
    assert ("amount", "120.5 EUR") in decision.targets
    assert euros(session) == api.Budget("euros", Decimal(500), Decimal(0), Decimal("120.5"), True, "EUR")
    assert session.commit(decision.reservation)
    budget = euros(session)
    assert (budget.spent, budget.remaining, budget.saved) == (Decimal("120.5"), Decimal("379.5"), "120.5")
    over = session.decide("pay", {"to": "Acme Corp", "invoice": "INV-2", "amount": 400, "currency": "EUR"})
    assert (over.kind, over.reason, over.rule) == ("ask", "budget_exceeded", "euros") and over.reservation > 0
    assert session.release(over.reservation)
    assert over.witness == (("amount", "400 EUR"),)
    other = session.decide("pay", {"to": "Acme Corp", "invoice": "INV-3", "amount": 10, "currency": "USD"})
    assert (other.kind, other.reason, other.rule) == ("ask", "budget_unmeasured", "euros")


def test_a_budget_of_sums_is_restored_from_decimal_text_and_survives_a_rebuild(sums, monkeypatch):
    session = sums.session("r")
    session.intent("Pay Acme Corp")
    session.restore_budgets({"euros": "450.25", "retired": 3})
    assert euros(session).spent == Decimal("450.25")
    session.restore_budgets({"euros": Decimal("100")})  # never lowers
    assert euros(session).spent == Decimal("450.25")
    open_reservation = session.decide("pay", {"to": "Acme Corp", "amount": "49.75", "currency": "EUR"}).reservation
    assert open_reservation > 0
    wasm = sums._wasm

    def trap(*args: object) -> bytes:
        raise EngineFault("decide trapped: simulated")

    monkeypatch.setattr(wasm, "decide", trap)
    assert session.decide("pay", {"to": "Acme Corp", "amount": 1, "currency": "EUR"}).reason == "engine_fault"
    assert sums.rebuilds == 1
    assert (euros(session).spent, euros(session).reserved) == (Decimal(500), Decimal(0))  # the open sum counts as spent
    assert session.decide("pay", {"to": "Acme Corp", "amount": "0.01", "currency": "EUR"}).reason == "budget_exceeded"


def test_restore_lines_take_whole_calls_and_decimal_sums_only():
    assert restore_lines({"a": 2, "b": "1.50", "c": Decimal("0.25"), "d": 0, "e": "-1", "f": "x", "g": True,
                           "h\tx": 1, "i": 2**32}) == b"a\t2\nb\t1.50\nc\t0.25\n"


def test_a_session_record_keeps_a_sum_as_decimal_text(tmp_path: Path):
    import sqlite3

    from agentsfence.state import SessionRecord, SessionStore, StateCorrupt

    store = SessionStore(tmp_path / "sessions")
    store.save(SessionRecord("s", [("Pay Acme Corp", CWD)]))
    store.raise_spent("s", {"euros": "120.5", "three": 2})
    loaded = store.load("s")
    assert loaded is not None and loaded.budgets == {"euros": "120.5", "three": 2}
    for bad in ("-1", b"\x01", "twelve", 1.5, -1):
        store.raise_spent("t", {"euros": 1})
        with sqlite3.connect(tmp_path / "state.db") as db:
            db.execute("UPDATE budget_spent SET units = ? WHERE session_id = 't'", (bad,))
        with pytest.raises(StateCorrupt):
            store.load("t")


def test_a_session_record_keeps_whether_the_terminal_moved(tmp_path: Path):
    import sqlite3

    from agentsfence.state import SessionRecord, SessionStore, StateCorrupt

    store = SessionStore(tmp_path / "sessions")
    store.save(SessionRecord("s", [("Find the TODO comments", CWD)], moved=True))
    loaded = store.load("s")
    assert loaded is not None and loaded.moved
    store.save(SessionRecord("t", []))
    with sqlite3.connect(tmp_path / "state.db") as db:
        db.execute("UPDATE sessions SET moved = 'yes' WHERE session_id = 't'")
    with pytest.raises(StateCorrupt):
        store.load("t")
