"""The documentation's facts that Python holds: the README's table of plugin settings, and its
quick start, run as written."""
from __future__ import annotations

import dataclasses
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
    rows = table_rows((REPO / "README.md").read_text(), "Settings, state and commands inside Hermes")
    documented = {key.strip("`"): default.strip("`") for key, default, *_ in rows}
    actual = {f.name: str(f.default).lower() if isinstance(f.default, bool) else str(f.default)
              for f in dataclasses.fields(Settings)}
    assert documented == actual


def quick_start_commands(heading: str = "Quick start") -> list[str]:
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
