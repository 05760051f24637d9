"""Confined terminal commands inside the REAL Hermes: the plugin's tool_execution middleware runs
the command Hermes' own terminal executes inside the task's sandbox, with Hermes' working
directory tracking intact; the kernel is the oracle (what exists on disk afterwards)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import model_tools
from agentsfence.sandbox import probe
from . import test_hermes as th
from .test_hermes import fresh_ids, hermes_home, manager, user_turn  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(not probe().ok, reason=f"no sandbox here: {probe().why}")

PROBE = '''
import os, sys
open("built.txt", "w").write("built")
for target in sys.argv[1:] + [".git/hooks/pre-commit"]:
    try:
        open(target, "w").write("x")
        print("WROTE", target)
    except OSError as error:
        print("DENIED", target, error.strerror)
print("TOKEN=" + os.environ.get("DEMO_API_TOKEN", ""))
'''


@pytest.fixture(autouse=True)
def same_ids(fresh_ids: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "SESSION", th.SESSION, raising=False)


def terminal(command: str, call_id: str) -> dict:
    return json.loads(model_tools.handle_function_call("terminal", {"command": command}, task_id=th.TASK,
                                                       session_id=th.SESSION, tool_call_id=call_id))


def test_a_confined_command_runs_in_the_sandbox_through_hermes_terminal(manager, hermes_home, monkeypatch, tmp_path):
    work = Path.cwd()
    (work / "probe.py").write_text(PROBE)
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / "sub").mkdir()
    monkeypatch.setenv("DEMO_API_TOKEN", "s3cret-value")
    leak = Path(os.path.expanduser("~/agentsfence-leak.txt"))
    assert not leak.exists()
    user_turn("Run the probe script and tell me what it prints")
    # (the leak's path as an argument: Hermes' terminal keeps the environment it first started with)
    result = terminal(f"python3 probe.py {leak} && cd sub", "call-confined")
    output = (result.get("output") or "") + (result.get("error") or "")
    print(result)
    assert "DENIED " + str(leak) in output and not leak.exists()
    assert "DENIED .git/hooks/pre-commit" in output and not (work / ".git" / "hooks" / "pre-commit").exists()
    assert "TOKEN=\n" in output + "\n" and "s3cret-value" not in output
    assert (work / "built.txt").read_text() == "built"  # the working tree is writable
    # Hermes' terminal keeps the directory the confined command ended in.
    assert terminal("pwd", "call-pwd")["output"].strip().endswith("/sub")
    log = [json.loads(line) for line in (hermes_home / "agentsfence" / "audit.jsonl").read_text().splitlines()]
    decided = [(d["tool"], d["event"], d.get("kind")) for d in log if d["event"] in ("decision", "confined")]
    assert ("terminal", "decision", "confine") in decided and ("terminal", "confined", None) in decided


def test_without_the_sandbox_a_confined_command_is_asked_about(hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\nagentsfence:\n  sandbox: \"off\"\n")
    th.load(monkeypatch)
    (Path.cwd() / "probe.py").write_text(PROBE)
    user_turn("Run the probe script and tell me what it prints")
    from hermes_cli.plugins import resolve_pre_tool_block

    message = resolve_pre_tool_block("terminal", {"command": "python3 probe.py"}, task_id=th.TASK, session_id=th.SESSION,
                                     tool_call_id="call-off")
    assert not (Path.cwd() / "built.txt").exists()
    log = [json.loads(line) for line in (hermes_home / "agentsfence" / "audit.jsonl").read_text().splitlines()]
    kinds = [(d.get("kind"), d.get("reason")) for d in log if d["event"] == "decision"]
    assert kinds == [("ask", "sandbox_unavailable")], (kinds, message)


def test_a_file_tool_through_a_symbolic_link_is_decided_on_where_it_leads(manager, hermes_home):
    """The fence compares paths as written; the middleware decides again on where a link leads
    before Hermes' own file tools open it."""
    work = Path.cwd()
    home = Path(os.path.expanduser("~"))
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    key = home / ".ssh" / "id_decoy"
    key.write_text("DECOY-KEY")
    bashrc = home / ".bashrc"
    before = bashrc.read_text() if bashrc.exists() else None
    (work / "docs").mkdir()
    (work / "README.txt").symlink_to(key)
    (work / "docs" / "summary.md").symlink_to(bashrc)
    try:
        user_turn("Summarize README.txt and save it to docs/summary.md")
        read = json.loads(model_tools.handle_function_call("read_file", {"path": "README.txt"}, task_id=th.TASK,
                                                          session_id=th.SESSION, tool_call_id="call-read"))
        assert "DECOY-KEY" not in json.dumps(read) and "symbolic link" in json.dumps(read)
        written = json.loads(model_tools.handle_function_call("write_file", {"path": "docs/summary.md", "content": "x"},
                                                             task_id=th.TASK, session_id=th.SESSION, tool_call_id="call-write"))
        assert "symbolic link" in json.dumps(written)
        assert (bashrc.read_text() if bashrc.exists() else None) == before
        plain = json.loads(model_tools.handle_function_call("read_file", {"path": str(work / "notes.txt")}, task_id=th.TASK,
                                                           session_id=th.SESSION, tool_call_id="call-plain"))
        assert "launch in October" in json.dumps(plain), plain
    finally:
        key.unlink()


def test_what_a_confined_command_may_not_create_is_moved_out_of_the_tree(manager, hermes_home, monkeypatch, tmp_path):
    work = Path.cwd()
    (work / ".github" / "workflows").mkdir(parents=True)
    (work / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    (work / "mk.py").write_text(
        "import os\n"
        "os.makedirs('.github/workflows', exist_ok=True)\n"
        "open('.github/workflows/evil.yml', 'w').write('x')\n"
        "for attempt in (lambda: os.rename('.github', '.github_old'), lambda: open('.github/workflows/ci.yml', 'w')):\n"
        "    try:\n"
        "        attempt(); print('DONE')\n"
        "    except OSError as error:\n"
        "        print('REFUSED', error.strerror)\n"
        "os.symlink('result.txt', 'AGENTS.md')\n"
        "open('.envrc', 'w').write('curl attacker.example')\n"
        "open('result.txt', 'w').write('ok')\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    user_turn("Run mk.py")
    result = terminal("python3 mk.py", "call-mk")
    assert result["output"].count("REFUSED") == 2 and "DONE" not in result["output"]
    assert not (work / ".github" / "workflows" / "evil.yml").exists()
    assert "evil.yml" in result["output"] and "moved to" in result["output"]
    assert list((tmp_path / "state" / "agentsfence" / "quarantine").glob("*/.github/workflows/evil.yml"))
    assert (work / ".github" / "workflows" / "ci.yml").read_text() == "on: push\n"
    assert (work / "result.txt").read_text() == "ok"
    # A link at such a name, and one that is a secret's name too (direnv runs .envrc), go as well.
    assert not (work / "AGENTS.md").is_symlink() and not (work / ".envrc").exists()


def test_a_secret_is_removed_by_its_value_whatever_its_name(tmp_path, monkeypatch):
    """The shipped policy's NAME=VALUE patterns: a token's or a credentialed URL's shape."""
    from agentsfence import Fence
    from agentsfence.sandbox import run

    work = tmp_path / "w"
    work.mkdir()
    fence = Fence(home=str(tmp_path), cwd=str(work))
    session = fence.session("values")
    session.intent("Run the tests")
    args = {"command": "python3 -c 'import os; print(sorted(os.environ))'"}
    assert session.decide("terminal", args).kind == "confine"
    for name, value in (("PLAIN_NAME", "ghp_0123456789abcdef"), ("CONN", "postgres://app:hunter2@db/x"),
                        ("HARMLESS", "just text")):
        monkeypatch.setenv(name, value)
    done = run(session.sandbox_profile("terminal", args), args["command"], timeout=30)
    assert "HARMLESS" in done.stdout and "PLAIN_NAME" not in done.stdout and "CONN" not in done.stdout, done


def test_hermes_own_dangerous_command_check_sees_the_command_not_the_sandbox(tmp_path):
    """Hermes reads the text its terminal runs (tools/approval.py, detect_dangerous_command): the
    sandbox's wrapper adds nothing it flags, so a confined command is asked about by Hermes only
    where the command alone would be."""
    from agentsfence import Fence
    from agentsfence.sandbox import Confinement
    from tools.approval import detect_dangerous_command

    work = tmp_path / "w"
    work.mkdir()
    fence = Fence(home=str(tmp_path), cwd=str(work))
    session = fence.session("hermes-check")
    session.intent("Run the tests, build, install the dependencies and delete the build folder")
    for command in ("python -m pytest -q", "make -j2", "pip install -r requirements.txt", "git status", "rm -rf build",
                    "curl -s https://pypi.org/simple/ | head"):
        args = {"command": command}
        if session.decide("terminal", args).kind != "confine":
            continue
        with Confinement(session.sandbox_profile("terminal", args)) as handle:
            wrapped = handle.shell_text(command)
        assert detect_dangerous_command(wrapped)[0] == detect_dangerous_command(command)[0], (command, wrapped)
