"""Where Hermes keeps its state, as Hermes itself resolves it.

HERMES_HOME is the running profile's home (`~/.hermes`, or `~/.hermes/profiles/<name>` under a
profile, or any folder the operator chose); the root is the folder whose `profiles/<name>`
folders are homes too. The fence's own state lives in `<HERMES_HOME>/agentsfence`. Hermes' own
helpers answer when Hermes is importable; otherwise its rule is followed: `$HERMES_HOME`, else
`~/.hermes`. Nothing here imports the engine or the plugin; the state folder's layout is
agentsfence/layout.py.
"""
from __future__ import annotations

import os
from pathlib import Path


def hermes_home() -> Path:
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except Exception:  # Hermes is not importable here: its own default rule
        return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")


def hermes_root() -> Path:
    try:
        from hermes_constants import get_default_hermes_root

        return Path(get_default_hermes_root())
    except Exception:
        home = hermes_home()
        return home.parent.parent if home.parent.name == "profiles" else home


def hermes_homes() -> tuple[str, ...]:
    """What a policy's `$HERMES_HOME` stands for (docs/bytecode.md §6.5): HERMES_HOME first, then
    the root, whose profiles are homes of their own."""
    homes = [str(hermes_home()), str(hermes_root())]
    return tuple(dict.fromkeys(h for h in homes if os.path.isabs(h)))

