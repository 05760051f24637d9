"""The words of a question at Hermes' approval gate, and of a notice when the fence blocks.

Hermes 0.19 shows a plugin's ask as a fixed label (`<terminal> (plugin approval rule)`) and the
plugin's message as its description (tools/approval.py, request_tool_approval), so the message
carries all a person needs to answer: the call itself (the command, the paths it writes, the
recipients, hosts and sums), what the fence could not establish about it, and what each answer
will allow. The decision is the evaluator's; this module only words it. Rule ids and capability
names stay out of it (the audit log and `explain` have them).
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..api import Decision
    from ..rules import LearnedRule

CALL_CHARS = 300  # of a command or another argument shown in a question
VALUES_SHOWN = 4
# How the risk classes of the shipped policy read in a sentence; a class a policy adds reads by its name.
RISK_WORDS = {"exec": "running a program", "egress": "reaching the network", "write": "changing files",
              "send": "sending a message", "read": "reading", "delete": "deleting", "pay": "paying",
              "publish": "publishing", "admin": "changing settings or accounts", "code": "running code"}
# What a call reaches, by the subject of its targets (docs/bytecode.md §5.1), as a verb.
TARGET_WORDS = (("write", "writes"), ("recipient", "sends to"), ("email", "addresses"), ("url", "opens"),
                ("domain", "reaches"), ("amount", "for"), ("object", "acts on"))
PROGRAM_TEXTS = ("command", "code", "expression")


def _shorten(text: str, limit: int = CALL_CHARS) -> str:
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _listed(values: list[str]) -> str:
    shown = ", ".join(values[:VALUES_SHOWN])
    return shown + (f" and {len(values) - VALUES_SHOWN} more" if len(values) > VALUES_SHOWN else "")


def call_words(tool_name: str, args: Any, decision: Decision, directory: str = "") -> str:
    """The call, as a person recognises it: `terminal runs `npm test` in /p`, `write_file writes
    /p/a.md`, `send_message sends to bob@x`. A tool-search batch is its calls, each worded alone."""
    from .bridge import BATCH_TOOL, batch_entries

    if tool_name == BATCH_TOOL:
        entries, _ = batch_entries(args)
        if entries:
            alone = replace(decision, targets=())  # the batch's targets are all its calls'
            return f"{tool_name} runs {len(entries)} call(s): " + "; ".join(
                call_words(name, arguments, alone, directory) for name, arguments in entries)
    arguments = args if isinstance(args, dict) else {}
    for name in PROGRAM_TEXTS:
        text = arguments.get(name)
        if isinstance(text, str) and text:
            where = f" in {directory}" if name == "command" and directory else ""
            return f"{tool_name} runs `{_shorten(text)}`{where}"
    by_subject: dict[str, list[str]] = {}
    for kind, value in decision.targets:
        subject = kind.split(":", 1)[0]
        if value not in by_subject.setdefault(subject, []):
            by_subject[subject].append(value)
    parts, shown = [], set(by_subject.get("write", ()))  # a written path is shown once, as written
    read = [p for p in by_subject.get("path", ()) if p not in shown]
    if read:
        parts.append(f"reads {_listed(read)}")
    for subject, verb in TARGET_WORDS:
        if subject == "domain" and by_subject.get("url"):
            continue  # the URLs shown name their hosts
        values = by_subject.get(subject, []) if subject == "write" else [v for v in by_subject.get(subject, ()) if v not in shown]
        shown.update(values)
        if values:
            parts.append(f"{verb} {_listed(values)}")
    if parts:
        return f"{tool_name} " + ", ".join(parts)
    if not arguments:
        return f"{tool_name} with no arguments"
    return f"{tool_name} with " + _shorten(", ".join(f"{key if isinstance(key, str) else _scalar(key)}={_scalar(value)}"
                                                     for key, value in arguments.items()))


def _scalar(value: Any) -> str:
    """An argument as a question shows it: text and numbers as they are, anything else by its
    type (what Hermes hands over can be any object, even one whose repr raises)."""
    if isinstance(value, str):
        return json.dumps(_shorten(value, 80), ensure_ascii=False)
    if isinstance(value, (bool, int, float)) or value is None:
        return json.dumps(value)
    return f"<{type(value).__name__}>"


def _sentence(tool_name: str, decision: Decision) -> str:
    """The evaluator's sentence of its message, without the lead ("AgentsFence asks about X: ")
    and the rule's tag (" [id]") that the record format puts around it (docs/bytecode.md §8.1)."""
    message = decision.message
    _, found, rest = message.partition(f" {tool_name}: ")
    sentence = rest if found else message
    if sentence.endswith("]") and " [" in sentence:
        sentence = sentence[:sentence.rindex(" [")]
    return sentence


def established(tool_name: str, decision: Decision) -> str:
    """What the fence could not establish about the call, in plain words."""
    risk = RISK_WORDS.get(decision.risk, "calls of this kind")
    if decision.reason.startswith("default_"):
        return f"nothing in your request or in the policy allows {risk} like this"
    if decision.reason == "sandbox_unavailable":
        return (f"the fence cannot tell everything {risk} like this would do, and no sandbox can run here "
                "to hold it in")
    if decision.reason == "intent_prohibited":
        return "your own words in this session rule out calls like this"
    if decision.reason == "intent_narrowed":
        return "your request, as the model read it, wants you asked before calls like this"
    return _sentence(tool_name, decision)


def question(tool_name: str, args: Any, decision: Decision, directory: str, rule: LearnedRule | None) -> str:
    """The description of an ask at Hermes' gate: the call, why it is asked, what answers allow."""
    if rule is not None:
        always = f"Always: from now on, allow {rule.describe()} (a rule you can list and remove with `agentsfence rules`)."
    else:
        why_not = ("the policy itself asks about this" if decision.rule else
                   "the fence cannot read all of this call" if decision.opaque or any(k == "opaque" for k, _ in decision.targets)
                   else "the call names nothing a rule could be kept to")
        always = f"Always: the same as session; {why_not}, so no lasting rule can allow it."
    return (f"AgentsFence asks: {call_words(tool_name, args, decision, directory)}. "
            f"Why: {established(tool_name, decision)}. "
            f"Once: this call only. Session: this same call until the session ends. {always}")


def block_notice(tool_name: str, args: Any, decision: Decision, directory: str = "") -> str:
    """One line for the person when the fence blocks a call."""
    return f"AgentsFence blocked: {call_words(tool_name, args, decision, directory)}: {established(tool_name, decision)}"
