"""What the fence does when its state cannot be used, through the real Hermes plugin manager in
this process: a row that cannot be read blocks its session until a person resets it (never a
fresh start), a store file that is not a database blocks every stateful call and is left as it
is, and PostgreSQL stopped mid-run blocks budgeted calls until it is back."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import hermes_cli.plugins as hermes_plugins
from agentsfence.cli import main as agentsfence
from conftest import make_home

SESSION, TASK = "session-1", "task-1"
SEND = "mcp__gmail__send_email"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = make_home(tmp_path, 3)
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return home


def load(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new gateway process, as far as the plugin can tell: a fresh manager loads a fresh fence."""
    manager = hermes_plugins.PluginManager()
    monkeypatch.setattr(hermes_plugins, "_plugin_manager", manager)
    manager.discover_and_load()


def turn(text: str = "Email bob@example.com the report") -> None:
    hermes_plugins.invoke_hook("pre_llm_call", session_id=SESSION, task_id=TASK, turn_id="t", user_message=text,
                               conversation_history=[], is_first_turn=True, model="scripted", platform="telegram",
                               sender_id="user-1")


def send(call_id: str) -> str | None:
    """The block message, or None when the send ran (and its outcome was reported)."""
    args = {"to": "bob@example.com", "subject": call_id}
    refused = hermes_plugins.resolve_pre_tool_block(SEND, args, task_id=TASK, session_id=SESSION, tool_call_id=call_id)
    if refused is None:
        hermes_plugins.invoke_hook("post_tool_call", tool_name=SEND, args=args, result="{}", task_id=TASK,
                                   session_id=SESSION, tool_call_id=call_id, status="ok", duration_ms=1)
    return refused


def read(call_id: str) -> str | None:
    return hermes_plugins.resolve_pre_tool_block("read_file", {"path": "notes.txt"}, task_id=TASK, session_id=SESSION,
                                                 tool_call_id=call_id)


# Each (table, column, bad value): a value the store's own writes never make.
GARBAGE = [
    ("sessions", "moved", "'yes'"),
    ("session_items", "kind", "'rumour'"),
    ("session_items", "value", "x'ff00'"),
    ("session_items", "directory", "x'2f'"),
    ("reservations", "budget_id", "x'00'"),
    ("budget_spent", "units", "'plenty'"),
    ("budget_spent", "units", "-5"),
    ("budget_spent", "budget_id", "x'00'"),
    ("reservations", "units", "1.5"),
]


@pytest.mark.parametrize(("table", "column", "value"), GARBAGE, ids=[f"{t}.{c}={v}" for t, c, v in GARBAGE])
def test_garbage_in_a_row_blocks_the_session_until_reset(home, monkeypatch, capsys, table, column, value):
    load(monkeypatch)
    turn()
    assert send("c1") is None
    if table == "reservations":  # an open reservation: a send decided, its process gone
        assert hermes_plugins.resolve_pre_tool_block(SEND, {"to": "bob@example.com"}, task_id=TASK, session_id=SESSION,
                                                     tool_call_id="c2") is None
    database = home / "agentsfence" / "state.db"
    with sqlite3.connect(database) as db:
        db.execute(f"UPDATE {table} SET {column} = {value}")
    for restart in range(2):  # the first restart does not make it a fresh session, nor does the second
        load(monkeypatch)
        refused = read(f"r{restart}")
        assert refused is not None and "saved state is unusable" in refused and "cannot be read" in refused
        assert f"agentsfence sessions reset {SESSION}" in refused
        assert send(f"s{restart}") is not None
    with sqlite3.connect(database) as db:  # the garbage is still there for a person to look at
        assert db.execute(f"SELECT count(*) FROM {table} WHERE session_id = ?", (SESSION,)).fetchone()[0] >= 1
    assert agentsfence(["sessions"]) == 0
    assert "UNREADABLE" in capsys.readouterr().out
    assert agentsfence(["sessions", "reset", SESSION]) == 0
    assert "kept as text in its resets table" in capsys.readouterr().out
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM resets WHERE session_id = ?", (SESSION,)).fetchone() == (1,)
    load(monkeypatch)
    turn()
    assert read("after-reset") is None  # a person reset it: it starts again


def test_a_store_file_that_is_not_a_database_blocks_and_is_left_as_it_is(home, monkeypatch):
    database = home / "agentsfence" / "state.db"
    database.write_bytes(b"these are not the bytes of a SQLite database" * 100)
    before = database.read_bytes()
    load(monkeypatch)
    turn()
    refused = read("r1")
    assert refused is not None and "state store" in refused and str(database) in refused
    assert send("s1") is not None
    assert database.read_bytes() == before


def test_a_json_record_from_before_the_store_is_moved_in_and_kept(home, monkeypatch):
    import hashlib
    import json

    sessions = home / "agentsfence" / "sessions"
    sessions.mkdir()
    name = hashlib.sha256(SESSION.encode()).hexdigest()[:32] + ".json"
    (sessions / name).write_text(json.dumps({"format": 1, "session_id": SESSION, "tasks": [TASK], "grants": [],
                                             "senders": [], "messages": [["Email bob@example.com the report", "/"]],
                                             "budgets": {"sends": 3}, "moved": False}))
    load(monkeypatch)
    refused = send("s1")  # no new turn: the migrated one names bob, and the budget is spent
    assert refused is not None and "budget sends" in refused
    assert read("r1") is None
    assert (sessions / "migrated" / name).exists() and not (sessions / name).exists()


def test_an_unreadable_json_record_blocks_its_session_until_reset(home, monkeypatch, capsys):
    import hashlib

    sessions = home / "agentsfence" / "sessions"
    sessions.mkdir()
    record = sessions / (hashlib.sha256(SESSION.encode()).hexdigest()[:32] + ".json")
    record.write_text('{"format": 1, "session_id": ')  # a short write on a full disk
    for restart in range(2):
        load(monkeypatch)
        turn()
        refused = read(f"r{restart}")
        assert refused is not None and "saved state is unusable" in refused and str(record) in refused
    assert record.read_text() == '{"format": 1, "session_id": '
    assert agentsfence(["sessions", "reset", SESSION]) == 0
    assert record.with_name(record.name + ".reset").exists()
    load(monkeypatch)
    turn()
    assert read("after-reset") is None


def test_a_fault_that_blocks_a_call_is_on_record(home, monkeypatch):
    import json

    load(monkeypatch)
    turn()
    (home / "agentsfence" / "state.db").unlink()
    (home / "agentsfence" / "state.db").mkdir()  # the store cannot be opened now
    load(monkeypatch)
    assert read("r1") is not None
    records = [json.loads(line) for line in (home / "agentsfence" / "audit.jsonl").read_text().splitlines()]
    [blocked] = [r for r in records if r.get("call") == "r1"]
    assert (blocked["kind"], blocked["reason"]) == ("block", "host_error") and "state store" in blocked["error"]
    assert "state store" in blocked["message"]  # the words the person and the model get, not an empty reason


def test_postgresql_stopped_mid_run_blocks_budgeted_calls_until_it_is_back(tmp_path, monkeypatch, postgres, database):
    home = make_home(tmp_path / "pg", 3, database)
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    load(monkeypatch)
    turn()
    assert send("before") is None
    postgres.stop()
    try:
        refused = send("while-down")
        assert refused is not None and "state store" in refused and "cannot be" in refused
        assert "***" not in refused or "@" in refused  # the URL is named, never a password
        assert read("read-while-down") is None  # a call no budget covers needs no store
    finally:
        postgres.start()
    assert send("after") is None  # resumed: the next call connects again
    assert send("third") is None
    refused = send("fourth")
    assert refused is not None and "budget sends" in refused  # the units spent before the outage still count
