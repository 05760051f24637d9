"""Call budgets through the Python API on the real fence.wasm (docs/bytecode.md §3.2, §8.2):
reservations, settling, the counters, restore, concurrency, and a rebuilt evaluator."""
from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from agentsfence import Fence
from agentsfence import api
from agentsfence.engine import EngineFault

from .conftest import REPO

HOME, CWD = "/home/user", "/home/user/project"
POLICY = """version: 1
name: budget-test
extends: [defaults]
budgets:
  - {id: two-writes, capability: [file.write], limit: 2}
  - {id: one-message, capability: ["email.*", message.send], limit: 1}
"""
WRITE = {"path": "summary.md", "content": "# Summary"}


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    from agentsfence.compiler import compile_policy

    source = tmp_path_factory.mktemp("policy") / "budgets.yaml"
    source.write_text(POLICY)
    return compile_policy([source])


@pytest.fixture
def fence(policy: bytes) -> Fence:
    return Fence(policy, home=HOME, cwd=CWD)


def test_the_abi_constants_match_the_format_file():
    source = (REPO / "assembly" / "format.ts").read_text()
    constants = {m[1]: int(m[2]) for m in re.finditer(r"export const (\w+) = (\d+);", source)}
    subjects = {value: name for name, value in constants.items() if name.startswith("SUBJ_")}
    assert [subjects[i].removeprefix("SUBJ_").lower() for i in range(constants["SUBJECT_COUNT"])] == \
        [("arg" if s == "args" else s) for s in api.SUBJECTS]
    assert api._DECISION_HEAD.size == constants["DECISION_HEAD_SIZE"]


def test_a_reservation_is_committed_or_released_and_the_counters_say_so(fence):
    session = fence.session("s")
    session.intent("Write summary.md")
    first = session.decide("write_file", WRITE)
    assert first.kind == "allow" and first.reservation > 0
    assert [(b.id, b.limit, b.spent, b.reserved, b.remaining) for b in session.budgets()] == [
        ("two-writes", 2, 0, 1, 1), ("one-message", 1, 0, 0, 1)]
    assert session.commit(first.reservation) is True
    assert session.commit(first.reservation) is False  # settled: nothing changes
    second = session.decide("write_file", WRITE)
    assert session.release(second.reservation) is True
    assert session.release(10**6) is False and session.commit(-1) is False
    assert [(b.spent, b.reserved) for b in session.budgets()][0] == (1, 0)
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
    assert [(b.spent, b.reserved) for b in session.budgets()][0] == (2, 0)
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
    assert [b.id for b in Fence(source).session("p").budgets()] == ["two-writes", "one-message"]
