"""The state store in one process: budget_set, the chain's head beside the audit log (a record of
any size, a log cut short), the schema's version, and `agentsfence sessions`. Several processes,
PostgreSQL, kills and garbage rows: tests/state."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agentsfence import Fence
from agentsfence.api import Decision
from agentsfence.audit import AuditLog, verify
from agentsfence.cli import main as agentsfence
from agentsfence.state import SessionRecord, SessionStore, from_units, to_units
from agentsfence.store import StoreUnavailable
from agentsfence.store.sqlite import SQLiteStore

POLICY = """version: 1
name: store-test
extends: [defaults]
budgets:
  - {id: two-writes, capability: [file.write], limit: 2}
"""
WRITE = {"path": "summary.md", "content": "# Summary"}


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    from agentsfence.compiler import compile_policy

    source = tmp_path_factory.mktemp("policy") / "budgets.yaml"
    source.write_text(POLICY)
    return compile_policy([source])


def writes(session) -> tuple[int, int]:
    [budget] = [b for b in session.budgets() if b.id == "two-writes"]
    return int(budget.spent), int(budget.reserved)


def test_budget_set_lowers_and_raises_the_spent_count_and_keeps_open_reservations(policy):
    session = Fence(policy, home="/home/user", cwd="/home/user/project").session("s")
    session.intent("Write summary.md")
    session.restore_budgets({"two-writes": 2})
    assert session.decide("write_file", WRITE).reason == "budget_exhausted"
    session.restore_budgets({"two-writes": 0})  # restore only raises
    assert writes(session) == (2, 0)
    session.set_budgets({"two-writes": 0})  # another process's call was released: lower
    held = session.decide("write_file", WRITE)
    assert held.kind == "allow" and writes(session) == (0, 1)
    session.set_budgets({"two-writes": 1})  # another process spent one: higher; the open reservation stays
    assert writes(session) == (1, 1) and session.decide("write_file", WRITE).reason == "budget_exhausted"
    assert session.commit(held.reservation) and writes(session) == (2, 0)


def test_store_units_hold_calls_and_sums_exactly():
    assert [to_units(v) for v in (1, 3, "120.5", "0.000001")] == [1_000_000, 3_000_000, 120_500_000, 1]
    assert [from_units(u) for u in (1_000_000, 0, 120_500_000, 1)] == [1, 0, "120.5", "0.000001"]


ALLOW = Decision("allow", "rule_allow", "write-named", "file.write", "write", "AgentsFence allowed write_file")


def long_decision(size: int) -> Decision:
    """A decision whose targets make one record of about `size` bytes: a command naming many long
    URLs (each cut to 512 characters, audit.MAX_VALUE_CHARS)."""
    urls = tuple(("url", f"https://example.com/{i}/" + "a" * 480) for i in range(size // 520))
    return Decision("block", "url_not_named", "net-named", "net.fetch", "network", "blocked", targets=urls)


@pytest.mark.parametrize("size", [91_000, 1_000_000])
@pytest.mark.parametrize("head", ["from the store", "read back from the file"])
def test_a_record_of_any_size_keeps_the_chain_across_a_restart(tmp_path: Path, size: int, head: str):
    path = tmp_path / "audit.jsonl"
    first = AuditLog(path)
    first.decision("s", "write_file", "c1", {}, ALLOW, 1.0)
    first.decision("s", "terminal", "c2", {"command": "curl ..."}, long_decision(size), 1.0)
    first.close()
    assert path.stat().st_size > size * 0.95
    if head == "read back from the file":
        (tmp_path / "state.db").unlink()  # no saved head: the last record is read whole from the file
    restarted = AuditLog(path)
    restarted.decision("s", "write_file", "c3", {}, ALLOW, 1.0)
    restarted.close()
    verdict = verify(path)
    assert verdict.ok and verdict.records == 3, verdict.problems
    assert [json.loads(line)["seq"] for line in path.read_text().splitlines()] == [1, 2, 3]
    assert agentsfence(["audit", "verify", str(path)]) == 0


def test_records_cut_off_the_end_of_the_log_are_named(tmp_path: Path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    for i in range(4):
        log.decision("s", "write_file", f"c{i}", {}, ALLOW, 1.0)
    log.close()
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]))  # the last two records removed: the chain alone still holds
    verdict = verify(path)
    assert not verdict.ok and "records 3-4 were cut off the end" in verdict.problems[0]


def test_a_store_of_another_schema_is_not_used(tmp_path: Path):
    store = SQLiteStore(tmp_path / "state.db")
    store.sessions()
    with sqlite3.connect(tmp_path / "state.db") as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreUnavailable, match="has schema '99'"):
        SQLiteStore(tmp_path / "state.db").sessions()


def test_items_are_appended_so_two_writers_of_one_session_lose_nothing(tmp_path: Path):
    one, two = SessionStore(tmp_path / "sessions"), SessionStore(tmp_path / "sessions")  # as two processes
    record = one.load("s") or SessionRecord("s")
    assert two.append("s", "message", "Email bob@example.com", "/w") > 0
    assert one.append("s", "message", "Email carol@example.com", "/w") > 0
    assert one.append("s", "grant", "rule-a") > 0 and two.append("s", "grant", "rule-a") == 0  # once
    assert len(one.refresh(record)) == 3  # both messages and the grant, whichever process saved them
    assert [m for m, _ in record.messages] == ["Email bob@example.com", "Email carol@example.com"]
    assert record.grants == ["rule-a"]
    loaded = two.load("s")
    assert loaded is not None and len(loaded.messages) == 2


def test_sessions_lists_and_resets(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    sessions = SessionStore(tmp_path / "sessions")
    sessions.save(SessionRecord("kept", [("Write summary.md", "/w")]))
    sessions.raise_spent("kept", {"two-writes": 1})
    sessions.save(SessionRecord("broken", [("Write notes.md", "/w")]))
    with sqlite3.connect(tmp_path / "state.db") as db:
        db.execute("UPDATE session_items SET kind = 'rumour' WHERE session_id = 'broken'")
    assert agentsfence(["sessions", "--state", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    assert "kept\t" in listed and "1 messages; spent two-writes 1" in listed
    assert "broken\t" in listed and "UNREADABLE" in listed and "2 sessions in" in listed
    assert agentsfence(["sessions", "--state", str(tmp_path), "reset", "broken"]) == 0
    assert "removed its 2 rows" in capsys.readouterr().out
    assert sessions.load("broken") is None and sessions.load("kept") is not None
    with sqlite3.connect(tmp_path / "state.db") as db:
        [(rows,)] = db.execute("SELECT rows FROM resets WHERE session_id = 'broken'").fetchall()
    assert "rumour" in rows  # what was removed is kept
    assert agentsfence(["sessions", "--state", str(tmp_path), "reset"]) == 2


def test_a_session_whose_save_is_stuck_on_the_disk_holds_up_no_other_session(tmp_path: Path, monkeypatch):
    """One session's write to the store waits (a slow disk); another session's decision, and its
    record, are made meanwhile: no lock all sessions share is held over a write."""
    import threading

    from agentsfence.hermes.plugin import HermesFence
    from agentsfence.settings import Settings

    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path))
    (tmp_path / "notes.txt").write_text("notes")
    sessions = SessionStore(tmp_path / "sessions")
    plugin = HermesFence(Fence(None, home=str(tmp_path), cwd=str(tmp_path)), Settings(), sessions,
                         AuditLog(tmp_path / "audit.jsonl"), lambda: None)
    plugin.pre_llm_call(session_id="b", task_id="tb", user_message="Summarize notes.txt")
    entered, release = threading.Event(), threading.Event()
    append = sessions.store.append

    def stuck(*args, **kwargs):
        entered.set()
        release.wait(60)
        return append(*args, **kwargs)

    monkeypatch.setattr(sessions.store, "append", stuck)
    writer = threading.Thread(target=plugin.pre_llm_call, kwargs={"session_id": "a", "task_id": "ta",
                                                                  "user_message": "Write summary.md"})
    writer.start()
    assert entered.wait(30)
    decided: list = []
    other = threading.Thread(target=lambda: decided.append(plugin.pre_tool_call(
        tool_name="read_file", args={"path": "notes.txt"}, task_id="tb", session_id="b", tool_call_id="c1")))
    other.start()
    other.join(30)  # a deadlock detector, not a speed measurement: it returns while a's write waits
    try:
        assert decided == [None] and writer.is_alive() and not release.is_set()
    finally:
        release.set()
        writer.join()
    assert [json.loads(line)["call"] for line in (tmp_path / "audit.jsonl").read_text().splitlines()
            if json.loads(line)["event"] == "decision"] == ["c1"]
