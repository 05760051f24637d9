"""Learned rules (agentsfence/rules.py): what an "always" answer keeps, how the installed policy
includes it, and `agentsfence rules`."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentsfence.api import Fence
from agentsfence.cli import main
from agentsfence.installed import PolicyFiles
from agentsfence.rules import (SUGGEST_AFTER, LearnedRule, RulesError, add_rule, read_rules, remove_rule, rule_for,
                               rules_path, suggestions)

PROJECT = "/home/user/project"
MADE = datetime(2026, 12, 7, 17, 30, tzinfo=timezone.utc)


def decided(command: str, bytecode: bytes | None = None):
    session = Fence(bytecode, sandbox=False).session("s")
    session.intent("Run the tests", PROJECT)
    return session.decide("terminal", {"command": command}, PROJECT)


def learned_for(command: str) -> LearnedRule:
    decision = decided(command)
    rule = rule_for("terminal", {"command": command}, decision.targets, f"terminal runs `{command}`", MADE)
    assert rule is not None
    return rule


# ---- what a rule holds on ----

def test_a_rule_lists_every_value_the_fence_read_and_pins_the_command():
    rule = learned_for("npm test")
    assert rule.tool == "terminal"
    assert rule.when == {"program": ["npm"], "path": [f"{PROJECT}/test"], "args.command": ["npm test"]}
    assert rule.message == "you answered always on 2026-12-07 17:30 UTC to: terminal runs `npm test`"
    assert rule.id == learned_for("npm test").id != learned_for("npm run build").id  # the same call, the same rule


def test_a_host_is_kept_by_its_name_not_its_url():
    rule = rule_for("web_extract", {"urls": ["https://docs.example.com/a?q=1"]},
                    [("url", "https://docs.example.com/a?q=1"), ("domain", "docs.example.com")], "web_extract", MADE)
    assert rule is not None and rule.when == {"domain": ["docs.example.com"]}


def test_no_rule_for_what_the_fence_could_not_read_a_sum_or_a_call_that_names_nothing():
    opaque = decided("FOO=1 npm test")
    assert any(kind == "opaque" for kind, _ in opaque.targets)
    assert rule_for("terminal", {"command": "FOO=1 npm test"}, opaque.targets, "q", MADE) is None
    assert rule_for("todo", {}, (), "q", MADE) is None  # it would be a blanket over the tool
    # A sum: a rule listing the payee would allow any sum to them.
    assert rule_for("mcp__bank__pay", {"to": "bob@x.example", "amount": 20},
                    [("recipient", "bob@x.example"), ("amount", "20")], "q", MADE) is None


def test_braces_in_the_question_are_not_read_as_placeholders():
    rule = rule_for("terminal", {"command": "echo {value}"}, [("program", "echo")], "terminal runs `echo {value}`", MADE)
    assert rule is not None and "{" not in rule.message


# ---- the file ----

def test_add_read_and_remove(tmp_path: Path):
    path = rules_path(tmp_path)
    rule = learned_for("npm test")
    assert add_rule(path, rule) and not add_rule(path, rule)  # once
    assert read_rules(path) == [rule]
    assert path.read_text().startswith("# AgentsFence: rules made from your answers.")
    other = learned_for("make")
    add_rule(path, other)
    assert remove_rule(path, rule.id) == rule and read_rules(path) == [other]
    with pytest.raises(RulesError, match=f"no learned rule {rule.id}"):
        remove_rule(path, rule.id)


@pytest.mark.parametrize("text, why", [
    ("version: 1\nrules: [\n", "is not valid YAML"),
    ("- a list\n", "must hold `version: 1` and `rules:` only"),
    ("version: 1\ndefaults: {'*': allow}\nrules: []\n", "must hold `version: 1` and `rules:` only"),
    ("version: 1\nrules:\n  - {id: learned-000000000000, effect: allow, tool: ['*'], reason: learned, message: m,"
     " when: {program: {in: [npm]}}}\n", "must name one tool exactly"),
    ("version: 1\nrules:\n  - {id: learned-000000000000, effect: block, tool: [terminal], reason: learned, message: m,"
     " when: {program: {in: [npm]}}}\n", "is an allow"),
    ("version: 1\nrules:\n  - {id: learned-000000000000, effect: allow, tool: [terminal], reason: learned, message: m,"
     " when: {}}\n", "at least one condition"),
    ("version: 1\nrules:\n  - {id: learned-000000000000, effect: allow, tool: [terminal], reason: learned, message: m,"
     " when: {program: {glob: ['*']}}}\n", "must be `{in: [exact values]}`"),
    ("version: 1\nrules:\n  - {id: mine, effect: allow, tool: [terminal], reason: learned, message: m,"
     " when: {program: {in: [npm]}}}\n", "the id must be learned-"),
])
def test_a_file_that_is_not_learned_rules_is_an_error_and_is_left_as_it_is(tmp_path: Path, text: str, why: str):
    path = rules_path(tmp_path)
    path.write_text(text)
    with pytest.raises(RulesError, match=why.replace("[", r"\[").replace("{", r"\{").replace("`", "`")):
        read_rules(path)
    with pytest.raises(RulesError):
        add_rule(path, learned_for("npm test"))
    assert path.read_text() == text  # nothing lost


# ---- in the installed policy ----

def test_the_installed_policy_includes_the_rules_and_they_allow_only_the_call_asked_about(tmp_path: Path):
    files = PolicyFiles(tmp_path)
    assert decided("npm test", files.current().bytecode).kind == "ask"  # no sandbox: asked
    rule = learned_for("npm test")
    add_rule(rules_path(tmp_path), rule)
    assert files.changed()
    installed = files.current()
    assert installed.error is None and installed.origin.endswith(f"with the learned rules of {rules_path(tmp_path)}")
    allowed = decided("npm test", installed.bytecode)
    assert (allowed.kind, allowed.rule, allowed.reason) == ("allow", rule.id, "learned")
    assert "you answered always on 2026-12-07" in allowed.message
    # Nothing beyond the call: another script, a second command, a prefix assignment, a block rule's target.
    for other in ("npm run deploy", "npm test; npm publish", "NODE_OPTIONS=--require=x npm test", "npm test > ~/.bashrc"):
        assert decided(other, installed.bytecode).kind in ("ask", "block"), other
    assert Fence(installed.bytecode).policy_name == "hermes-defaults"  # still the shipped policy's name
    remove_rule(rules_path(tmp_path), rule.id)
    assert files.changed() and decided("npm test", files.current().bytecode).kind == "ask"


def test_a_corrupt_rules_file_leaves_the_policy_in_force_and_says_why(tmp_path: Path):
    rules_path(tmp_path).write_text("version: 1\nrules: [\n")
    installed = PolicyFiles(tmp_path).current()
    assert installed.error is None and installed.origin == "the shipped default"
    assert installed.learned_error is not None and "is not valid YAML" in installed.learned_error


def test_a_policy_yaml_takes_the_rules_too(tmp_path: Path):
    (tmp_path / "policy.yaml").write_text("version: 1\nname: mine\nextends: [defaults]\n")
    add_rule(rules_path(tmp_path), learned_for("npm test"))
    installed = PolicyFiles(tmp_path).current()
    assert Fence(installed.bytecode).policy_name == "mine" and decided("npm test", installed.bytecode).kind == "allow"


# ---- agentsfence rules, and the report's suggestions ----

def test_the_rules_command_lists_shows_and_removes(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["rules", "--state", str(tmp_path)]) == 0 and "no learned rules" in capsys.readouterr().out
    rule = learned_for("npm test")
    add_rule(rules_path(tmp_path), rule)
    assert main(["rules", "--state", str(tmp_path), "list"]) == 0
    listed = capsys.readouterr().out
    assert rule.id in listed and "terminal running exactly `npm test`" in listed
    assert main(["rules", "--state", str(tmp_path), "show", rule.id]) == 0
    shown = capsys.readouterr().out
    assert "made: you answered always on 2026-12-07 17:30 UTC to: terminal runs `npm test`" in shown
    assert main(["rules", "--state", str(tmp_path), "remove", rule.id]) == 0 and read_rules(rules_path(tmp_path)) == []
    assert main(["rules", "--state", str(tmp_path), "remove", rule.id]) == 1
    assert f"no learned rule {rule.id}" in capsys.readouterr().err


def approval(rule: LearnedRule) -> dict:
    policy = rule.as_policy()
    return {"event": "approval", "choice": "approved", "granted": "once",
            "learnable": {k: v for k, v in policy.items() if k not in ("effect", "reason")}}


def test_a_call_approved_again_and_again_is_suggested_and_can_be_adopted(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    rule = learned_for("npm test")
    records = [approval(rule)] * SUGGEST_AFTER + [approval(learned_for("make"))] * (SUGGEST_AFTER - 1)
    assert [(n, r.id) for n, r in suggestions(records)] == [(SUGGEST_AFTER, rule.id)]
    assert suggestions(records, existing=[rule.id]) == []
    audit = tmp_path / "audit.jsonl"
    audit.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["report", str(audit)]) == 0
    said = capsys.readouterr().out
    assert f"approved {SUGGEST_AFTER} times: terminal running exactly `npm test`" in said
    assert f"keep it: agentsfence rules adopt {rule.id}" in said and learned_for("make").id not in said
    assert main(["rules", "--state", str(tmp_path), "adopt", rule.id]) == 0
    assert [r.id for r in read_rules(rules_path(tmp_path))] == [rule.id]
    assert main(["rules", "--state", str(tmp_path), "adopt", learned_for("make").id]) == 1


def test_the_sessions_own_deny_outvotes_a_learned_rule(tmp_path: Path):
    add_rule(rules_path(tmp_path), learned_for("npm test"))
    session = Fence(PolicyFiles(tmp_path).current().bytecode, sandbox=False).session("s")
    session.intent("Run the tests", PROJECT)
    assert session.decide("terminal", {"command": "npm test"}, PROJECT).kind == "allow"
    session.intent("do not run anything", PROJECT)  # as /fence deny run anything says it
    assert session.decide("terminal", {"command": "npm test"}, PROJECT).reason == "intent_prohibited"
