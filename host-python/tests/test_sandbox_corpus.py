"""Every attack of the corpora that the shipped policy confines, run in the real sandbox the
evaluator's profile describes, with the kernel and the file system as the oracle: in a home of
decoy secrets and a working tree, each terminal command of tests/corpora/adversarial.yaml and
of the shell, evasion and adversary vectors that decides `confine` runs confined; afterwards no
file outside the tree has changed, no protected file in it has, none it created there that must
stay read-only is left, and no secret's marker (a file's, a variable's) is in what it printed."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml

from agentsfence import Fence
from agentsfence.sandbox import probe, run

REPO = Path(__file__).resolve().parents[2]
SOURCES = [REPO / "tests" / "corpora" / "adversarial.yaml"] + [
    REPO / "tests" / "vectors" / f"{name}.yaml" for name in ("shell", "evasion", "adversary", "directory")]
MARKERS = {
    ".ssh/id_rsa": "MARK-SSH-KEY", ".aws/credentials": "MARK-AWS-KEY", ".netrc": "MARK-NETRC",
    ".hermes/config.yaml": "MARK-HERMES", ".config/gh/hosts.yml": "MARK-GH-TOKEN",
}
TREE_SECRET = "MARK-DOTENV"
ENV_SECRET = "MARK-ENV-TOKEN"
TIMEOUT = 5.0


def terminal_cases() -> list[tuple[str, list[str], str]]:
    cases = []
    for source in SOURCES:
        suite = yaml.safe_load(source.read_text())
        for case in suite["cases"]:
            if case.get("tool") == "terminal" and isinstance(case.get("args", {}).get("command"), str):
                intent = case.get("intent", [])
                cases.append((f"{source.stem}: {case['name']}", intent if isinstance(intent, list) else [intent],
                              case["args"]["command"]))
    return cases


def snapshot(root: Path, skip: Path | None = None) -> dict[str, str]:
    seen = {}
    for path in sorted(root.rglob("*")):
        if skip is not None and (path == skip or skip in path.parents):
            continue
        if path.is_symlink():
            seen[str(path)] = "link:" + os.readlink(path)
        elif path.is_file():
            seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            seen[str(path)] = "dir"
    return seen


@pytest.fixture(scope="module")
def world():
    if not probe().ok:
        pytest.skip(f"no sandbox here: {probe().why}")
    base = Path(tempfile.mkdtemp(prefix="af-corpus-", dir="/var/tmp"))
    home, state = base / "home", base / "state"
    tree = home / "project"
    for relative, marker in MARKERS.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(marker + "\n")
    (home / ".bashrc").write_text("# the user's shell\n")
    (tree / "src").mkdir(parents=True)
    (tree / "notes.txt").write_text("notes\n")
    (tree / "src" / "main.py").write_text("print('hi')\n")
    (tree / ".env").write_text(f"API_KEY={TREE_SECRET}\n")
    (tree / ".git" / "hooks").mkdir(parents=True)
    (tree / ".git" / "config").write_text("[core]\n")
    yield base, home, tree, state
    shutil.rmtree(base, ignore_errors=True)


def test_every_confined_attack_stays_in_its_sandbox(world, monkeypatch):
    base, home, tree, state = world
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setenv("DEPLOY_TOKEN", ENV_SECRET)
    fence = Fence(home=str(home), cwd=str(tree), hermes_homes=[str(home / ".hermes")])
    outside = snapshot(home, skip=tree)
    protected = {p: h for p, h in snapshot(tree).items() if "/.git" in p}
    ran, failures = 0, []
    for name, intent, command in terminal_cases():
        session = fence.session(name)
        for message in intent:
            session.intent(message)
        decision = session.decide("terminal", {"command": command})
        if decision.kind != "confine":
            fence.drop_session(name)
            continue
        profile = session.sandbox_profile("terminal", {"command": command})
        fence.drop_session(name)
        done = run(profile, command, timeout=TIMEOUT)
        ran += 1
        printed = done.stdout + done.stderr
        leaked = [m for m in (*MARKERS.values(), TREE_SECRET, ENV_SECRET) if m in printed]
        if leaked:
            failures.append(f"{name}: printed {leaked}")
        now = snapshot(home, skip=tree)
        if now != outside:
            changed = sorted(set(now.items()) ^ set(outside.items()))
            failures.append(f"{name}: changed outside the tree: {changed[:4]}")
            outside = now
        now_protected = {p: h for p, h in snapshot(tree).items() if "/.git" in p}
        if now_protected != protected:
            failures.append(f"{name}: changed .git: {sorted(set(now_protected.items()) ^ set(protected.items()))[:4]}")
            protected = now_protected
    print(f"{ran} confined attacks ran in the sandbox")
    assert ran >= 100, f"only {ran} attacks were confined: the corpus no longer exercises the sandbox"
    assert failures == [], "\n".join(failures)
