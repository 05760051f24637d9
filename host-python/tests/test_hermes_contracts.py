"""Hook contracts inside the REAL Hermes (hermes-agent==0.19.0) that test_hermes.py does not
cover: call budgets across pre_tool_call, the approval gate and post_tool_call; approvals keyed
on the witness; and the Hermes 0.19 facts the plugin's header relies on, read in its source.
The fixtures and helpers are test_hermes.py's."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import hermes_cli.plugins as hermes_plugins
from agentsfence.compiler import compile_policy

from . import test_hermes as th
from .test_hermes import cli_prompt, fresh_ids, hermes_home, manager, yolo  # noqa: F401 (fixtures)

BUDGETS = """version: 1
name: budgets
extends: [defaults]
budgets:
  - {id: one-write, capability: [file.write], limit: 1}
"""
SUMMARY = {"path": "summary.md", "content": "# Summary"}


@pytest.fixture
def budgeted(hermes_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> hermes_plugins.PluginManager:
    """The fence with a policy that allows one write per session, installed as an operator would."""
    source = tmp_path / "budgets.yaml"
    source.write_text(BUDGETS)
    (hermes_home / "agentsfence").mkdir(exist_ok=True)
    compile_policy([source], hermes_home / "agentsfence" / "policy.afb")
    return th.load(monkeypatch)


def counters(manager) -> list[tuple[str, int, int]]:
    """The session's budgets of calls (the shipped policy's budget of sums is not this policy's)."""
    return [(b.id, int(b.spent), int(b.reserved)) for b in th.fence_plugin(manager).fence.session(th.SESSION).budgets()
            if not b.sums]


# ---- 6. call budgets ----

def test_a_call_that_ran_spends_the_budget_and_the_next_is_blocked_with_a_reason(budgeted):
    th.user_turn()
    assert "error" not in th.call("write_file", SUMMARY) and counters(budgeted) == [("one-write", 1, 0)]
    blocked = th.call("write_file", SUMMARY)
    assert blocked["error"].startswith("AgentsFence blocked write_file: the policy's budget one-write allows 1 call")
    assert "[one-write]" in blocked["error"] and counters(budgeted) == [("one-write", 1, 0)]


def test_an_ask_the_gate_refuses_gives_its_unit_back(budgeted, monkeypatch):
    monkeypatch.delenv("HERMES_INTERACTIVE", raising=False)  # nobody to ask: Hermes refuses, post_tool_call says blocked
    th.user_turn()
    assert "error" in th.call("write_file", th.OTHER) and not Path(".other.md").exists()
    assert counters(budgeted) == [("one-write", 0, 0)]
    assert "error" not in th.call("write_file", SUMMARY) and counters(budgeted) == [("one-write", 1, 0)]


def test_an_ask_strict_yolo_refuses_gives_its_unit_back(budgeted, yolo):
    th.user_turn()
    assert "strict_yolo" in th.call("write_file", th.OTHER)["error"]
    assert counters(budgeted) == [("one-write", 0, 0)]


def test_a_call_whose_post_tool_call_never_comes_is_released_at_the_end_of_its_turn(budgeted):
    th.user_turn()
    # pre_tool_call through Hermes' resolver, then the tool raises: no post_tool_call fires.
    assert hermes_plugins.resolve_pre_tool_block("write_file", SUMMARY, task_id=th.TASK, session_id=th.SESSION,
                                                 tool_call_id="call-1") is None
    assert counters(budgeted) == [("one-write", 0, 1)]
    hermes_plugins.invoke_hook("on_session_end", session_id=th.SESSION, task_id=th.TASK, turn_id="turn-1",
                               completed=False, interrupted=True, model="scripted", platform="cli")
    assert counters(budgeted) == [("one-write", 0, 0)]


def test_a_cancelled_or_timed_out_call_is_released_and_an_unknown_status_spends(budgeted):
    plugin = th.fence_plugin(budgeted)
    th.user_turn()
    for status, expected in (("cancelled", 0), ("timeout", 0), ("ok", 1)):
        assert hermes_plugins.resolve_pre_tool_block("write_file", SUMMARY, task_id=th.TASK, session_id=th.SESSION,
                                                     tool_call_id=f"call-{status}") is None
        plugin.post_tool_call(tool_name="write_file", args=SUMMARY, task_id=th.TASK, session_id=th.SESSION,
                              tool_call_id=f"call-{status}", status=status)
        assert counters(budgeted) == [("one-write", expected, 0)]


def test_a_subagents_calls_count_against_its_parents_budget(budgeted):
    th.user_turn()
    th.start_subagent("child-b", "sa-b", "write summary.md")
    assert "error" not in th.call("write_file", SUMMARY, session_id="child-b", task_id="child-task")
    assert "budget one-write" in th.call("write_file", SUMMARY)["error"]


def test_slash_fence_shows_the_remaining_budgets(budgeted):
    th.user_turn()
    th.call("write_file", SUMMARY)
    shown = th.slash("")
    assert "one-write: 0 of 1 left (1 made, 0 under way)" in shown
    assert "money-per-session: 1000 of 1000 left (0 spent, 0 under way)" in shown  # the shipped budget of sums


def test_a_shutdown_keeps_the_spent_units_for_resume_and_new_session_drops_them(budgeted, hermes_home, monkeypatch):
    th.user_turn()
    th.call("write_file", SUMMARY)
    hermes_plugins.invoke_hook("on_session_finalize", session_id=th.SESSION, platform="cli", reason="shutdown")
    assert th.saved_record(hermes_home, th.SESSION).budgets == {"one-write": 1}
    resumed = th.load(monkeypatch)  # `hermes --resume`: a new process
    assert "budget one-write" in th.call("write_file", SUMMARY)["error"]
    assert counters(resumed) == [("one-write", 1, 0)]
    hermes_plugins.invoke_hook("on_session_finalize", session_id=th.SESSION, platform="cli", reason="new_session")
    assert th.saved_sessions(hermes_home) == []


def test_a_saved_budget_count_that_is_not_a_number_blocks_the_session(budgeted, hermes_home, monkeypatch):
    th.user_turn()
    th.call("write_file", SUMMARY)
    import sqlite3

    with sqlite3.connect(hermes_home / "agentsfence" / "state.db") as db:
        db.execute("UPDATE budget_spent SET units = 'none'")
    th.load(monkeypatch)
    result = th.call("write_file", SUMMARY)
    assert "saved state is unusable" in result["error"] and "budget count" in result["error"]
    with sqlite3.connect(hermes_home / "agentsfence" / "state.db") as db:
        assert db.execute("SELECT units FROM budget_spent").fetchall() == [("none",)]  # kept for a person to see


# ---- 2. approvals keyed on the witness, through Hermes' own gate ----

MESSAGE_REQUEST = "Email the meeting notes to the people they list"


def send(to: str, session_id: str | None = None) -> dict:
    """send_message as the model calls it (0.19 registers no send_message tool: the gate still runs,
    then the registry answers 'Unknown tool', so post_tool_call reports an error: the call ran)."""
    return th.call("send_message", {"action": "send", "target": to, "message": "the notes"}, session_id=session_id)


def test_a_session_answer_for_one_recipient_never_approves_another(manager, cli_prompt):
    answers, prompts = cli_prompt
    th.user_turn(MESSAGE_REQUEST)
    answers += ["session", "deny"]
    assert "AgentsFence" not in send("eve@example.org").get("error", "") and len(prompts) == 1
    assert "eve@example.org" in prompts[0]
    assert "AgentsFence" not in send("eve@example.org").get("error", "") and len(prompts) == 1  # granted for eve
    refused = send("mallory@example.org")
    assert len(prompts) == 2 and "mallory@example.org" in prompts[1] and "denied" in refused["error"]
    th.user_turn(MESSAGE_REQUEST, session_id="other-session", task_id="other-task")
    other = th.fence_plugin(manager).pre_tool_call(tool_name="send_message", args={"action": "send", "target": "eve@example.org"},
                                                   task_id="other-task", session_id="other-session")
    assert other is not None and other["action"] == "approve"  # no other session inherits eve


def test_the_rule_key_names_the_witness_not_the_message_body(manager):
    th.user_turn(MESSAGE_REQUEST)
    plugin = th.fence_plugin(manager)

    def key(to: str, body: str) -> str:
        return plugin.pre_tool_call(tool_name="send_message", args={"action": "send", "target": to, "message": body},
                                    task_id=th.TASK, session_id=th.SESSION)["rule_key"]

    assert key("eve@example.org", "one body") == key("eve@example.org", "another body")
    assert key("eve@example.org", "one body") != key("mallory@example.org", "one body")
    assert key("eve@example.org", "x").startswith(f"agentsfence:{th.SESSION}:send_message:message.send:w")


# ---- Hermes 0.19 facts, on its own code paths ----

def test_the_cli_new_command_finalizes_with_session_boundary_and_resets_with_the_new_id(manager, hermes_home):
    """cli.HermesCLI._notify_session_boundary is what /new calls: on_session_finalize with the old
    id and reason session_boundary, then (after rotating) on_session_reset with the NEW id."""
    from cli import HermesCLI

    th.user_turn()
    assert len(th.saved_sessions(hermes_home)) == 1
    HermesCLI._notify_session_boundary(SimpleNamespace(agent=SimpleNamespace(session_id=th.SESSION), platform="cli"),
                                       "on_session_finalize")
    assert th.saved_sessions(hermes_home) == []
    HermesCLI._notify_session_boundary(SimpleNamespace(agent=SimpleNamespace(session_id="new-one"), platform="cli"),
                                       "on_session_reset")
    th.user_turn(session_id="new-one", task_id="new-task")
    assert th.call("write_file", SUMMARY, session_id="new-one", task_id="new-task").get("error") is None


def test_arguments_that_are_not_an_object_reach_the_fence_as_an_empty_one(manager):
    """Hermes' dispatcher hands pre_tool_call {} for non-dict arguments (hermes_cli/plugins.py):
    the fence decides that empty call, and a write with no path is not the user's write."""
    th.user_turn()
    seen: list = []
    plugin = th.fence_plugin(manager)
    original = plugin._decide

    def spy(tool_name, args, task_id, session_id):
        seen.append(args)
        return original(tool_name, args, task_id, session_id)

    plugin._decide = spy  # type: ignore[method-assign]
    message = hermes_plugins.resolve_pre_tool_block("write_file", "summary.md", task_id=th.TASK, session_id=th.SESSION)
    assert seen == [{}] and message is not None


def test_a_multimodal_user_message_binds_its_text_parts(manager):
    th.user_turn([{"type": "text", "text": "Summarize notes.txt into"}, {"type": "image_url", "image_url": {"url": "x"}},
                  {"type": "text", "text": "summary.md"}])
    assert th.call("write_file", SUMMARY).get("error") is None
    assert "error" in th.call("write_file", th.OTHER)


def test_hermes_0_19_has_no_modify_directive_so_only_in_place_changes_are_seen(manager):
    """A newer Hermes accepts {"action": "modify"}; 0.19's resolver knows block and approve only, so
    a modify from another plugin is no directive, and post_tool_call compares what ran."""
    import inspect

    source = inspect.getsource(hermes_plugins._get_pre_tool_call_directive_details)
    assert '"block"' in source and '"approve"' in source and "modify" not in source


def test_the_strict_guard_takes_a_second_look_without_spending_a_unit(hermes_home, monkeypatch, tmp_path, yolo):
    source = tmp_path / "budgets.yaml"
    source.write_text(BUDGETS)
    (hermes_home / "agentsfence").mkdir(exist_ok=True)
    compile_policy([source], hermes_home / "agentsfence" / "policy.afb")
    th.with_approver(hermes_home, "agentsfence:\n  plugin_conflicts: strict\n")
    manager = th.load(monkeypatch)
    th.user_turn()
    # The fence's own hook stays itself, first, and unguarded (a bound method is a new object at
    # every access: compared by identity, it was taken for another plugin's and wrapped).
    assert th.fence_plugin(manager) is not None and not hasattr(manager._hooks["pre_tool_call"][0], "agentsfence_guarded")
    # The fence allows (one unit reserved); the guard around the approver needs the same decision.
    assert hermes_plugins.resolve_pre_tool_block("write_file", SUMMARY, task_id=th.TASK, session_id=th.SESSION,
                                                 tool_call_id="call-1") is None
    assert counters(manager) == [("one-write", 0, 1)]
    # Either order: with the approver ahead of the fence, the guard decides first and the fence reuses it.
    hooks = manager._hooks["pre_tool_call"]
    hooks.insert(0, hooks.pop())
    message = hermes_plugins.resolve_pre_tool_block("write_file", SUMMARY, task_id=th.TASK, session_id=th.SESSION,
                                                    tool_call_id="call-2")
    assert message is not None and "another plugin approved a call the fence blocks" in message
    assert counters(manager) == [("one-write", 0, 1)]


# ---- a budget of sums, through Hermes' own tool dispatch ----

PAYMENTS = """version: 1
name: payments
extends: [defaults]
budgets:
  - {id: euros, capability: ["money.*"], amount: "300 EUR"}
"""
TRANSFER = "mcp__bank__transfer_funds"


@pytest.fixture
def payments(hermes_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> hermes_plugins.PluginManager:
    """A payments MCP tool in Hermes' registry, as an MCP server publishes it, and a policy that
    caps a session's payments at 300 EUR."""
    from tools.registry import registry

    source = tmp_path / "payments.yaml"
    source.write_text(PAYMENTS)
    (hermes_home / "agentsfence").mkdir(exist_ok=True)
    compile_policy([source], hermes_home / "agentsfence" / "policy.afb")
    paid: list[dict] = []
    schema = {"name": TRANSFER, "description": "Transfers money from the user's account.",
              "parameters": {"type": "object", "required": ["iban", "amount", "currency"], "properties": {
                  "iban": {"type": "string", "description": "IBAN of the payee"},
                  "amount": {"type": "number", "description": "The amount to transfer"},
                  "currency": {"type": "string"}}}}
    registry.register(TRANSFER, "mcp-bank", schema, lambda args, **kw: paid.append(args) or json.dumps({"ok": True}))
    manager = th.load(monkeypatch)
    manager.paid = paid  # type: ignore[attr-defined]
    yield manager
    registry.deregister(TRANSFER)


def sums(manager) -> list[tuple[str, object, object]]:
    return [(b.id, b.spent, b.reserved) for b in th.fence_plugin(manager).fence.session(th.SESSION).budgets() if b.sums]


def test_a_payment_spends_its_sum_and_one_past_the_cap_is_blocked(payments):
    from decimal import Decimal

    th.user_turn("Transfer €200 to DE89 3704 0044 0532 0130 00 for the rent, and €150 for the deposit")
    ran = th.call(TRANSFER, {"iban": "DE89370400440532013000", "amount": 200, "currency": "EUR"})
    assert "error" not in ran and payments.paid == [{"iban": "DE89370400440532013000", "amount": 200, "currency": "EUR"}]
    assert sums(payments) == [("money-per-session", Decimal(200), Decimal(0)), ("euros", Decimal(200), Decimal(0))]
    over = th.call(TRANSFER, {"iban": "DE89370400440532013000", "amount": 150, "currency": "EUR"})
    assert "budget euros caps the sums of money.move (destructive) at 300 EUR" in over["error"]
    assert len(payments.paid) == 1 and sums(payments)[1] == ("euros", Decimal(200), Decimal(0))


def test_a_payment_to_an_account_the_user_never_named_does_not_run(payments):
    th.user_turn("Transfer €200 to DE89 3704 0044 0532 0130 00 for the rent")
    refused = th.call(TRANSFER, {"iban": "GB82WEST12345698765432", "amount": 200, "currency": "EUR"})
    assert "it acts on gb82west12345698765432, which your request did not name" in refused["error"]
    assert payments.paid == [] and sums(payments)[1][1:] == (0, 0)  # refused at the gate: its sum is given back
