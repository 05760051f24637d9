"""$HERMES_HOME/agentsfence/policy.yaml as the plugin's policy, and observe mode, in the REAL
Hermes (hooks through hermes_cli.plugins and model_tools.handle_function_call)."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import hermes_cli.plugins as hermes_plugins
from agentsfence import installed as installed_module
from agentsfence import jsengine
from agentsfence.audit import AuditLog, verify
from agentsfence.installed import PolicyFiles

from . import test_hermes
from .test_hermes import call, fence_plugin, fresh_ids, hermes_home, user_turn  # noqa: F401 (fixtures)

NO_ECHO = """version: 1
name: mine
extends: [defaults]
rules:
  - id: no-echo
    effect: block
    capability: [shell.*]
    tool: [terminal]
    when:
      program: {in: [echo]}
    message: "echo is not for this agent"
"""


def load(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> hermes_plugins.PluginManager:
    fresh = hermes_plugins.PluginManager()
    monkeypatch.setattr(hermes_plugins, "_plugin_manager", fresh)
    fresh.discover_and_load()
    return fresh


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Each run of the compiler, by its arguments."""
    runs: list[list[str]] = []
    real = jsengine.run

    def counted(argv: list[str], **kwargs):
        runs.append(argv)
        return real(argv, **kwargs)

    monkeypatch.setattr(jsengine, "run", counted)
    return runs


def records(hermes_home: Path) -> list[dict]:
    return [json.loads(line) for line in (hermes_home / "agentsfence" / "audit.jsonl").read_text().splitlines()]


def write_policy(hermes_home: Path, text: str, name: str = "policy.yaml") -> Path:
    path = hermes_home / "agentsfence" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_the_users_rule_decides_and_the_compilation_is_cached(hermes_home, monkeypatch, compiles):
    write_policy(hermes_home, NO_ECHO)
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    assert plugin.fence.policy_name == "mine" and plugin.policy_error is None
    assert len(compiles) == 1
    user_turn()
    blocked = call("terminal", {"command": "echo hi"})
    assert "echo is not for this agent" in blocked["error"]
    assert "notes.txt" in call("terminal", {"command": "ls"})["output"]
    assert [r["rule"] for r in records(hermes_home) if r["event"] == "decision"][0] == "no-echo"
    # A second process finds the compilation in the cache.
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    assert plugin.fence.policy_name == "mine" and len(compiles) == 1
    manifest = json.loads((hermes_home / "agentsfence" / "compiled" / "policy.json").read_text())
    sources = dict(manifest["sources"])
    assert str(hermes_home / "agentsfence" / "policy.yaml") in sources
    assert any(path.endswith("defaults.yaml") for path in sources)  # what `extends: [defaults]` read


def test_an_edit_takes_effect_at_the_next_turn_and_the_session_is_kept(hermes_home, monkeypatch, compiles):
    base = write_policy(hermes_home, NO_ECHO.replace("name: mine\nextends: [defaults]\n", "name: base\nextends: [defaults]\n"),
                        "base.yaml")
    write_policy(hermes_home, "version: 1\nname: mine\nextends: [./base.yaml]\n")
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    user_turn()
    assert "error" in call("terminal", {"command": "echo hi"})
    assert "error" not in call("write_file", {"path": "summary.md", "content": "# Summary\n"})
    # A file the policy extends changes: the next turn compiles and installs it.
    base.write_text(base.read_text().replace("in: [echo]", "in: [printf]"))
    assert "error" in call("terminal", {"command": "echo hi"})  # not before the turn
    user_turn("and then print hi")
    assert call("terminal", {"command": "echo hi"})["output"].strip() == "hi"
    assert "error" in call("terminal", {"command": "printf hi"})
    # The session's intent came along: the file the first message named may still be written.
    assert "error" not in call("write_file", {"path": "summary.md", "content": "# Summary, again\n"})
    assert len(compiles) == 2 and plugin.fence.policy_name == "mine"
    user_turn("and nothing else")  # nothing changed: no compile
    assert len(compiles) == 2


def test_a_policy_that_does_not_compile_blocks_every_call_with_its_position(hermes_home, monkeypatch, compiles):
    policy = write_policy(hermes_home, NO_ECHO.replace("effect: block", "effect: maybe"))
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    user_turn()
    for tool, args in (("read_file", {"path": "notes.txt"}), ("terminal", {"command": "ls"})):
        blocked = call(tool, args)["error"]
        assert f"{policy}:6:13: error: effect must be one of" in blocked and ": error: " in blocked and "every call is blocked" in blocked, blocked
    assert [r["reason"] for r in records(hermes_home) if r["event"] == "decision"] == ["policy_error"] * 2
    user_turn("again")  # the same broken files: not compiled again
    assert len(compiles) == 1
    policy.write_text(NO_ECHO)  # fixed: the next turn puts it in place
    user_turn("once more")
    assert plugin.policy_error is None and plugin.fence.policy_name == "mine"
    assert "launch in October" in call("read_file", {"path": "notes.txt"})["content"]
    # Broken again while running: blocked again, and the policy's fail_open does not apply.
    policy.write_text("version: 1\nname: [oops\n")
    user_turn("and again")
    assert "policy.yaml:3:1: error: YAML syntax" in call("read_file", {"path": "notes.txt"})["error"]


def test_a_corrupt_cache_is_compiled_again_and_nothing_is_lost(hermes_home, monkeypatch, compiles, caplog):
    write_policy(hermes_home, NO_ECHO)
    load(hermes_home, monkeypatch)
    cache = hermes_home / "agentsfence" / "compiled"
    (afb,) = cache.glob("*.afb")
    afb.write_bytes(b"AFBC" + b"\0" * 60)  # bytecode that does not match its manifest
    with caplog.at_level(logging.WARNING, logger="agentsfence"):
        plugin = fence_plugin(load(hermes_home, monkeypatch))
    assert plugin.fence.policy_name == "mine" and len(compiles) == 2
    assert "does not have the digest its manifest names" in caplog.text
    (cache / "policy.json").write_text("{not json")
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    assert plugin.fence.policy_name == "mine" and len(compiles) == 3
    assert (hermes_home / "agentsfence" / "policy.yaml").read_text() == NO_ECHO
    user_turn()
    assert "echo is not for this agent" in call("terminal", {"command": "echo hi"})["error"]


def test_bytecode_the_evaluator_rejects_under_a_matching_manifest_is_compiled_again(hermes_home, monkeypatch, compiles):
    write_policy(hermes_home, NO_ECHO)
    load(hermes_home, monkeypatch)
    cache = hermes_home / "agentsfence" / "compiled"
    manifest = json.loads((cache / "policy.json").read_text())
    bad = b"AFBC" + b"\x07" * 100
    (cache / f"{manifest['key']}.afb").write_bytes(bad)
    import hashlib

    manifest["sha256"] = hashlib.sha256(bad).hexdigest()
    (cache / "policy.json").write_text(json.dumps(manifest))
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    assert plugin.fence.policy_name == "mine" and plugin.policy_error is None and len(compiles) == 2


def test_policy_yaml_comes_before_policy_afb_and_a_deleted_one_gives_way(hermes_home, monkeypatch):
    from agentsfence.compiler import compile_policy

    other = write_policy(hermes_home, "version: 1\nname: from-afb\nextends: [defaults]\n", "other.yaml")
    compile_policy([other], hermes_home / "agentsfence" / "policy.afb")
    policy = write_policy(hermes_home, NO_ECHO)
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    assert plugin.fence.policy_name == "mine"
    policy.unlink()
    user_turn()
    assert plugin.fence.policy_name == "from-afb"
    (hermes_home / "agentsfence" / "policy.afb").unlink()
    user_turn("next")
    assert plugin.fence.policy_name == "hermes-defaults"


def test_a_read_only_cache_still_compiles(tmp_path, monkeypatch, caplog):
    state = tmp_path / "state"
    state.mkdir()
    (state / "policy.yaml").write_text(NO_ECHO)
    (state / "compiled").write_text("a file where the cache directory would be")
    with caplog.at_level(logging.WARNING, logger="agentsfence"):
        found = PolicyFiles(state).current()
    assert found.error is None and found.bytecode and not found.cached
    assert "cannot be cached" in caplog.text


def test_the_shell_hook_uses_policy_yaml(tmp_path):
    from agentsfence.hooks import answer

    state = tmp_path / "state"
    state.mkdir()
    (state / "policy.yaml").write_text(NO_ECHO)
    event = {"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {"command": "echo hi"},
             "session_id": "s", "cwd": str(tmp_path)}
    result = answer("hermes", json.dumps(event), state_dir=state)
    assert result.status == 2 and "echo is not for this agent" in result.stdout
    (state / "policy.yaml").write_text("version: 1\nname: [oops\n")
    result = answer("hermes", json.dumps(event), state_dir=state)
    assert result.status == 2 and "policy.yaml:3:1: error: YAML syntax" in result.stdout


# ---- observe mode ----

def test_observe_mode_records_what_enforce_would_do_and_blocks_nothing(hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\nagentsfence:\n  mode: observe\n")
    write_policy(hermes_home, NO_ECHO)
    plugin = fence_plugin(load(hermes_home, monkeypatch))
    assert plugin.settings.mode == "observe"
    user_turn()
    assert call("terminal", {"command": "echo observed"})["output"].strip() == "observed"  # enforce: blocked
    outside = test_hermes.Path(".elsewhere.md")
    assert "error" not in call("write_file", {"path": str(outside.resolve()), "content": "x"})  # enforce: asked
    assert outside.exists()
    decisions = [r for r in records(hermes_home) if r["event"] == "decision"]
    assert [(r["tool"], r["kind"], r.get("mode")) for r in decisions] == [
        ("terminal", "block", "observe"), ("write_file", "ask", "observe")]
    assert decisions[0]["rule"] == "no-echo"
    outcomes = [r for r in records(hermes_home) if r["event"] == "outcome"]
    assert [r["status"] for r in outcomes] == ["ok", "ok"]
    assert verify(hermes_home / "agentsfence" / "audit.jsonl").ok


def test_observe_mode_still_blocks_when_the_policy_does_not_compile(hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\nagentsfence: {mode: observe}\n")
    write_policy(hermes_home, "version: 1\nname: [oops\n")
    load(hermes_home, monkeypatch)
    user_turn()
    assert "policy.yaml:3:1: error: YAML syntax" in call("read_file", {"path": "notes.txt"})["error"]


def test_an_unknown_mode_blocks_every_call(hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\nagentsfence: {mode: watch}\n")
    load(hermes_home, monkeypatch)
    user_turn()
    assert "agentsfence.mode must be one of enforce, observe" in call("read_file", {"path": "notes.txt"})["error"]


def test_a_warned_rule_is_on_the_record(tmp_path):
    from agentsfence.api import Decision

    log = AuditLog(tmp_path / "audit.jsonl")
    log.decision("s", "terminal", "c1", {"command": "ls"},
                 Decision("allow", "rule_allow", "", "shell.run", "exec", "ok", warned=("shell-watch", "any-exec")), 1.0)
    log.decision("s", "terminal", "c2", {"command": "ls"}, Decision("allow", "rule_allow", "", "shell.run", "exec", "ok"), 1.0)
    first, second = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert first["warned"] == ["shell-watch", "any-exec"] and "warned" not in second
    assert verify(tmp_path / "audit.jsonl").ok


def test_the_cache_key_covers_every_source_and_the_compiler(tmp_path):
    key = installed_module._key
    files = [("/a.yaml", "1" * 64), ("/b.yaml", "absent")]
    assert key("c", files) == key("c", list(reversed(files)))
    assert key("c", files) != key("d", files) != key("c", files[:1])


def test_observe_mode_still_blocks_a_fault(hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\nagentsfence: {mode: observe}\n")
    load(hermes_home, monkeypatch)
    # A nested call whose task belongs to no conversation: nothing says what the user asked for.
    blocked = call("read_file", {"path": "notes.txt"}, session_id="", task_id="a-task-nobody-started")
    assert "belongs to no conversation" in blocked["error"]
    (record,) = [r for r in records(hermes_home) if r["event"] == "decision"]
    assert record["reason"] == "unknown_task" and "mode" not in record
