"""Confinement: running one allowed command inside a bubblewrap sandbox scoped to its task.

The evaluator decides (the `confine` outcome) and computes the sandbox's profile; this package
only applies it, on Linux, with bubblewrap. One concept per module:

    profile.py  the profile: the data and the two questions the evaluator answers (the contract)
    probe.py    whether the sandbox can run here, and if not why and how to fix it
    bwrap.py    a profile -> the bwrap argv, with what must be prepared before and undone after
    proxy.py    the filtering HTTP proxy the sandbox reaches the listed hosts through
    run.py      running a command confined, and the shell text Hermes' terminal runs

Nothing here decides: where a path or a variable needs judging, the profile's `classify` and
`env_drop` (the evaluator's) are asked; hosts are looked up, exactly, in the profile's list.
"""
from __future__ import annotations

from .probe import Probe, probe
from .profile import SandboxProfile
from .run import Confinement, RunResult, confine, run, shell_text

__all__ = ["Confinement", "Probe", "RunResult", "SandboxProfile", "confine", "probe", "run", "shell_text"]
