"""Budgets per user and per team, and with a period (docs/policy.md, budgets): counted across
sessions in the store, through the real Hermes plugin manager; and a team's across gateway
processes on PostgreSQL."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

import hermes_cli.plugins as hermes_plugins
from agentsfence.cli import main as agentsfence
from conftest import make_home
from gateways import result, sent, start

SEND = "mcp__gmail__send_email"
SCOPED = """  - {id: user-sends, capability: ["email.*", message.send], limit: 2, per: user}
  - {id: team-sends, capability: ["email.*", message.send], limit: 3, per: team, period: day}
"""


def load(monkeypatch: pytest.MonkeyPatch):
    manager = hermes_plugins.PluginManager()
    monkeypatch.setattr(hermes_plugins, "_plugin_manager", manager)
    manager.discover_and_load()
    return manager._hooks["pre_tool_call"][0].__self__  # the fence's plugin


def turn(session: str, user: str) -> None:
    hermes_plugins.invoke_hook("pre_llm_call", session_id=session, task_id=f"task-{session}", turn_id="t",
                               user_message="Email bob@example.com the report", conversation_history=[],
                               is_first_turn=True, model="scripted", platform="telegram", sender_id=user)


def send(session: str, call_id: str) -> str:
    """The budget that refused the send, "" when it ran."""
    args = {"to": "bob@example.com", "subject": call_id}
    refused = hermes_plugins.resolve_pre_tool_block(SEND, args, task_id=f"task-{session}", session_id=session,
                                                    tool_call_id=call_id)
    if refused is None:
        hermes_plugins.invoke_hook("post_tool_call", tool_name=SEND, args=args, result="{}", task_id=f"task-{session}",
                                   session_id=session, tool_call_id=call_id, status="ok", duration_ms=1)
        return ""
    assert "budget" in refused, refused
    return refused.rsplit("[", 1)[1].rstrip("]")


def test_a_users_budget_spans_their_sessions_and_a_teams_restarts_each_day(tmp_path, monkeypatch, capsys):
    home = make_home(tmp_path, 100, budgets=SCOPED)
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    load(monkeypatch)
    turn("a", "alice")
    assert [send("a", "a1"), send("a", "a2"), send("a", "a3")] == ["", "", "user-sends"]
    turn("b", "alice")  # alice's other session: her two sends are spent
    assert send("b", "b1") == "user-sends"
    turn("c", "carol")
    assert [send("c", "c1"), send("c", "c2")] == ["", "team-sends"]  # the team's three a day
    plugin = load(monkeypatch)  # a restart keeps every count
    turn("d", "alice")
    assert send("d", "d1") == "user-sends"
    turn("e", "dave")
    assert send("e", "e1") == "team-sends"
    plugin.ledger._clock = lambda: time.time() + 86400  # the next UTC day: the team's count starts again
    assert [send("e", "e2"), send("e", "e3")] == ["", ""]
    assert send("e", "e4") == "user-sends"  # dave's own two (a budget per user has no period here)
    assert agentsfence(["sessions"]) == 0
    listed = capsys.readouterr().out
    assert "@user alice\tspent user-sends 2" in listed and "@user dave\tspent user-sends 2" in listed
    assert f"@team @day {time.strftime('%Y-%m-%d', time.gmtime())}\tspent team-sends 3" in listed


def test_a_teams_budget_holds_across_gateways_of_different_users_on_postgresql(tmp_path, database):
    team = '  - {id: team-sends, capability: ["email.*", message.send], limit: 4, per: team}\n'
    home = make_home(tmp_path, 100, database, team)
    sends = tmp_path / "sends.log"
    workers = [start(home, f"session-{i}", 3, sends) for i in range(4)]  # four sessions, three sends each
    reports = [result(worker)[1] for worker in workers]
    assert sum(r["sent"] for r in reports) == 4 == len(sent(sends))
    assert sum(r["blocked"].get("team-sends", 0) for r in reports) == 8
