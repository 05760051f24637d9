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
    state.db      the state store: sessions, grants, budget counts, the audit head (state.py, store/)
    sessions/     JSON session records of versions before the store (moved in, kept in migrated/),
                  and the shell hooks' lock files
    subagents/    which session each subagent belongs to, for the shell hooks (hooks.py)
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .errors import FenceError
from .hermes.homes import hermes_home, hermes_root

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


def use_hermes_profile(profile: str | None = None) -> Path:
    """Points HERMES_HOME at the home `hermes` would use when started from this shell, and returns
    it: the profile `hermes -p NAME` names (`profile`), else HERMES_HOME when it is a profile's
    folder, else the profile `hermes profile use` made sticky (`active_profile` in the root), else
    HERMES_HOME or the default. That is hermes_cli/main.py's `_apply_profile_override` (0.19),
    which sets HERMES_HOME the same way before Hermes reads it, so a command of this package reads
    the policy and the records of the profile Hermes runs in."""
    if profile is None:
        given = os.environ.get("HERMES_HOME", "")
        if given and Path(given).parent.name == "profiles":
            return Path(given)
        try:
            sticky = (hermes_root() / "active_profile").read_text().strip()
        except (OSError, UnicodeDecodeError):
            sticky = ""
        if sticky and sticky != "default":
            profile = sticky
    if profile is None:
        return hermes_home()
    home = _profile_home(profile)
    os.environ["HERMES_HOME"] = str(home)
    return home


def _profile_home(name: str) -> Path:
    try:
        from hermes_cli.profiles import resolve_profile_env
    except ImportError:  # no Hermes in this Python: its layout, ~/.hermes/profiles/NAME
        home = hermes_root() if name == "default" else hermes_root() / "profiles" / name
        if not home.is_dir():
            raise FenceError(f"Hermes has no profile {name!r} (no folder {home})") from None
        return home
    try:
        return Path(resolve_profile_env(name))
    except (FileNotFoundError, ValueError) as error:
        raise FenceError(f"Hermes has no profile {name!r}: {error}") from None


def claude_code_state() -> StateFolder:
    return StateFolder(Path.home() / ".claude" / FOLDER)
