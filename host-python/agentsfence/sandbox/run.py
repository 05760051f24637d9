"""Running a command confined, and the shell text Hermes' terminal runs instead of the command.

One `Confinement` per confined tool call:

    with confine(profile) as handle:          # starts the proxy when the profile lists hosts
        result = handle.run("make test", timeout=60)
    # or, for Hermes' local terminal, which evals a text in its own bash:
    handle = confine(profile)                  # in pre_tool_call
    text = handle.shell_text(command)          # what the terminal runs instead of `command`
    handle.close()                             # in post_tool_call: stops the proxy, removes what the run made

The handle owns the proxy and what the plan made on the host (empty output files);
close() undoes them and is safe to call twice. A command Hermes starts in the background outlives
its tool call: the caller keeps its handle until the process ends (Hermes' process registry says
when) and closes it then; closed earlier, the command keeps running but loses the network (the
proxy is gone) and its guards may be removed under it.

Inside, the command is `bash -c` with an EXIT trap that writes its final directory (pwd -P) into
the run's state dir, bound read-write at /run/agentsfence/state; shell_text's outer part cds there,
so Hermes' cwd tracking follows a `cd` made inside. What does not cross back: exported variables,
functions and aliases defined inside (Hermes' snapshot is re-dumped by the outer shell), and a
directory that exists only inside (the private /tmp).

The environment: what the evaluator's env_drop keeps of the names known when the text is made
(the process's environment, plus `env_names` given) passes, with the values the variables have
when the command runs; a name unknown then (exported by an earlier command into Hermes' snapshot)
is removed: default deny, by exact lookup in the kept list.
"""
from __future__ import annotations

import itertools
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from . import bwrap as bw
from .probe import Probe, probe
from .profile import SandboxProfile
from .proxy import FilteringProxy

PROXY_URL = f"http://127.0.0.1:{bw.PROXY_PORT}"
PROXY_ENV = {"HTTP_PROXY": PROXY_URL, "HTTPS_PROXY": PROXY_URL, "http_proxy": PROXY_URL, "https_proxy": PROXY_URL,
             "NO_PROXY": "localhost,127.0.0.1,::1", "no_proxy": "localhost,127.0.0.1,::1"}

# The bridge from the sandbox's loopback to the proxy's Unix socket: socat when installed, else this.
PY_BRIDGE = f"""
import socket, threading
def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except OSError: pass
    finally:
        try: b.shutdown(socket.SHUT_WR)
        except OSError: pass
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", {bw.PROXY_PORT})); l.listen(64)
while True:
    c, _ = l.accept()
    u = socket.socket(socket.AF_UNIX)
    try: u.connect({bw.PROXY_SOCKET!r})
    except OSError: c.close(); continue
    threading.Thread(target=pump, args=(c, u), daemon=True).start()
    threading.Thread(target=pump, args=(u, c), daemon=True).start()
"""

BRIDGE = (
    f"if command -v socat >/dev/null 2>&1; then "
    f"socat TCP-LISTEN:{bw.PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:{bw.PROXY_SOCKET} "
    f"</dev/null >/dev/null 2>&1 & "
    f"else python3 -c {shlex.quote(PY_BRIDGE)} </dev/null >/dev/null 2>&1 & fi\n"
    # wait (at most 3 s) until it listens, so the command's first connection finds it: a builtin
    # connect attempt in a loop (no fork, no sleep: socat listens within milliseconds)
    f"__agentsfence_t=${{EPOCHSECONDS:-0}}; __agentsfence_n=0; "
    f"until : 2>/dev/null </dev/tcp/127.0.0.1/{bw.PROXY_PORT}; do "
    f"__agentsfence_n=$((__agentsfence_n+1)); "
    f"[ $((${{EPOCHSECONDS:-0}} - __agentsfence_t)) -gt 3 ] || [ $__agentsfence_n -gt 1000000 ] && break; done; "
    f"unset __agentsfence_t __agentsfence_n\n")

CWD_FILE = "cwd"


def _inner(proxied: bool) -> str:
    """The script bash -c runs inside: $1 is the command, eval'd as Hermes evals it."""
    return ("trap 'builtin pwd -P >" + bw.STATE_DIR + "/" + CWD_FILE + " 2>/dev/null' EXIT\n"
            + (BRIDGE if proxied else "")
            + '__agentsfence_command=$1; shift; eval "$__agentsfence_command"')


class SandboxUnavailable(RuntimeError):
    def __init__(self, found: Probe):
        super().__init__(f"the sandbox cannot run here: {found.why} ({found.fix})")
        self.probe = found


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    cwd: str                        # the directory the command ended in ("" when unknown)
    timed_out: bool = False
    notes: list[str] = field(default_factory=list)  # parts of the profile that could not be applied
    refused: list[tuple[str, str]] = field(default_factory=list)  # (host, why) the proxy refused


class Confinement:
    """The host-side state of one confined tool call: the proxy (when hosts are listed), a private
    0700 directory for the runs' state, and what each run's plan made on the host."""

    def __init__(self, profile: SandboxProfile, *, environ: Mapping[str, str] | None = None):
        found = probe()
        if not found.ok:
            raise SandboxUnavailable(found)
        self.profile = profile
        self.probe = found
        self.environ = dict(os.environ if environ is None else environ)
        self.bash = os.path.realpath(shutil.which("bash") or "/bin/bash")
        self.root = tempfile.mkdtemp(prefix="agentsfence-sandbox-")
        self.proxy: FilteringProxy | None = None
        self._plans: list[bw.Plan] = []
        self._lock = threading.Lock()
        self._closed = False
        if profile.hosts:
            self.proxy = FilteringProxy(profile.hosts, parent_dir=self.root).start()

    # -- the two ways to run

    def run(self, command: str, *, timeout: float, stdin: str | None = None) -> RunResult:
        """`bash -c command` inside the sandbox, waited for at most `timeout` seconds (then killed)."""
        state = self._state_dir()
        made = self._plan(state)
        env = {name: self.environ[name] for name in bw.kept_environment(self.profile, list(self.environ), self.environ)}
        env.update(self._set_env())
        argv = made.argv + ["--", self.bash, "-c", _inner(self.proxy is not None), "bash", command]
        refused_before = len(self.proxy.refused) if self.proxy else 0
        timed_out = False
        try:
            process = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            try:
                out, err = process.communicate(stdin.encode() if stdin is not None else None, timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(process.pid, signal.SIGKILL)  # bwrap; --die-with-parent takes the sandbox with it
                out, err = process.communicate()
            cwd = _read(os.path.join(state, CWD_FILE)).rstrip("\n")
            settled = bw.settle(self.profile, made, default_quarantine())
            return RunResult(process.returncode, out.decode(errors="replace"), err.decode(errors="replace"), cwd,
                             timed_out, list(made.notes) + settled,
                             list(self.proxy.refused[refused_before:]) if self.proxy else [])
        finally:
            self._finish(made)
            shutil.rmtree(state, ignore_errors=True)

    def shell_text(self, command: str, *, env_names: Iterable[str] = (), _self_cleaning: bool = False) -> str:
        """The bash text that runs `command` confined and leaves the calling shell in the directory
        the command ended in, with the command's exit status. Hermes' terminal evals it in its own
        bash; the plan's output files and the run's state stay until close(). The text adds nothing
        Hermes' own dangerous-command check flags (it reads the text, not the command alone): no
        `rm -rf`, which close() does instead."""
        state = self._state_dir()
        made = self._plan(state)
        keep = bw.kept_environment(self.profile, sorted(set(self.environ) | set(env_names)), self.environ)
        exports = " ".join(f"{name}={shlex.quote(value)}" for name, value in self._set_env().items())
        argv = made.argv + ["--", self.bash, "-c", _inner(self.proxy is not None), "bash", command]
        cwd_file = shlex.quote(os.path.join(state, CWD_FILE))
        return (
            "(\n"
            "  IFS=$' \\t\\n'\n"
            f"  __agentsfence_keep={shlex.quote(' ' + ' '.join(keep) + ' ')}\n"
            "  for __agentsfence_n in $(compgen -e); do\n"
            "    case \"$__agentsfence_keep\" in *\" $__agentsfence_n \"*) ;; *) unset -v \"$__agentsfence_n\" 2>/dev/null ;; esac\n"
            "  done\n"
            f"  export {exports}\n"
            f"  exec {shlex.join(argv)}\n"
            ")\n"
            "__agentsfence_ec=$?\n"
            f"if [ -s {cwd_file} ]; then builtin cd -- \"$(< {cwd_file})\" 2>/dev/null || true; fi\n"
            + (self._cleanup_text(made) if _self_cleaning else "")
            + "(exit $__agentsfence_ec)"
        )

    def settle(self, quarantine: str | None = None) -> list[str]:
        """After the command of shell_text ran: moves what it created that must stay read-only out
        of the tree (bwrap.settle), into `quarantine` (default: the user's state folder)."""
        with self._lock:
            plans = list(self._plans)
        folder = quarantine or default_quarantine()
        notes: list[str] = []
        for made in plans:
            notes += bw.settle(self.profile, made, folder)
        return notes

    def _cleanup_text(self, made: bw.Plan) -> str:
        """For a text with no handle to close: the shell undoes the plan itself (an empty output
        file), then drops the private directory."""
        last = [p for p in made.created if bw.MADE.give_back(p)]  # others still use the rest
        lines = [f"[ -f {q} ] && [ ! -L {q} ] && [ ! -s {q} ] && rm -f -- {q}\n"
                 for q in map(shlex.quote, (p for p in made.created if p in last))]
        with self._lock:
            self._plans.remove(made)
            self._closed = True
        return "".join(lines) + f"rm -rf -- {shlex.quote(self.root)}\n"

    # -- lifetime

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            plans, self._plans = self._plans, []
        if self.proxy is not None:
            self.proxy.stop()
        for made in plans:
            bw.undo(made)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Confinement:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- parts

    def _state_dir(self) -> str:
        if self._closed:
            raise RuntimeError("this confinement is closed")
        return tempfile.mkdtemp(prefix="run-", dir=self.root)

    def _plan(self, state: str) -> bw.Plan:
        made = bw.plan(self.profile, bwrap=self.probe.bwrap, state_dir=state,
                       proxy_dir=self.proxy.socket_dir if self.proxy else None,
                       disable_userns=self.probe.disable_userns)
        with self._lock:
            self._plans.append(made)
        return made

    def _finish(self, made: bw.Plan) -> None:
        bw.undo(made)
        with self._lock:
            if made in self._plans:
                self._plans.remove(made)

    def _set_env(self) -> dict[str, str]:
        env = dict(bw.CACHE_ENV)
        if self.proxy is not None:
            env.update(PROXY_ENV)
        return env


def default_quarantine() -> str:
    """Where what a confined command may not have created is moved: a new folder per run under
    $XDG_STATE_HOME/agentsfence/quarantine (default ~/.local/state)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "agentsfence", "quarantine", time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}-{next(_RUNS)}")


_RUNS = itertools.count(1)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(65536)
    except OSError:
        return ""


def confine(profile: SandboxProfile, *, environ: Mapping[str, str] | None = None) -> Confinement:
    """The handle for one confined tool call (raises SandboxUnavailable when probe() is not ok)."""
    return Confinement(profile, environ=environ)


def run(profile: SandboxProfile, command: str, *, timeout: float, stdin: str | None = None) -> RunResult:
    """Run `command` (bash) confined by `profile`, with its proxy for as long as it runs."""
    with confine(profile) as handle:
        return handle.run(command, timeout=timeout, stdin=stdin)


def shell_text(profile: SandboxProfile, command: str, *, handle: Confinement | None = None) -> str:
    """The text Hermes' terminal evals instead of `command`. A profile that lists hosts needs a
    handle (confine()) kept until the command ends: it owns the proxy. Without one, the plan's
    empty output files are removed by the last run that uses them."""
    if handle is not None:
        return handle.shell_text(command)
    if profile.hosts:
        raise ValueError("this profile lists hosts: use confine(profile).shell_text(command) and close the handle "
                         "when the command has ended (it owns the proxy)")
    handle = Confinement(profile)
    return handle.shell_text(command, _self_cleaning=True)
