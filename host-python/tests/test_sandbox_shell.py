"""The shell text Hermes' local terminal evals, run by Hermes' own wrapper (BaseEnvironment.
_wrap_command) in a real bash; git in a confined tree; and that the package decides nothing."""
from __future__ import annotations

import ast
import subprocess
import types
from pathlib import Path

import pytest

from agentsfence.sandbox import confine, run, shell_text

from .conftest import REPO
from .sandbox_support import World, world  # noqa: F401  (fixture)

MARKER = "__AF_TEST_CWD__"


def hermes_wrapped(command: str, cwd: str) -> str:
    """Hermes' own wrapping of a terminal command (no snapshot yet), through its real method."""
    from tools.environments.base import BaseEnvironment
    fake = types.SimpleNamespace(_snapshot_ready=False, _snapshot_path="/nonexistent", _cwd_marker=MARKER,
                                 _quote_cwd_for_cd=BaseEnvironment._quote_cwd_for_cd)
    fake._quote_shell_path = lambda path: BaseEnvironment._quote_shell_path(fake, path)
    return BaseEnvironment._wrap_command(fake, command, cwd)


def in_hermes_bash(text: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(["bash", "-c", hermes_wrapped(text, str(cwd))], capture_output=True, text=True, timeout=30)
    out, _, tracked = done.stdout.rpartition("\n" + MARKER)
    return done.returncode, out, tracked.split(MARKER)[0]


TRICKY = [
    ("echo 'single' \"double\" $'ansi\\ttab' \\$HOME", "single double ansi\ttab $HOME\n"),
    ("x='it'\"'\"'s'; echo \"$x\"", "it's\n"),
    ("cat <<'EOF'\n$not expanded 'q' \"d\"\nEOF", "$not expanded 'q' \"d\"\n"),
    ("cat <<EOF\nline1\n$((2+3))\nEOF", "line1\n5\n"),
    ("printf '%s\\n' \"$0\" \"$#\"", "bash\n0\n"),
    ("echo a; echo b >&2; (exit 7)", "a\n"),
]


@pytest.mark.parametrize("command,expected", TRICKY)
def test_commands_full_of_quotes_run_as_written(world: World, command: str, expected: str):
    status, out, _ = in_hermes_bash(shell_text(world.profile(), command), world.tree)
    assert out == expected
    assert status == (7 if "exit 7" in command else 0)


def test_the_cwd_after_cd_propagates_through_hermes_wrapper_and_the_status_too(world: World):
    status, out, tracked = in_hermes_bash(shell_text(world.profile(), "cd sub && pwd && false"), world.tree)
    assert tracked == str(world.tree / "sub") and out == f"{world.tree}/sub\n" and status == 1
    status, _, tracked = in_hermes_bash(shell_text(world.profile(), "mkdir /tmp/inside-only && cd /tmp/inside-only; exit 3"),
                                        world.tree)
    assert tracked == str(world.tree) and status == 3  # a directory only the sandbox has: the shell stays


def test_a_handles_shell_text_keeps_its_proxy_until_closed(world: World):
    handle = confine(world.profile(hosts=("pypi.org",)))
    try:
        status, out, _ = in_hermes_bash(handle.shell_text("curl -sS --max-time 5 http://evil.test/"), world.tree)
        assert "evil.test: a host not named by your request" in out
    finally:
        handle.close()
    assert not Path(handle.root).exists()
    with pytest.raises(ValueError):
        shell_text(world.profile(hosts=("pypi.org",)), "true")


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True, check=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(tree)}).stdout


def test_git_reads_in_the_tree_and_a_commit_fails_clearly(world: World):
    git(world.tree, "init", "-q")
    git(world.tree, "add", "README")
    git(world.tree, "commit", "-qm", "first")
    head = git(world.tree, "rev-parse", "HEAD")
    (world.tree / "README").write_text("changed\n")
    env = "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t; "
    done = run(world.profile(), env + "git status --short; git diff --stat; git commit -qam second; echo commit=$?",
               timeout=30)
    assert " M README" in done.stdout and "1 file changed" in done.stdout and "commit=128" in done.stdout
    assert "Read-only file system" in done.stderr, done.stderr
    assert git(world.tree, "rev-parse", "HEAD") == head


def test_the_package_holds_no_decision_logic():
    """The host applies; the evaluator decides: no pattern matching in the sandbox package."""
    for path in sorted((REPO / "host-python" / "agentsfence" / "sandbox").glob("*.py")):
        tree = ast.parse(path.read_text())
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not imported & {"fnmatch", "glob", "wcmatch"}, path
        calls = {node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute)}
        assert not calls & {"fnmatch", "fnmatchcase", "glob", "full_match"}, path
        assert "match" not in calls or path.name == "bwrap.py"  # there: is a name a shell identifier
