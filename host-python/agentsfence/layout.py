"""The fence's state folder, and every path into it.

The Hermes plugin, Hermes' shell hooks and the CLI's defaults use `$HERMES_HOME/agentsfence`
(HERMES_HOME as Hermes resolves it: hermes/homes.py); Claude Code's shell hooks use
`~/.claude/agentsfence`. Inside it:

    policy.yaml   the operator's policy, compiled in this process (installed.py)
    policy.afb    a policy compiled by hand, used when there is no policy.yaml
    rules.yaml    the rules "always" answers made, compiled ahead of the policy (rules.py)
    compiled/     policy.yaml's compilation, cached by the content of its sources (installed.py)
    policy.last   the hash of the policy the last start or reload put in place (hermes/policy.py)
    audit.jsonl   the hash-chained audit log, rotated into audit.jsonl.<n> (audit.py)
    sessions/     a record per top-level session, so a resumed one is fenced as before (state.py)
    subagents/    which session each subagent belongs to, for the shell hooks (hooks.py)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .hermes.homes import hermes_home

FOLDER = "agentsfence"


@dataclass(frozen=True)
class StateFolder:
    path: Path

    @property
    def policy_yaml(self) -> Path:
        return self.path / "policy.yaml"

    @property
    def policy_afb(self) -> Path:
        return self.path / "policy.afb"

    @property
    def compiled(self) -> Path:
        return self.path / "compiled"

    @property
    def last_policy(self) -> Path:
        return self.path / "policy.last"

    @property
    def audit_log(self) -> Path:
        return self.path / "audit.jsonl"

    @property
    def sessions(self) -> Path:
        return self.path / "sessions"

    @property
    def subagents(self) -> Path:
        return self.path / "subagents"


def hermes_state(home: Path | None = None) -> StateFolder:
    """The state folder in a Hermes home (default: HERMES_HOME as Hermes resolves it)."""
    return StateFolder((home if home is not None else hermes_home()) / FOLDER)


def claude_code_state() -> StateFolder:
    return StateFolder(Path.home() / ".claude" / FOLDER)
