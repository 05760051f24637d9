"""Learned rules: what a person answered "always" to, kept as allow rules the installed policy
includes ($HERMES_HOME/agentsfence/rules.yaml).

The file is a policy file (docs/policy.md) that holds allow rules only, each scoped to the call
that was asked about: its tool by exact name, and every value the fence read in it (its
programs, paths, hosts, recipients) listed exactly, so the rule holds for a call that reaches
nothing the person did not see; a command or a piece of code is also pinned word for word (the
fence's reading of a shell may leave out what a prefix assignment or an option does). A rule's
`message` says when it was made and from which question: it is what an allow by the rule says.

An allow rule beats the policy's default and a confinement, and loses to every block and ask
rule (docs/policy.md, rules): a learned rule never overrides what the policy itself rules on.
installed.py compiles the file ahead of the policy; a file that cannot be read, or that holds
anything else than such rules, is left out (its calls are asked again) and never rewritten, so
nothing in it is lost.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import yaml

FILE_NAME = "rules.yaml"
ID_PREFIX = "learned-"
REASON = "learned"
# The call's values a rule lists, by the subject the policy language tests them as. A URL is
# kept by its host ("this host"): its path and query are not the person's choice to pin.
SUBJECTS = ("program", "path", "write", "domain", "email", "recipient", "object")
# Arguments that are a program text: pinned word for word, whatever the fence read in them.
PROGRAM_TEXTS = ("command", "code", "expression")
MESSAGE_CHARS = 400
HEADER = """\
# AgentsFence: rules made from your answers. "Always" at a question adds one; each allows only
# the call that was asked about (its tool, and exactly the values listed under `when`).
# `agentsfence rules` lists them, `agentsfence rules show ID` explains one, and
# `agentsfence rules remove ID` removes one; a change takes effect at the next turn.
"""
_ID_RE = re.compile(r"^learned-[0-9a-f]{12}$")
_GLOB = re.compile(r"[*?\[\]]")


class RulesError(Exception):
    """The learned-rules file cannot be used as it is: the message says why and how to fix it."""


@dataclass(frozen=True)
class LearnedRule:
    id: str
    tool: str
    when: dict[str, list[str]]  # subject (or args.NAME) -> the exact values allowed
    message: str

    def as_policy(self) -> dict[str, Any]:
        return {"id": self.id, "effect": "allow", "tool": [self.tool], "reason": REASON, "message": self.message,
                "when": {subject: {"in": list(values)} for subject, values in self.when.items()}}

    def describe(self) -> str:
        """What the rule allows, in words: the program text it pins, else the values it lists."""
        for name in PROGRAM_TEXTS:
            if f"args.{name}" in self.when:
                return f"{self.tool} running exactly `{self.when[f'args.{name}'][0]}`"
        parts = [f"{subject}{'s' if len(values) > 1 else ''} {', '.join(values)}" for subject, values in self.when.items()
                 if not subject.startswith("args.")]
        return f"{self.tool} with only {'; '.join(parts)}"


def rules_path(state_dir: Path) -> Path:
    return Path(state_dir) / FILE_NAME


def read_rules(path: Path) -> list[LearnedRule]:
    """The rules in the file (none when it does not exist). RulesError when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        raise RulesError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from error
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise RulesError(f"{path} is not valid YAML ({error}); fix it, or move it aside to start with no learned rules") from error
    if document is None:
        return []
    if not isinstance(document, dict) or document.get("version") != 1 or set(document) - {"version", "rules"}:
        raise RulesError(f"{path} must hold `version: 1` and `rules:` only (learned allow rules); "
                         "move it aside to start with no learned rules")
    entries = document.get("rules") or []
    if not isinstance(entries, list):
        raise RulesError(f"{path}: `rules` must be a list")
    rules = [_checked(entry, index, path) for index, entry in enumerate(entries)]
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise RulesError(f"{path}: the id {rule.id} is used twice")
        seen.add(rule.id)
    return rules


def _checked(entry: Any, index: int, path: Path) -> LearnedRule:
    """One entry as a learned rule, or RulesError: an allow of one tool by its exact name, with
    at least one condition, each an exact list of values (never a blanket over a tool or class)."""
    where = f"{path}: rule {index + 1}"
    if not isinstance(entry, dict):
        raise RulesError(f"{where} is not a mapping")
    rule_id = entry.get("id")
    where = f"{path}: rule {rule_id!r}" if isinstance(rule_id, str) else where
    if set(entry) != {"id", "effect", "tool", "reason", "message", "when"}:
        raise RulesError(f"{where} must have exactly id, effect, tool, reason, message and when")
    if not isinstance(rule_id, str) or not _ID_RE.match(rule_id):
        raise RulesError(f"{where}: the id must be {ID_PREFIX} and 12 hex digits")
    if entry["effect"] != "allow" or entry["reason"] != REASON:
        raise RulesError(f"{where}: a learned rule is an allow with reason {REASON}")
    tool = entry["tool"]
    if not (isinstance(tool, list) and len(tool) == 1 and isinstance(tool[0], str) and tool[0] and not _GLOB.search(tool[0])):
        raise RulesError(f"{where}: `tool` must name one tool exactly (no pattern)")
    if not isinstance(entry["message"], str) or not entry["message"]:
        raise RulesError(f"{where}: `message` must be text")
    when = entry["when"]
    if not isinstance(when, dict) or not when:
        raise RulesError(f"{where}: `when` must hold at least one condition")
    values: dict[str, list[str]] = {}
    for subject, predicate in when.items():
        if not (isinstance(subject, str) and (subject in SUBJECTS or subject.startswith("args."))):
            raise RulesError(f"{where}: {subject!r} is not a subject a learned rule lists")
        listed = predicate.get("in") if isinstance(predicate, dict) and set(predicate) == {"in"} else None
        if not (isinstance(listed, list) and listed and all(isinstance(v, str) and v for v in listed)):
            raise RulesError(f"{where}: {subject} must be `{{in: [exact values]}}`")
        values[subject] = list(listed)
    return LearnedRule(rule_id, tool[0], values, entry["message"])


def rule_for(tool_name: str, args: Any, targets: Iterable[tuple[str, str]], question: str,
             made: datetime | None = None) -> LearnedRule | None:
    """The rule an "always" to this call makes: the tool, each value the fence read in the call
    (by subject), and a program text word for word. None when the call names nothing to scope a
    rule by (it would be a blanket over the tool)."""
    when: dict[str, list[str]] = {}
    for kind, value in targets:
        subject = kind.split(":", 1)[0]
        if subject in SUBJECTS and value not in when.setdefault(subject, []):
            when[subject].append(value)
        elif subject in ("opaque", "amount"):
            # What the fence could not read is never allowed, by a rule least of all; and a sum
            # is asked about each time (a rule listing its payee would allow any sum to them).
            return None
    when = {subject: sorted(values) for subject, values in when.items() if values}
    arguments = args if isinstance(args, dict) else {}
    for name in PROGRAM_TEXTS:
        if isinstance(arguments.get(name), str) and arguments[name]:
            when[f"args.{name}"] = [arguments[name]]
    if not when:
        return None
    material = "\n".join(f"{subject}\t{value}" for subject in sorted(when) for value in when[subject])
    rule_id = ID_PREFIX + hashlib.sha256(f"{tool_name}\n{material}".encode("utf-8", "surrogatepass")).hexdigest()[:12]
    stamp = (made or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    # Braces would be read as the message template's placeholders.
    words = question.replace("{", "(").replace("}", ")")
    message = f"you answered always on {stamp} to: {words}"
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS - 1] + "…"
    return LearnedRule(rule_id, tool_name, when, message)


def add_rule(path: Path, rule: LearnedRule) -> bool:
    """Adds the rule; False when the file already has one with its id. RulesError (and the file
    untouched) when the file cannot be used."""
    rules = read_rules(path)
    if any(r.id == rule.id for r in rules):
        return False
    _write(path, [*rules, rule])
    return True


def remove_rule(path: Path, rule_id: str) -> LearnedRule:
    rules = read_rules(path)
    found = [r for r in rules if r.id == rule_id]
    if not found:
        known = ", ".join(r.id for r in rules) or "none"
        raise RulesError(f"no learned rule {rule_id} in {path} (its rules: {known})")
    _write(path, [r for r in rules if r.id != rule_id])
    return found[0]


def _write(path: Path, rules: list[LearnedRule]) -> None:
    document = {"version": 1, "rules": [r.as_policy() for r in rules]}
    text = HEADER + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# ---- what a person approved again and again (agentsfence report) ----

SUGGEST_AFTER = 3  # approvals of the same call before the report suggests a rule


def suggestions(records: Iterable[dict[str, Any]], existing: Iterable[str] = ()) -> list[tuple[int, LearnedRule]]:
    """Rules for the calls a person approved at least SUGGEST_AFTER times (audit `approval`
    records that carry the call's `rule`), most approved first; none a learned rule has already."""
    counts: dict[str, tuple[int, LearnedRule]] = {}
    have = set(existing)
    for record in records:
        entry = record.get("learnable") if record.get("event") == "approval" and record.get("granted") else None
        if not isinstance(entry, dict):
            continue
        try:
            rule = _checked({**entry, "effect": "allow", "reason": REASON}, 0, Path("audit"))
        except RulesError:
            continue
        if rule.id in have:
            continue
        count, _ = counts.get(rule.id, (0, rule))
        counts[rule.id] = (count + 1, rule)
    return sorted((c for c in counts.values() if c[0] >= SUGGEST_AFTER), key=lambda c: (-c[0], c[1].id))


def suggestion_lines(records: Iterable[dict[str, Any] | None], state_dir: Path) -> str:
    """The report's lines on calls approved again and again (empty when there are none), from the
    audit log's records."""
    try:
        existing = [r.id for r in read_rules(rules_path(state_dir))]
    except RulesError:
        existing = []
    found = suggestions((r for r in records if r is not None), existing)
    lines = [f"  approved {count} times: {rule.describe()}\n    keep it: agentsfence rules adopt {rule.id}\n"
             for count, rule in found]
    return "\nRules to consider (a call you approved again and again):\n" + "".join(lines) if lines else ""
