"""The fence's reading of a command: decide `terminal` under the shipped policy and sort the
decision's targets by what they claim the command does.

The reader's subjects are changing. Today a terminal call's targets are `program`, `path`,
`domain`, `url` (and `email`, `recipient`); the rewrite adds `write` (a path the command
writes, creates, deletes or renames), `opaque` (something it could not read: then every effect
is possibly present) and a pattern flag on a target whose value is a glob it could not resolve.
`adapt` is the one place that knows those shapes: when the evaluator has no `write` subject, a
`path` target stands in for a write, and the program `/dev/stdin` (a shell reading commands
the reader cannot see) stands in for `opaque`.
"""
from __future__ import annotations

import functools
import posixpath
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentsfence import Fence, api

from .sandbox import CWD, HOME

INTENT = "Summarize notes.txt into summary.md"
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PathTarget:
    value: str
    pattern: bool = False  # a glob (docs/bytecode.md §6.4) the reader could not resolve
    tree: bool = False  # a directory with everything below it (§6.9): it covers every path below

    def covers(self, path: str, floor: str = "/") -> bool:
        """The path is this target or lies below it, or (a pattern) it or a directory above it
        matches; a directory above `floor` covers nothing below it, unless it is a tree. The
        comparison sets the floor at a protected place (~/.ssh, ~/.hermes, ~/.bashrc, …): naming
        ~ or / tells a policy nothing about the key or the profile a command reaches below it,
        but a tree target does (its UNDER tests hold for every protected path below it)."""
        if not self.pattern:
            if path == self.value:
                return True
            value = self.value.rstrip("/") or "/"
            below = path.startswith(value + "/") or value == "/"
            return below and (self.tree or _at_or_below(value, floor))
        if self.tree:
            regex = _glob_regex(self.value)
            candidate = path
            while True:
                if regex.fullmatch(candidate):
                    return True
                if candidate == "/":
                    return False
                candidate = posixpath.dirname(candidate)
        regex = _glob_regex(self.value)
        candidate = path
        while _at_or_below(candidate, floor):
            if regex.fullmatch(candidate):
                return True
            if candidate == "/":
                return False
            candidate = posixpath.dirname(candidate)
        return False

    def __str__(self) -> str:
        return self.value + (" (pattern)" if self.pattern else "")


@dataclass
class Reading:
    command: str
    kind: str
    reason: str
    rule: str
    message: str
    targets: tuple[Any, ...]
    programs: set[str] = field(default_factory=set)
    program_patterns: list[str] = field(default_factory=list)  # programs the reader could not name
    paths: list[PathTarget] = field(default_factory=list)
    writes: list[PathTarget] = field(default_factory=list)
    writes_reported: bool = False  # False: the reader has no `write` subject, `paths` stand in
    domains: set[str] = field(default_factory=set)
    domain_patterns: list[str] = field(default_factory=list)
    urls: set[str] = field(default_factory=set)
    opaque: list[str] = field(default_factory=list)
    moves: bool = False  # the reader says the shell may end in another directory

    def covers_host(self, names: set[str]) -> bool:
        return bool(names & self.domains) or any(glob_matches(p, n) for p in self.domain_patterns for n in names)

    @property
    def write_cover(self) -> list[PathTarget]:
        return self.writes if self.writes_reported else self.paths

    def summary(self) -> str:
        rule = f" [{self.rule}]" if self.rule else ""
        targets = ", ".join(_target_text(t) for t in self.targets) or "no targets"
        return f"{self.kind} {self.reason}{rule}; {targets}"


def _target_text(target: Any) -> str:
    subject, value, pattern = _parts(target)
    return f"{subject} {value}".replace("\n", "\\n") + (" (pattern)" if pattern else "")


def _parts(target: Any) -> tuple[str, str, bool]:
    """(subject, value, pattern) of a Decision's target: (subject, value) with the subject's
    name suffixed as agentsfence.api names patterns and trees ("path:tree:pattern")."""
    subject, value = str(target[0]), str(target[1])
    return subject.split(":")[0], value, subject.endswith(api.PATTERN_SUFFIX)


def _is_tree(target: Any) -> bool:
    return api.TREE_SUFFIX + ":" in str(target[0]) + ":"


def _at_or_below(path: str, floor: str) -> bool:
    return floor == "/" or path == floor or path.startswith(floor + "/")


def writes_supported() -> bool:
    return "write" in api.SUBJECTS


def adapt(command: str, decision: Any) -> Reading:
    """The decision's targets as a Reading. Update here when the record's shape changes."""
    reading = Reading(command, decision.kind, decision.reason, decision.rule, decision.message,
                      tuple(decision.targets), writes_reported=writes_supported(), moves=decision.moves)
    for target in decision.targets:
        subject, value, pattern = _parts(target)
        if subject == "program" and pattern:
            reading.program_patterns.append(value)
        elif subject == "program":
            reading.programs.add(value)
            if value == "/dev/stdin":
                # Today's mark of code the reader could not read: a shell fed through a pipe or a
                # file (docs/bytecode.md §6.6). It says what `opaque` will.
                reading.opaque.append(value)
        elif subject == "path":
            reading.paths.append(PathTarget(value, pattern, _is_tree(target)))
        elif subject == "write":
            reading.writes.append(PathTarget(value, pattern, _is_tree(target)))
        elif subject == "domain":
            if pattern:
                reading.domain_patterns.append(value.lower())
            else:
                reading.domains.add(value.lower())
        elif subject == "url":
            reading.urls.add(value)
        elif subject == "opaque":
            reading.opaque.append(value)
    return reading


_lock = threading.Lock()
_session: api.Session | None = None


def session() -> api.Session:
    """The one session every command is decided in (the shipped policy has no budgets), made on
    first use; the Fence serializes its calls, so threads may share it."""
    global _session
    with _lock:
        if _session is None:
            # The reader is what is compared with bash, outside any sandbox: with none, the
            # fence reports every effect it reads (a loopback host too) and allows what it can.
            _session = Fence(home=HOME, cwd=CWD, sandbox=False).session("bashdiff")
            _session.intent(INTENT)
        return _session


def read(command: str) -> Reading:
    """The fence's reading of `terminal {"command": command}` under the shipped policy, in a
    session whose intent is INTENT, in CWD."""
    # The directory given each time, as the plugin gives Hermes' terminal's: a command that
    # moved the shared session's terminal must not move the next command's.
    return adapt(command, session().decide("terminal", {"command": command}, cwd=CWD))


@functools.lru_cache(maxsize=None)
def wrappers() -> frozenset[str]:
    """The shipped policy's shell wrappers (env, xargs, nice, …): the reader skips them to the
    program they run, which is itself an execve the comparison checks."""
    import yaml

    policy = yaml.safe_load((REPO / "policies" / "defaults.yaml").read_text())
    return frozenset(policy.get("shell", {}).get("wrappers", []))


def glob_matches(pattern: str, value: str) -> bool:
    return _glob_regex(pattern).fullmatch(value) is not None


@functools.lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """docs/bytecode.md §6.4: `*` any run without '/', `**` any run, `?` one byte other than '/';
    a `**` between two '/' also matches zero directories."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("/**/", i):
            out.append("(?:/|/.*/)")
            i += 4
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.S)

