"""The same checks written by hand in Python: the floor a reader would write without an engine.

`classify` also turns a call into the facts the Cedar and OPA rows decide on (capability, risk,
paths, programs, addresses), so those rows pay Python's extraction plus their engine's call.
"""
from __future__ import annotations

import fnmatch
import os.path
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from workloads import CWD, HOME, rule_recipient

CREDENTIAL_DIRS = ("~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gcloud", "~/.azure", "~/.kube", "~/.docker/config.json",
                   "~/.netrc", "~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.config/gh", "~/.hermes/.env",
                   "~/.hermes/auth.json", "/etc/shadow", "/etc/sudoers")
PERSISTENCE_DIRS = ("~/.ssh", "~/.aws", "~/.gnupg", "~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.profile",
                    "~/.zshrc", "~/.zprofile", "~/.zshenv", "~/.config/autostart", "~/.config/systemd",
                    "~/.config/fish", "~/.gitconfig", "~/.hermes/config.yaml", "~/.hermes/.env", "~/.hermes/plugins",
                    "~/.hermes/hooks", "~/.hermes/agent-hooks", "~/.hermes/skills", "~/.hermes/agentsfence", "/etc",
                    "/usr", "/var/spool/cron")
READ_ONLY_PROGRAMS = frozenset("ls cat head tail wc grep rg pwd echo printf date whoami id uname which stat du df "
                               "diff tree file basename dirname realpath true false".split())
NETWORK_PROGRAMS = frozenset("curl wget nc ncat netcat socat ssh scp sftp rsync telnet ftp".split())
DEFAULTS = {"read": "allow", "internal": "allow", "write": "ask", "exec": "ask", "egress": "ask", "send": "ask"}
# tool -> (capability, risk, {argument: role})
TOOLS: dict[str, tuple[str, str, dict[str, str]]] = {
    "read_file": ("file.read", "read", {"path": "path"}),
    "write_file": ("file.write", "write", {"path": "path"}),
    "patch": ("file.write", "write", {"path": "path", "patch": "patch"}),
    "terminal": ("shell.exec", "exec", {"command": "command"}),
    "web_extract": ("net.fetch", "egress", {"urls": "url"}),
    "send_message": ("message.send", "send", {"target": "recipient"}),
}
MCP_SEND_ROLES = {"to": "email", "cc": "email", "bcc": "email", "recipient": "recipient"}
SEGMENT_SPLIT = re.compile(r"&&|\|\||[|;&\n]")
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
URL = re.compile(r"https?://([^/\s:]+)")
PATH_WORD = re.compile(r"(?:~?/)?[\w.-]+(?:/[\w.-]+)*\.(?:py|md|txt|json|yaml|toml|js|ts)\b|~?/[\w./-]+")


def absolute(path: str, home: str = HOME, cwd: str = CWD) -> str:
    if path.startswith("~/") or path == "~":
        path = home + path[1:]
    return os.path.normpath(os.path.join(cwd, path))


CREDENTIAL_ABS = tuple(absolute(p) for p in CREDENTIAL_DIRS)
PERSISTENCE_ABS = tuple(absolute(p) for p in PERSISTENCE_DIRS)


def ancestors(path: str) -> list[str]:
    """The path and every directory above it: set lookups instead of a scan of the list."""
    found = [path]
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return found
        found.append(parent)
        path = parent


def domain_suffixes(host: str) -> list[str]:
    labels = host.lower().split(".")
    return [".".join(labels[i:]) for i in range(len(labels) - 1)]


@dataclass
class Facts:
    capability: str
    risk: str
    paths: list[str] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    recipients: list[str] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)


def _values(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def classify(tool: str, args: dict[str, Any], tools: dict[str, tuple[str, str, dict[str, str]]] = TOOLS) -> Facts:
    if tool not in tools and tool.startswith("mcp__"):
        verb = tool.rsplit("__", 1)[-1]
        facts = Facts("message.send", "send") if verb.startswith("send_") else Facts("unknown", "unknown")
        roles = MCP_SEND_ROLES if verb.startswith("send_") else {}
    else:
        capability, risk, roles = tools.get(tool, ("unknown", "unknown", {}))
        facts = Facts(capability, risk)
    for name, role in roles.items():
        for value in _values(args.get(name)):
            if role == "path":
                facts.paths.append(absolute(value))
            elif role == "email":
                facts.emails.append(value.strip().lower())
            elif role == "recipient":
                facts.recipients.append(value.strip().lower())
            elif role == "url":
                facts.domains.extend(m.group(1).lower() for m in URL.finditer(value))
            elif role == "patch":
                facts.paths.extend(absolute(p.strip()) for p in PATCH_FILE.findall(value))
            elif role == "command":
                _read_command(value, facts)
    return facts


def _read_command(command: str, facts: Facts) -> None:
    for segment in SEGMENT_SPLIT.split(command):
        try:
            words = shlex.split(segment)
        except ValueError:
            words = segment.split()
        if not words:
            continue
        program = os.path.basename(words[0])
        facts.programs.append(program)
        for word in words[1:]:
            if word.startswith(("/", "~", "./", "../")):
                facts.paths.append(absolute(word))
            elif program in NETWORK_PROGRAMS:
                facts.domains.extend(m.group(1).lower() for m in URL.finditer(word))


@dataclass
class Intent:
    paths: set[str]
    emails: set[str]
    domains: set[str]


def bind_intent(message: str) -> Intent:
    emails = {e.lower() for e in EMAIL.findall(message)}
    text = EMAIL.sub(" ", message)
    return Intent(
        paths={absolute(p) for p in PATH_WORD.findall(text)},
        emails=emails,
        domains={m.group(1).lower() for m in URL.finditer(message)},
    )


def decide_default(tool: str, args: dict[str, Any], intent: Intent) -> str:
    """The default policy's rules that the benchmark's calls reach, strongest effect first."""
    facts = classify(tool, args)
    cap = facts.capability
    unnamed_paths = [p for p in facts.paths if p not in intent.paths]
    if cap == "file.write" and any(_under(p, PERSISTENCE_ABS) or fnmatch.fnmatch(p, "*/.git/hooks/*") for p in facts.paths):
        return "block"
    if cap in ("shell.exec", "code.exec") and any(d not in intent.domains for d in facts.domains):
        return "block"
    if cap == "message.send" and any(e not in intent.emails for e in facts.emails):
        return "block"
    if cap in ("file.read", "file.search", "shell.exec") and any(_under(p, CREDENTIAL_ABS) for p in unnamed_paths):
        return "ask"
    if cap in ("file.read", "shell.exec") and any(fnmatch.fnmatch(p, "*/.env") or fnmatch.fnmatch(p, "*/.env.*")
                                                 for p in unnamed_paths):
        return "ask"
    if cap == "shell.exec" and any(_under(p, PERSISTENCE_ABS) for p in facts.paths):
        return "ask"
    if cap == "message.send" and any(r not in intent.emails for r in facts.recipients):
        return "ask"
    if cap == "message.send" and (facts.emails or facts.recipients):
        return "allow"
    if cap == "file.write" and facts.paths and not unnamed_paths:
        return "allow"
    if cap == "shell.exec" and facts.programs and all(p in READ_ONLY_PROGRAMS for p in facts.programs):
        return "allow"
    return DEFAULTS.get(facts.risk, "ask")


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


class ScaledLists:
    """The scaled allow-lists as sets; domains and directories are looked up by suffix/ancestor."""

    def __init__(self, recipients: list[str], domains: list[str], directories: list[str]):
        self.recipients = frozenset(recipients)
        self.domains = frozenset(domains)
        self.directories = frozenset(directories)

    def decide(self, tool: str, args: dict[str, Any]) -> str:
        facts = classify(tool, args)
        if facts.capability == "message.send" and facts.recipients:
            return "allow" if all(r in self.recipients for r in facts.recipients) else "ask"
        if facts.capability == "net.fetch" and facts.domains:
            listed = all(any(s in self.domains for s in domain_suffixes(d)) for d in facts.domains)
            return "allow" if listed else "ask"
        if facts.capability == "file.write" and facts.paths:
            listed = all(any(a in self.directories for a in ancestors(p)) for p in facts.paths)
            return "allow" if listed else "ask"
        return "ask"


class ScaledRules:
    """One rule per MCP send tool, by hand: the tools in a table like TOOLS (both spellings of
    each name), and for each tool's capability the set of addresses its rule allows."""

    def __init__(self, n: int):
        self.tools: dict[str, tuple[str, str, dict[str, str]]] = {}
        self.allowed: dict[str, frozenset[str]] = {}
        for i in range(n):
            entry = (f"svc{i}.send", "send", {"to": "email"})
            self.tools[f"mcp__svc{i}__send"] = self.tools[f"mcp_svc{i}_send"] = entry
            self.allowed[entry[0]] = frozenset({rule_recipient(i)})

    def decide(self, tool: str, args: dict[str, Any]) -> str:
        facts = classify(tool, args, self.tools)
        allowed = self.allowed.get(facts.capability)
        return "allow" if allowed and facts.emails and all(e in allowed for e in facts.emails) else "ask"
