"""A stand-in for the evaluator's sandbox profile, for the sandbox tests only: classify by a small
fnmatch table, drop variables whose names look secret. The real profile comes from the wasm."""
from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentsfence.sandbox import SandboxProfile, probe

# path glob -> answer; the first match wins
TABLE = (("*/.git", "read_only"), ("*/.env", "hide"), ("*/.aws", "hide"), ("*/secrets.txt", "hide"))


def classify(paths: list[str]) -> list[str]:
    return [next((answer for glob, answer in TABLE if fnmatch.fnmatch(p, glob)), "") for p in paths]


def env_drop(entries: list[str]) -> list[str]:
    names = [e.partition("=")[0] for e in entries]
    return [n for n in names if any(word in n for word in ("SECRET", "TOKEN", "PASSWORD", "SSH_AUTH_SOCK"))]


def make_profile(cwd, home, write=(), hide=(), hosts=(), show=()):
    return SandboxProfile(cwd=str(cwd), home=str(home), write=tuple(map(str, write)), hide=tuple(map(str, hide)),
                          hosts=tuple(hosts), classify=classify, env_drop=env_drop,
                          show=tuple(show))


def need_sandbox() -> None:
    found = probe()
    if not found.ok:
        pytest.skip(f"no sandbox here: {found.why} ({found.fix})")


@dataclass
class World:
    """A home with credentials, a working tree, and a folder outside both; not under /tmp, which
    the sandbox replaces with its own (a home there would be invisible, not read-only)."""
    base: Path
    home: Path
    tree: Path
    outside: Path

    def profile(self, **changes):
        args = dict(cwd=self.tree, home=self.home, write=(self.tree,),
                    hide=(self.home / ".ssh", self.home / ".hermes", self.home / ".netrc"))
        args.update(changes)
        return make_profile(**args)


@pytest.fixture
def world():
    need_sandbox()
    base = Path(tempfile.mkdtemp(prefix="af-sandbox-test-", dir="/var/tmp"))
    home, tree, outside = base / "home", base / "tree", base / "outside"
    for d in (home / ".ssh", home / ".hermes", home / ".config", tree / "sub", outside):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("SSH-PRIVATE-KEY-BYTES\n")
    (home / ".hermes" / "auth.json").write_text("HERMES-TOKEN\n")
    (home / ".netrc").write_text("machine x password NETRC-PASSWORD\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("AWS-SECRET-KEY\n")
    (home / "notes.txt").write_text("home notes\n")
    (tree / "README").write_text("readme\n")
    (tree / ".env").write_text("API_KEY=DOTENV-SECRET\n")
    (outside / "target.txt").write_text("original\n")
    yield World(base, home, tree, outside)
    shutil.rmtree(base, ignore_errors=True)
