"""The plugin's commands inside the REAL Hermes (test_hermes.py holds the fixtures and the
helpers): /fence in a CLI session, `hermes fence` in the shell, and the gateway's senders."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import hermes_cli.plugins as hermes_plugins
from . import test_hermes as th
from .test_hermes import (EXFILTRATE, OTHER, REQUEST, SESSION, TASK, call, fence_plugin, fresh_ids, hermes_home,  # noqa: F401 (fixtures)
                          manager, saved_record, slash, user_turn)


@pytest.fixture(autouse=True)
def same_ids(fresh_ids: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """This test's session and task ids: the ones test_hermes drew for it, which its helpers use."""
    monkeypatch.setattr(sys.modules[__name__], "SESSION", th.SESSION)
    monkeypatch.setattr(sys.modules[__name__], "TASK", th.TASK)


def test_slash_fence_shows_the_session_and_lets_the_cli_user_widen_and_narrow_it(manager):
    user_turn("Summarize notes.txt into summary.md and email bob@example.com")
    call("terminal", {"command": EXFILTRATE})
    shown = slash("")
    assert f"session {SESSION}" in shown and "Task: Summarize notes.txt" in shown and "bob@example.com" in shown
    assert "AgentsFence blocked terminal" in shown and "Prohibited: nothing" in shown
    assert "Allowed" in slash("allow write .other.md") and "error" not in call("write_file", OTHER)
    assert "message.send" in slash("deny send anything")
    send = {"action": "send", "target": "bob@example.com", "message": "hi"}
    message = hermes_plugins.resolve_pre_tool_block("send_message", send, task_id=TASK, session_id=SESSION)
    assert message is not None and "rules out message.send" in message
    assert slash("widen everything").startswith("AgentsFence did not understand `/fence widen everything`; nothing changed")


def test_slash_fence_refuses_in_a_gateway_process(manager, monkeypatch):
    user_turn()
    monkeypatch.setenv("HERMES_GATEWAY_SESSION", "1")
    answer = slash("allow write .evil.md")
    assert answer.startswith("AgentsFence: /fence works only in the Hermes CLI")
    monkeypatch.delenv("HERMES_GATEWAY_SESSION")
    assert "error" in call("write_file", {"path": ".evil.md", "content": "x"}) and not Path(".evil.md").exists()


def hermes_fence(manager, *argv: str, capsys) -> str:
    """`hermes fence ...` as Hermes' main builds it from the plugin's register_cli_command."""
    import argparse

    command = manager._cli_commands["fence"]
    parser = argparse.ArgumentParser(prog="hermes fence")
    command["setup_fn"](parser)
    options = parser.parse_args(list(argv))
    assert command["handler_fn"](options) == 0
    return capsys.readouterr().out


def test_hermes_fence_status_and_explain(manager, capsys):
    user_turn()
    status = hermes_fence(manager, "status", capsys=capsys)
    assert "policy: hermes-defaults" in status and '"strict_yolo": true' in status and "saved sessions: 1" in status
    from agentsfence.sandbox import probe

    found = probe()
    assert ("sandbox: commands the fence cannot prove run confined" in status) == found.ok
    assert found.ok or f"sandbox: none: {found.why}" in status
    words = hermes_fence(manager, "explain", "terminal", json.dumps({"command": EXFILTRATE}), "--intent", REQUEST, capsys=capsys)
    assert "Decision: block [" in words and "it does not run, and the model is told why" in words
    assert "Policy: hermes-defaults (" in words and "attacker.example" in words
    explained = json.loads(hermes_fence(manager, "explain", "terminal", json.dumps({"command": EXFILTRATE}),
                                        "--intent", REQUEST, "--json", capsys=capsys))
    assert explained["decision"]["kind"] == "block" and "attacker.example" in explained["decision"]["message"]


def test_the_gateway_sender_is_recorded_on_the_session(manager, hermes_home):
    for sender in ("alice", "bob", "alice"):
        hermes_plugins.invoke_hook("pre_llm_call", session_id=SESSION, task_id=TASK, turn_id="t", user_message=REQUEST,
                                   conversation_history=[], is_first_turn=False, model="scripted", platform="telegram",
                                   sender_id=sender)
    assert saved_record(hermes_home, SESSION).senders == ["alice", "bob"]
    assert "Senders: alice, bob" in fence_plugin(manager).describe_session(SESSION)


def test_fence_shows_each_bound_value_and_what_a_follow_up_took_back(manager):
    user_turn("Write the summary to summary.md and notes.md")
    plugin = fence_plugin(manager)
    plugin.amend(SESSION, "only summary.md from now on")
    shown = plugin.describe_session(SESSION)
    assert "The request, as the fence reads it (role, mood, turn, clause):" in shown
    assert "summary.md (path): destination, a request, turn 1" in shown
    assert "notes.md (path): destination, a request, turn 1; taken back by turn 2" in shown
    assert "a follow-up took back: " in shown and "notes.md (turn 2)" in shown


def test_hermes_fence_runs_from_hermes_own_command_line(hermes_home):
    import subprocess

    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\n"
                                             "security: {allow_lazy_installs: false, tirith_enabled: false}\n")
    (hermes_home / ".update_check").write_text("")
    hermes = Path(sys.executable).parent / "hermes"
    ran = subprocess.run([str(hermes), "fence", "status"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert ran.returncode == 0 and "policy: hermes-defaults" in ran.stdout, ran.stderr[-2000:]
