"""Where the fence finds Hermes' homes, and what a policy's `$HERMES_HOME` then protects: asked
of Hermes itself (hermes_constants, the real hermes-agent 0.19), so a profile's home is the same
to the plugin, the shell hooks and the CLI; every profile's state is the fence's to protect."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import hermes_constants
import hermes_cli.plugins as hermes_plugins
import pytest

from agentsfence.hermes import homes
from agentsfence.api import Fence
from agentsfence.hooks import default_state_dir

from .test_hermes import fence_plugin


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Hermes under a profile: HERMES_HOME is <root>/profiles/coder."""
    root = tmp_path / "user-home" / ".hermes"
    home = root / "profiles" / "coder"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


def test_the_state_folder_is_the_one_hermes_names(profile, tmp_path):
    assert homes.hermes_home() == profile and homes.hermes_root() == profile.parent.parent
    assert default_state_dir("hermes") == profile / "agentsfence"
    # Hermes' own override (what its profile switch sets in-process) wins over the environment:
    # the shell hooks follow Hermes, not a reading of HERMES_HOME of their own.
    other = tmp_path / "elsewhere"
    token = hermes_constants.set_hermes_home_override(other)
    try:
        assert default_state_dir("hermes") == other / "agentsfence"
        assert homes.hermes_homes()[0] == str(other)
    finally:
        hermes_constants.reset_hermes_home_override(token)


@pytest.mark.parametrize("value", [
    "{root}/profiles/coder",            # a profile
    "{root}/work",                      # a home inside the default one that is no profile
    "{elsewhere}/data",                 # a home of its own (Docker's /opt/data)
    "{elsewhere}/data/profiles/coder",  # a profile of it
    "  {root}/profiles/coder\n",        # blanks around it, as an env file may leave them
    None,                               # no HERMES_HOME: the default
])
def test_without_hermes_the_homes_are_the_ones_hermes_names(tmp_path, monkeypatch, value):
    """The shell hooks of an agentsfence installed apart from Hermes cannot ask hermes_constants:
    they follow its rules, so they find the state folder and protect the homes the plugin does."""
    root = tmp_path / "user-home" / ".hermes"
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    if value is None:
        monkeypatch.delenv("HERMES_HOME", raising=False)
    else:
        monkeypatch.setenv("HERMES_HOME", value.format(root=root, elsewhere=tmp_path / "elsewhere"))
    with_hermes = (homes.hermes_home(), homes.hermes_root(), homes.hermes_homes(), default_state_dir("hermes"))
    monkeypatch.setitem(sys.modules, "hermes_constants", None)  # `import hermes_constants` now fails
    assert (homes.hermes_home(), homes.hermes_root(), homes.hermes_homes(), default_state_dir("hermes")) == with_hermes


@pytest.mark.parametrize("path", [
    "{home}/agentsfence/policy.afb",              # the running profile's fence
    "{root}/agentsfence/sessions/x.json",         # the root's fence
    "{root}/profiles/other/agentsfence/audit.jsonl",  # another profile's fence
    "{root}/config.yaml",
    "{root}/profiles/other/plugins/evil/__init__.py",
    "{home}/memories/MEMORY.md",
    "{home}/SOUL.md",
    "{home}/cron/jobs.json",
])
def test_every_profile_s_state_is_protected_from_writes(profile, path):
    root = profile.parent.parent
    fence = Fence(home=str(root.parent), cwd=str(root.parent), hermes_homes=homes.hermes_homes())
    target = path.format(home=profile, root=root)
    session = fence.session("s")
    session.intent(f"Write the notes to {target}")  # the user naming it changes nothing
    decision = session.decide("write_file", {"path": target, "content": "x"})
    assert (decision.kind, decision.rule) == ("block", "agent-state-write"), decision.message


def test_a_start_records_the_policy_and_a_changed_one_is_an_event(profile, monkeypatch):
    (profile / "config.yaml").write_text("plugins:\n  enabled: [agentsfence]\n")
    audit = profile / "agentsfence" / "audit.jsonl"

    def start() -> list[dict]:
        fresh = hermes_plugins.PluginManager()
        monkeypatch.setattr(hermes_plugins, "_plugin_manager", fresh)
        fresh.discover_and_load()
        return [json.loads(line) for line in audit.read_text().splitlines()]

    first = start()
    assert [r["event"] for r in first] == ["policy"] and first[0]["why"] == "start"
    assert start()[-1]["event"] == "policy"  # the same policy again: no change to report
    (profile / "agentsfence" / "policy.yaml").write_text("version: 1\nname: mine\nextends: [defaults]\n")
    records = start()
    changed = [r for r in records if r["event"] == "policy_changed"]
    assert len(changed) == 1 and changed[0]["previous_hash"] == first[0]["policy_hash"] != changed[0]["policy_hash"]
    plugin = fence_plugin(hermes_plugins.get_plugin_manager())
    assert "The policy changed (since the last start)" in plugin.describe_session("s")
    shown = subprocess.run([sys.executable, "-m", "agentsfence.cli", "audit", "tail", str(audit)], capture_output=True, text=True)
    line = next(l for l in shown.stdout.splitlines() if "policy_changed" in l)
    assert changed[0]["policy_hash"][:12] in line and f"was {first[0]['policy_hash'][:12]}" in line
