"""What a live session costs: the evaluator's intent store and the Python objects beside it."""
from __future__ import annotations

import gc
import tracemalloc

from agentsfence.api import Fence

HOME, CWD = "/home/user", "/home/user/project"
# One clause naming many values: an intent store item for each, every one from that clause.
ONE_CLAUSE = "email " + " and ".join(f"u{i}@ex.org" for i in range(15)) + " the audit report we finished last week"
SESSIONS = 8000


def _linear_bytes(fence: Fence) -> int:
    wasm = fence._wasm
    return wasm._memory.data_len(wasm._store)


def test_the_intent_store_keeps_one_copy_of_a_clause_its_items_share():
    fence = Fence(None, home=HOME, cwd=CWD)
    intent = fence.session("warm").intent(ONE_CLAUSE)
    clause_items = [b for b in intent.bindings if b.clause] + [v for v in intent.verb_uses if v.clause]
    [clause] = {item.clause for item in clause_items}
    assert len(clause_items) >= 15 and len(clause) >= 100
    before = _linear_bytes(fence)
    for i in range(SESSIONS):
        fence.session(f"s{i}").intent(ONE_CLAUSE)
    per_session = (_linear_bytes(fence) - before) / SESSIONS
    # A copy of the clause per item would take more than this alone (memory grows by 1 MiB steps,
    # about 130 B a session here).
    assert per_session < len(clause) * len(clause_items), per_session


def test_a_session_with_an_intent_costs_python_less_than_a_kilobyte():
    fence = Fence(None, home=HOME, cwd=CWD)
    fence.session("warm").intent(ONE_CLAUSE)
    names = [f"s{i}" for i in range(SESSIONS)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for name in names:
            fence.session(name).intent(ONE_CLAUSE)
        per_session = (tracemalloc.get_traced_memory()[0] - before) / SESSIONS
    finally:
        tracemalloc.stop()
    assert per_session < 1024, per_session


def test_a_later_turn_keeps_each_earlier_items_own_clause():
    fence = Fence(None, home=HOME, cwd=CWD)
    session = fence.session("s")
    first = "write the notes to notes.md. email bob@example.com the summary"
    session.intent(first)
    intent = session.intent("also read report.txt and post to #team")
    clauses = {b.value: b.clause for b in intent.bindings}
    assert clauses[f"{CWD}/notes.md"] == "write the notes to notes.md"
    assert clauses["bob@example.com"] == "email bob@example.com the summary"
    assert clauses[f"{CWD}/report.txt"] == clauses["#team"] == "also read report.txt and post to #team"
    assert {v.clause for v in intent.verb_uses} >= {"write the notes to notes.md", "email bob@example.com the summary"}
    assert Fence(None, home=HOME, cwd=CWD).session("t").intent(first).bindings == \
        tuple(b for b in intent.bindings if b.turn == 1)


REQUEST = "Fix the bug in src/app.py, write notes to notes.md and email bob@example.com the summary"


def test_the_evaluator_keeps_a_session_with_a_plain_request_in_under_1400_bytes():
    """Its intent store of about 1.1 KB in a block at most a fifth larger, and the session's entry."""
    fence = Fence(None, home=HOME, cwd=CWD)
    fence.session("warm").intent(REQUEST)
    before = _linear_bytes(fence)
    for i in range(2 * SESSIONS):
        fence.session(f"s{i}").intent(REQUEST)
    per_session = (_linear_bytes(fence) - before) / (2 * SESSIONS)
    assert per_session < 1400, per_session


def test_a_live_session_with_a_plain_request_bound_costs_at_most_two_kilobytes():
    """The evaluator's block for the session's intent store and the Python objects beside it, both
    counted: a host keeps every session of a long-running agent alive."""
    fence = Fence(None, home=HOME, cwd=CWD)
    fence.session("warm").intent(REQUEST)
    names = [f"s{i}" for i in range(2 * SESSIONS)]
    gc.collect()
    linear = _linear_bytes(fence)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for name in names:
            fence.session(name).intent(REQUEST)
        python = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    per_session = (python + _linear_bytes(fence) - linear) / len(names)
    assert per_session <= 2048, per_session
