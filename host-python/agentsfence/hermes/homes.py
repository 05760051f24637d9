"""Where Hermes keeps its state, as Hermes itself resolves it.

HERMES_HOME is the running profile's home (`~/.hermes`, or `~/.hermes/profiles/<name>` under a
profile, or any folder the operator chose); the root is the folder whose `profiles/<name>`
folders are homes too. Hermes' own helpers (hermes_constants) answer when Hermes is importable,
so the plugin, the shell hooks and the CLI name the same home as Hermes does, its in-process
override of a profile's home included. In a Python without Hermes (the shell hooks of an
`agentsfence` installed apart from it) the same rules are followed here, read from the
environment Hermes gives its hooks. The fence's own folder in the home is agentsfence/layout.py's.
Nothing here imports the engine or the plugin.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def hermes_home() -> Path:
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except Exception:  # Hermes is not importable here: its own rule
        return home_by_hermes_rule()


def hermes_root() -> Path:
    try:
        from hermes_constants import get_default_hermes_root

        return Path(get_default_hermes_root())
    except Exception:
        return root_by_hermes_rule()


def hermes_homes() -> tuple[str, ...]:
    """What a policy's `$HERMES_HOME` stands for (docs/bytecode.md §6.5): HERMES_HOME first, then
    the root, whose profiles are homes of their own."""
    homes = [str(hermes_home()), str(hermes_root())]
    return tuple(dict.fromkeys(h for h in homes if os.path.isabs(h)))


def _platform_home() -> Path:
    """hermes_constants._get_platform_default_hermes_home (hermes-agent 0.19)."""
    if sys.platform == "win32":
        local_appdata = os.environ.get("LOCALAPPDATA", "").strip()
        return (Path(local_appdata) if local_appdata else Path.home() / "AppData" / "Local") / "hermes"
    return Path.home() / ".hermes"


def home_by_hermes_rule() -> Path:
    """hermes_constants.get_hermes_home without Hermes: HERMES_HOME (blanks around it dropped),
    else the platform's default."""
    value = os.environ.get("HERMES_HOME", "").strip()
    return Path(value) if value else _platform_home()


def root_by_hermes_rule() -> Path:
    """hermes_constants.get_default_hermes_root without Hermes: the default home when HERMES_HOME
    lies inside it (a profile, or any folder there), else the folder above `profiles/` when
    HERMES_HOME is a profile elsewhere, else HERMES_HOME itself."""
    default = _platform_home()
    value = os.environ.get("HERMES_HOME", "")
    if not value:
        return default
    home = Path(value)
    try:
        home.resolve().relative_to(default.resolve())
        return default
    except ValueError:
        pass
    return home.parent.parent if home.parent.name == "profiles" else home
