"""Whether the sandbox can run here: Linux, a `bwrap` on PATH, and user namespaces that bwrap may
create (tried once, for real, and cached per bwrap path).

The answer says in plain words why not and what to do about it; run.py refuses to run a command
unconfined when it is not ok (the caller decides what to do instead: block or ask)."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    ok: bool
    why: str = ""                 # plain words, empty when ok
    fix: str = ""                 # what the operator can do, empty when ok
    bwrap: str = ""               # the bwrap binary found
    disable_userns: bool = False  # bwrap >= 0.8: --disable-userns keeps the sandbox from nesting user namespaces


def probe() -> Probe:
    """Can a confined command run here? Cached for the process and the bwrap found on PATH."""
    if not sys.platform.startswith("linux"):
        return Probe(False, f"the sandbox needs Linux (this is {sys.platform})",
                     "run Hermes on Linux, or use a policy without `confine`")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Probe(False, "bubblewrap (bwrap) is not installed", "install bubblewrap: apt-get install bubblewrap")
    return _probe(os.path.realpath(bwrap))


@functools.lru_cache(maxsize=4)
def _probe(bwrap: str) -> Probe:
    base = [bwrap, "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "--cap-drop", "ALL"]
    try:
        done = subprocess.run([*base, "true"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Probe(False, f"bwrap could not be started: {error}", "reinstall bubblewrap: apt-get install --reinstall bubblewrap")
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit status {done.returncode}"
        return Probe(False, f"bwrap cannot create its namespaces here ({message})", _userns_fix(message), bwrap)
    try:
        nested = subprocess.run([*base, "--disable-userns", "true"], capture_output=True, timeout=10,
                                stdin=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        nested = False
    return Probe(True, bwrap=bwrap, disable_userns=nested)


def _userns_fix(message: str) -> str:
    if os.path.exists("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"):
        return ("enable unprivileged user namespaces: sysctl kernel.apparmor_restrict_unprivileged_userns=0 "
                "(or an AppArmor profile for bwrap)")
    if os.path.exists("/proc/sys/kernel/unprivileged_userns_clone"):
        return "enable unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1"
    if "No space left" in message:
        return "allow user namespaces: sysctl user.max_user_namespaces=15000"
    return ("allow unprivileged user namespaces (in a container: run it with --security-opt seccomp=unconfined "
            "or a profile that permits unshare/clone with CLONE_NEWUSER)")
