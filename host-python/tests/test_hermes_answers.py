"""Answers that last, and /fence verbs that say what they did, inside the REAL Hermes (test_hermes.py
holds the fixtures and helpers): an [a]lways at Hermes' own approval gate becomes a learned rule
that the next session uses; a /fence deny withdraws the grants made before it."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentsfence.cli import main
from agentsfence.rules import read_rules, rules_path
from . import test_hermes as th
from .test_hermes import (call, cli_prompt, fence_plugin, fresh_ids, hermes_home, manager, manager_home, slash,  # noqa: F401
                          user_turn)

REQUEST = "Set up the build folder"


@pytest.fixture
def no_sandbox(hermes_home: Path) -> Path:
    """Commands the fence would confine are asked about: the questions these tests answer."""
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\nagentsfence:\n  sandbox: 'off'\n"
                                             "security:\n  tirith_enabled: false\n")
    return hermes_home


def decisions() -> list[dict]:
    log = manager_home() / "agentsfence" / "audit.jsonl"
    return [r for r in map(json.loads, log.read_text().splitlines()) if r["event"] == "decision"]


def test_always_keeps_a_rule_the_next_session_uses_and_removing_it_asks_again(no_sandbox, manager, cli_prompt):
    from tools import approval

    answers, prompts = cli_prompt
    user_turn(REQUEST)
    answers.append("always")
    assert call("terminal", {"command": "touch made.txt"})["error"] is None and Path("made.txt").exists()
    [asked] = prompts
    assert asked.startswith("AgentsFence asks: terminal runs `touch made.txt` in ")
    assert "Why: the fence cannot tell everything running a program like this would do" in asked
    assert "Always: from now on, allow terminal running exactly `touch made.txt`" in asked
    assert "shell.exec" not in asked and "[" not in asked
    [rule] = read_rules(rules_path(no_sandbox / "agentsfence"))
    assert rule.tool == "terminal" and rule.when["args.command"] == ["touch made.txt"]
    # Hermes keeps no dead entry: the key named this session only.
    assert not any(key.startswith("plugin_rule:agentsfence:") for key in approval._permanent_approved)
    assert "plugin_rule:" not in (no_sandbox / "config.yaml").read_text()

    user_turn(REQUEST, session_id="next-session", task_id="next-task")  # the next turn takes the rule up
    assert call("terminal", {"command": "touch made.txt"}, session_id="next-session", task_id="next-task")["error"] is None
    assert len(prompts) == 1 and (decisions()[-1]["kind"], decisions()[-1]["rule"]) == ("allow", rule.id)
    answers.append("deny")  # another command is asked about
    assert call("terminal", {"command": "touch other.txt"}, session_id="next-session", task_id="next-task")["error"]
    assert len(prompts) == 2 and not Path("other.txt").exists()

    assert main(["rules", "--state", str(no_sandbox / "agentsfence"), "remove", rule.id]) == 0
    user_turn(REQUEST, session_id="third-session", task_id="third-task")
    answers.append("deny")
    assert call("terminal", {"command": "touch made.txt"}, session_id="third-session", task_id="third-task")["error"]
    assert len(prompts) == 3


def test_always_on_what_the_policy_itself_asks_about_holds_for_the_session_only(manager, cli_prompt):
    answers, prompts = cli_prompt
    user_turn()
    answers.append("always")
    assert "error" not in call("write_file", th.OTHER)  # a dot file: the policy's own rule asks
    assert "so no lasting rule can allow it" in prompts[0]
    assert not rules_path(manager_home() / "agentsfence").exists()


def test_a_session_deny_wins_over_an_earlier_session_grant(no_sandbox, manager, cli_prompt):
    answers, prompts = cli_prompt
    user_turn("Clean the build folder")
    Path("build").mkdir()
    old = Path("build/old.txt")
    old.write_text("x")
    answers.append("session")
    assert call("terminal", {"command": "rm build/old.txt"})["error"] is None and not old.exists()
    old.write_text("x")
    assert call("terminal", {"command": "rm build/old.txt"})["error"] is None and len(prompts) == 1  # the grant
    old.write_text("x")
    said = slash("deny delete anything")
    assert said.startswith('AgentsFence: this session now rules out what you said ("delete anything").')
    assert "1 approval given earlier in this session is withdrawn: it is asked again." in said
    assert "Approvals granted for this session: 0" in slash("")
    answers.append("deny")
    assert call("terminal", {"command": "rm build/old.txt"})["error"] and len(prompts) == 2 and old.exists()


def test_fence_words_it_does_not_read_change_nothing_and_it_says_so(manager):
    user_turn()
    before = slash("")
    assert slash("deny push").startswith('AgentsFence did not understand "push" as something to deny: this session\'s '
                                         "policy did not change.")
    assert slash("allow").startswith("AgentsFence did not understand `/fence allow`; nothing changed.")
    assert slash("forget everything").startswith("AgentsFence did not understand `/fence forget everything`")
    assert "Prohibited: nothing" in before and "Prohibited: nothing" in slash("")
    assert "no learned rules" in slash("rules")


def test_a_call_approved_again_and_again_is_suggested_by_the_report(no_sandbox, manager, cli_prompt, capsys):
    from agentsfence.rules import SUGGEST_AFTER

    answers, prompts = cli_prompt
    user_turn(REQUEST)
    answers += ["once"] * SUGGEST_AFTER
    for _ in range(SUGGEST_AFTER):
        assert call("terminal", {"command": "touch made.txt"})["error"] is None
    assert len(prompts) == SUGGEST_AFTER
    capsys.readouterr()
    assert main(["report", str(manager_home() / "agentsfence" / "audit.jsonl")]) == 0
    said = capsys.readouterr().out
    assert f"approved {SUGGEST_AFTER} times: terminal running exactly `touch made.txt`" in said
    [rule_id] = re.findall(r"agentsfence rules adopt (learned-[0-9a-f]{12})", said)
    assert main(["rules", "--state", str(no_sandbox / "agentsfence"), "adopt", rule_id]) == 0
    assert [r.id for r in read_rules(rules_path(no_sandbox / "agentsfence"))] == [rule_id]


def test_a_corrupt_rules_file_is_reported_and_never_overwritten(no_sandbox, monkeypatch, cli_prompt, capsys):
    import hermes_cli.plugins as hermes_plugins

    rules = rules_path(no_sandbox / "agentsfence")
    rules.parent.mkdir()
    rules.write_text("version: 1\nrules: [\n")
    fresh = hermes_plugins.PluginManager()
    monkeypatch.setattr(hermes_plugins, "_plugin_manager", fresh)
    fresh.discover_and_load()
    answers, prompts = cli_prompt
    user_turn(REQUEST)  # the start's notices, at the first turn
    assert "AgentsFence: your learned rules are not in force, their calls are asked about:" in capsys.readouterr().err
    answers.append("always")
    assert call("terminal", {"command": "touch made.txt"})["error"] is None
    assert "could not keep your answer as a rule, so it holds for this session only" in capsys.readouterr().err
    assert rules.read_text() == "version: 1\nrules: [\n"  # nothing lost
    import argparse

    command = fresh._cli_commands["fence"]
    parser = argparse.ArgumentParser(prog="hermes fence")
    command["setup_fn"](parser)
    assert command["handler_fn"](parser.parse_args(["status"])) == 0
    assert "learned rules: not in force (their calls are asked about): " in capsys.readouterr().out


def test_a_notice_goes_through_the_cli_agents_warning_line_else_to_stderr(capsys):
    from types import SimpleNamespace

    from agentsfence.hermes.notices import Notices

    shown: list[str] = []
    agent = SimpleNamespace(_emit_warning=shown.append, suppress_status_output=False)
    manager = SimpleNamespace(_cli_ref=SimpleNamespace(agent=agent))
    Notices(manager).show("AgentsFence blocked: terminal runs `x`:\n a reason")
    assert shown == ["AgentsFence blocked: terminal runs `x`: a reason"] and capsys.readouterr().err == ""
    agent.suppress_status_output = True  # a one-shot `hermes chat -q`: stdout is the answer's
    Notices(manager).show("one")
    Notices(SimpleNamespace(_cli_ref=None)).show("two")  # no CLI: a gateway, or before the CLI started
    Notices(None).show("three")  # no Hermes at all: logged only
    assert capsys.readouterr().err == "one\ntwo\n" and len(shown) == 1


def test_hermes_fence_says_how_to_fix_a_policy_the_evaluator_rejects(hermes_home, monkeypatch, capsys):
    import argparse

    import hermes_cli.plugins as hermes_plugins

    (hermes_home / "agentsfence").mkdir()
    (hermes_home / "agentsfence" / "policy.afb").write_bytes(b"AFBC" + b"\x00" * 60)
    fresh = hermes_plugins.PluginManager()
    monkeypatch.setattr(hermes_plugins, "_plugin_manager", fresh)
    fresh.discover_and_load()
    command = fresh._cli_commands["fence"]
    parser = argparse.ArgumentParser(prog="hermes fence")
    command["setup_fn"](parser)
    assert command["handler_fn"](parser.parse_args(["status"])) == 1
    said = capsys.readouterr().out
    assert said.startswith(f"policy: {hermes_home / 'agentsfence' / 'policy.afb'} cannot be used, so every tool call is blocked: ")
    assert "\nfix: compile it again" in said
