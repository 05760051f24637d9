"""What bash did against what the fence read: the effects the reading does not account for.

A command disagrees when bash executed a program whose basename is not a `program` target,
wrote (created, deleted, renamed, linked, chmodded) a path no `write` target covers (a `path`
target, while the reader has no `write` subject), read a credential no `path` target covers,
connected to a host or address with no `domain` target, or ended in another working directory
than it began in where the decision does not say it moves; unless the reading has an `opaque`
target, which says every effect may be present. An `allow` of a command with an unreported
effect is the worst case: the policy let it run on a reading that missed what it does.
"""
from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field

from . import sandbox
from .reading import INTENT, Reading, glob_matches, read, wrappers
from .sandbox import Effect, Run, host_names

# What a program does as part of its own work, whatever its arguments, which the reading of the
# program accounts for. Programs it runs: tar's compressors, git's own helpers in git-core.
# (Code a program runs because its arguments say so, git's pager or aliases, find's -exec, awk's
# system, tar's checkpoint actions, is not here: the reader must see those.)
IMPLIED_EXECS: dict[str, frozenset[str]] = {
    "tar": frozenset({"gzip", "bzip2", "xz", "lzma", "lzip", "lzop", "zstd", "compress"}),
}

# Files a program writes as part of its own bookkeeping, whatever its arguments: git's index,
# objects, refs and logs (not .git/config or .git/hooks, which change what later commands run).
IMPLIED_WRITES: dict[str, tuple[str, ...]] = {
    "git": ("**/.git/index", "**/.git/index.lock", "**/.git/COMMIT_EDITMSG", "**/.git/objects/**",
            "**/.git/refs/**", "**/.git/logs/**", "**/.git/HEAD", "**/.git/ORIG_HEAD", "**/.git/FETCH_HEAD"),
}


def _implied_exec(effect: Effect) -> bool:
    name = posixpath.basename(effect.value)
    runner = _program_of(effect)
    if runner == "git" and "/git-core/" in effect.value:
        return True
    helpers = IMPLIED_EXECS.get(runner, frozenset())
    if name in helpers:
        return True
    # tar runs its compressor through `sh -c gzip`: the shell, and the compressor it runs.
    if name in ("sh", "bash", "dash") and runner in IMPLIED_EXECS:
        words = effect.detail.split(" ")
        return len(words) == 3 and words[1] == "-c" and words[2] in IMPLIED_EXECS[runner]
    if len(effect.chain) >= 2 and posixpath.basename(effect.chain[-1]) in ("sh", "dash"):
        outer = posixpath.basename(effect.chain[-2])
        return name in IMPLIED_EXECS.get(outer, frozenset())
    return False


# Credentials a program reads by itself to reach a host it is given, whatever else its
# arguments say: the policy decides on the program and the host. Shown, not counted.
_SSH_FILES = ("/home/user/.ssh/**",)
_NETRC = ("/home/user/.netrc",)
IMPLIED_READS: dict[str, tuple[str, ...]] = {
    "ssh": _SSH_FILES, "scp": _SSH_FILES, "sftp": _SSH_FILES,
    "wget": _NETRC, "curl": _NETRC,
    "git": ("/home/user/.git-credentials", "/home/user/.config/git/credentials") + _NETRC,
}


def _program_of(effect: Effect) -> str:
    program = posixpath.basename(effect.program)
    if program.startswith("git-") and "/git-core/" in effect.program:
        return "git"  # git's helpers: git-remote-http, git-upload-pack, …
    return program


def implied(effect: Effect) -> bool:
    """The effect is the program's own bookkeeping or credential use (IMPLIED_*)."""
    if effect.kind == "write":
        table = IMPLIED_WRITES
    elif effect.kind == "read":
        table = IMPLIED_READS
    elif effect.kind == "exec":
        return _implied_exec(effect)
    else:
        return False
    return any(glob_matches(p, effect.value) for p in table.get(_program_of(effect), ()))


SHOWN = 8  # effects listed per kind in a report


@dataclass
class Verdict:
    command: str
    run: Run
    reading: Reading
    unreported: list[Effect] = field(default_factory=list)
    constructs: tuple[str, ...] = ()

    @property
    def disagrees(self) -> bool:
        return bool(self.unreported)

    @property
    def worst(self) -> bool:
        """Allowed, with something bash did that the reading did not report."""
        return self.disagrees and self.reading.kind == "allow"

    def vector(self) -> str:
        """A case for tests/vectors/*.yaml (flow style), and what bash and the fence said."""
        # The command as a line of corpus.txt: a newline goes on in a line that starts with "| ".
        lines = ["command: " + self.command.replace("\n", "\n       | ")]
        if self.constructs:
            lines.append(f"constructs: {', '.join(self.constructs)}")
        for i, effect in enumerate(self.unreported[:SHOWN]):
            lines.append(f"{'bash:' if i == 0 else '':8} {effect}  <- unreported")
        if len(self.unreported) > SHOWN:
            lines.append(f"{'':8} … and {len(self.unreported) - SHOWN} more unreported")
        others = [e for e in self.run.effects if e not in self.unreported]
        for effect in others[:SHOWN]:
            note = "  (the program's own)" if implied(effect) else ""
            lines.append(f"{'bash:' if not self.unreported and effect is others[0] else '':8} {effect}{note}")
        lines.append(f"fence:   {self.reading.summary()}")
        if self.worst:
            lines.append("         ALLOWED: the worst kind of disagreement")
        expect = "ask" if self.reading.kind == "allow" else self.reading.kind
        case = (f'- {{name: {json.dumps("bash: " + self.command)}, intent: [{json.dumps(INTENT)}], tool: terminal, '
                f'args: {{command: {json.dumps(self.command)}}}, expect: {{kind: {expect}}}}}')
        lines.append(f"vector:  {case}")
        return "\n".join(lines)


# Places a policy protects by name: a target must name them, or something inside them, to
# account for an effect there. A read is of a credential (the innermost place that holds it:
# ~/.hermes/agentsfence, not ~/.hermes); a write is into what outlives the task (the outermost:
# all of ~/.hermes).
PROTECTED_WRITES = tuple(sorted(set(sandbox.CREDENTIALS) | {
    f"{sandbox.HOME}/{p}" for p in (".bashrc", ".profile", ".bash_profile", ".hermes", ".config", ".gitconfig",
                                    ".ssh", "project/.git/hooks", "project/.git/config")}, key=len))


def floor_of(path: str, kind: str) -> str:
    """The protected place a read or write at path lies in, or `/`."""
    roots = sorted(sandbox.CREDENTIALS, key=len, reverse=True) if kind == "read" else PROTECTED_WRITES
    for root in roots:
        if path == root or path.startswith(root + "/"):
            return root
    return "/"


def program_covered(effect: Effect, reading: Reading) -> bool:
    name = posixpath.basename(effect.value)
    if name in reading.programs or name in wrappers():
        return True
    # A program the reader could not name (the shell a `flock -c` string runs in) is a pattern.
    return any(glob_matches(p, name) for p in reading.program_patterns)


def unreported(run: Run, reading: Reading) -> list[Effect]:
    """The effects of the run the reading does not account for (none when it is opaque)."""
    if reading.opaque:
        return []
    missing = []
    for effect in run.effects:
        if implied(effect):
            continue
        if effect.kind == "exec":
            covered = program_covered(effect, reading)
        elif effect.kind == "write":
            covered = any(t.covers(effect.value, floor_of(effect.value, "write")) for t in reading.write_cover)
        elif effect.kind == "read":
            resolved = effect.detail[3:] if effect.detail.startswith("-> ") else None
            names = [effect.value] + ([resolved] if resolved else [])
            covered = any(t.covers(n, floor_of(n, "read")) for t in reading.paths for n in names)
        elif effect.kind == "moved":
            covered = reading.moves
        elif effect.kind in ("connect", "bind"):
            if effect.detail == "AF_UNIX":
                covered = any(t.covers(effect.value, floor_of(effect.value, "write")) for t in reading.paths)
            else:
                covered = reading.covers_host(host_names(effect))
        else:
            covered = False
        if not covered:
            missing.append(effect)
    return missing


def check(command: str, constructs: tuple[str, ...] = (), timeout: float = sandbox.TIMEOUT) -> Verdict:
    run = sandbox.run(command, timeout=timeout)
    reading = read(command)
    return Verdict(command, run, reading, unreported(run, reading), constructs)
