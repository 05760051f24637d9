"""What bash did against what the fence read: the effects the reading does not account for.

A command disagrees when bash executed a program whose basename is not a `program` target,
wrote (created, deleted, renamed, linked, chmodded) a path no `write` target covers (a `path`
target, while the reader has no `write` subject), read a credential no `path` target covers,
or connected to a host or address with no `domain` target; unless the reading has an `opaque`
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

# Programs another program runs as part of its own work, whose execs the reading of the outer
# program accounts for: tar's compressors. (Code a program runs because its arguments say so,
# git's pager, find's -exec, awk's system, is not here: the reader must see those.)
IMPLIED_EXECS: dict[str, frozenset[str]] = {
    "tar": frozenset({"gzip", "bzip2", "xz", "lzma", "lzip", "lzop", "zstd", "compress"}),
}

# Files a program writes as part of its own bookkeeping, whatever its arguments: git's index,
# objects, refs and logs (not .git/config or .git/hooks, which change what later commands run).
IMPLIED_WRITES: dict[str, tuple[str, ...]] = {
    "git": ("**/.git/index", "**/.git/index.lock", "**/.git/COMMIT_EDITMSG", "**/.git/objects/**",
            "**/.git/refs/**", "**/.git/logs/**", "**/.git/HEAD", "**/.git/ORIG_HEAD", "**/.git/FETCH_HEAD"),
}


def _implied_write(effect: Effect) -> bool:
    program = posixpath.basename(effect.program)
    if program.startswith("git-") and "/git-core/" in effect.program:
        program = "git"
    return any(glob_matches(p, effect.value) for p in IMPLIED_WRITES.get(program, ()))


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
        for i, effect in enumerate(self.unreported):
            lines.append(f"{'bash:' if i == 0 else '':8} {effect}  <- unreported")
        others = [e for e in self.run.effects if e not in self.unreported]
        for effect in others:
            lines.append(f"{'bash:' if not self.unreported and effect is others[0] else '':8} {effect}")
        lines.append(f"fence:   {self.reading.summary()}")
        if self.worst:
            lines.append("         ALLOWED: the worst kind of disagreement")
        expect = "ask" if self.reading.kind == "allow" else self.reading.kind
        case = (f'- {{name: {json.dumps("bash: " + self.command)}, intent: [{json.dumps(INTENT)}], tool: terminal, '
                f'args: {{command: {json.dumps(self.command)}}}, expect: {{kind: {expect}}}}}')
        lines.append(f"vector:  {case}")
        return "\n".join(lines)


def program_covered(effect: Effect, reading: Reading, parent: str) -> bool:
    name = posixpath.basename(effect.value)
    if name in reading.programs or name in wrappers():
        return True
    return name in IMPLIED_EXECS.get(posixpath.basename(parent), frozenset())


def unreported(run: Run, reading: Reading) -> list[Effect]:
    """The effects of the run the reading does not account for (none when it is opaque)."""
    if reading.opaque:
        return []
    missing = []
    for effect in run.effects:
        if effect.kind == "exec":
            covered = program_covered(effect, reading, effect.program)
        elif effect.kind == "write":
            covered = any(t.covers(effect.value) for t in reading.write_cover) or _implied_write(effect)
        elif effect.kind == "read":
            resolved = effect.detail[3:] if effect.detail.startswith("-> ") else None
            covered = any(t.covers(effect.value) or (resolved is not None and t.covers(resolved))
                          for t in reading.paths)
        elif effect.kind in ("connect", "bind"):
            if effect.detail == "AF_UNIX":
                covered = any(t.covers(effect.value) for t in reading.paths)
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
