"""The documentation's facts that Python holds: the table of plugin settings (docs/hermes.md), the README's
quick start, run as written; the plugin manifest's hooks; the reason codes of docs/bytecode.md."""
from __future__ import annotations

import ast
import dataclasses
import itertools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from agentsfence.settings import Settings

from .conftest import REPO


def table_rows(markdown: str, heading: str) -> list[list[str]]:
    section = markdown.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_the_settings_table_lists_every_setting_with_its_default():
    rows = table_rows((REPO / "docs" / "hermes.md").read_text(), "Settings, state and commands inside Hermes")
    documented = {key.strip("`"): default.strip("`") for key, default, *_ in rows}
    actual = {f.name: str(f.default).lower() if isinstance(f.default, bool) else str(f.default)
              for f in dataclasses.fields(Settings)}
    assert documented == actual


def quick_start_commands(heading: str = "From the source") -> list[str]:
    readme = (REPO / "README.md").read_text()
    section = readme.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines() if line.split("#", 1)[0].strip()]


def test_the_quick_start_enables_the_plugin_in_an_existing_hermes(tmp_path):
    assert quick_start_commands()[:2] == ["make demo", "make test"]
    # The rest of the install section runs in tests/e2e/test_wheel.py, from the wheel.
    (enable,) = [c for c in quick_start_commands("Install") if c.startswith("hermes plugins enable")]
    hermes = Path(sys.executable).with_name("hermes")
    env = {"HERMES_HOME": str(tmp_path), "HOME": str(tmp_path), "PATH": str(hermes.parent)}
    done = subprocess.run([str(hermes), *shlex.split(enable)[1:]], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert "agentsfence" in config["plugins"]["enabled"]
    listed = subprocess.run([str(hermes), "plugins", "list"], capture_output=True, text=True, env=env,
                            stdin=subprocess.DEVNULL, timeout=120)
    assert re.search(r"agentsfence\s+│\s+enabled", listed.stdout), listed.stdout


def test_the_plugin_manifest_lists_every_hook_the_plugin_registers(tmp_path, monkeypatch):
    from agentsfence.hermes import register

    class Context:  # what register() calls on Hermes' plugin context
        def __init__(self):
            self.hooks: list[str] = []

        def register_hook(self, name, callback):
            self.hooks.append(name)

        def register_command(self, *args, **kwargs):
            pass

        register_cli_command = register_command

    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    context = Context()
    register(context)
    manifest = yaml.safe_load((REPO / "host-python" / "hermes-plugin" / "agentsfence" / "plugin.yaml").read_text())
    assert len(context.hooks) > 1 and sorted(manifest["hooks"]) == sorted(context.hooks)


def documented_reasons() -> set[str]:
    """The reason codes in the reason table of docs/bytecode.md §8.1."""
    section = (REPO / "docs" / "bytecode.md").read_text().split("\n### 8.1 ", 1)[1].split("\n### ", 1)[0]
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| reason |"))
    rows = itertools.takewhile(lambda line: line.startswith("|"), lines[start + 2:])  # past the header and separator
    cells = (row.strip("|").split("|")[0].strip() for row in rows)
    return {code for cell in cells if cell.startswith("`") for code in re.findall(r"`([a-z_]+)`", cell)}


def host_reasons() -> set[str]:
    """Every reason code the Python package emits: the reason of each host_decision and Decision it
    makes, and the [code] that ends each message it writes itself ("AgentsFence blocked ...")."""
    found: set[str] = set()
    for path in (REPO / "host-python" / "agentsfence").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in ("host_decision", "_host_decision", "Decision"):
                    found.add(node.args[1].value)
            elif isinstance(node, (ast.JoinedStr, ast.Constant)):
                parts = [v.value for v in node.values if isinstance(v, ast.Constant)] if isinstance(node, ast.JoinedStr) \
                    else [node.value]
                text = "".join(p for p in parts if isinstance(p, str))
                if text.startswith("AgentsFence ") and (match := re.search(r"\[([a-z_]+)\]$", text)):
                    found.add(match[1])
    return found


def test_every_reason_the_host_emits_is_in_the_reason_table():
    emitted = host_reasons()
    assert {"unknown_task", "no_tool_call_id", "unattended_approval", "plugin_conflict", "host_error", "fail_open",
            "policy_error", "engine_fault", "bad_arguments"} <= emitted  # the scan finds them
    assert emitted - documented_reasons() == set()
