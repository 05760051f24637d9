"""Start-up: a fresh interpreter imports wasmtime, then register() to the first decision.

Run as a script it measures one start in this process and prints JSON; `measure_startup`
runs it in fresh interpreters with the compiled-module cache cold (an empty directory) or warm.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class _Manager:
    def __init__(self) -> None:
        self._hooks: dict[str, list[Any]] = {}


class _Context:
    """The part of Hermes' plugin context register() uses."""

    def __init__(self) -> None:
        self._manager = _Manager()

    def register_hook(self, name: str, callback: Any) -> None:
        self._manager._hooks.setdefault(name, []).append(callback)

    def register_command(self, name: str, handler: Any, **kwargs: Any) -> None:
        pass  # the /fence command: no part of a decision

    def register_cli_command(self, name: str, *args: Any, **kwargs: Any) -> None:
        pass  # `hermes fence`: no part of a decision


def _one_start() -> dict[str, float]:
    # Inside Hermes its own modules are loaded before any plugin: the fence reads the task's
    # working directory through this one, so it is imported before the clock starts.
    import tools.terminal_tool  # noqa: F401

    started = time.perf_counter()
    import wasmtime  # noqa: F401

    imported = time.perf_counter()
    from agentsfence.hermes import register

    context = _Context()
    register(context)
    hook = context._manager._hooks["pre_tool_call"][0]
    hook(tool_name="read_file", args={"path": "README.md"}, task_id="t", session_id="s")
    finished = time.perf_counter()
    return {"import_wasmtime_ms": (imported - started) * 1000, "register_to_first_decision_ms": (finished - imported) * 1000}


def measure_startup(runs: int) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    # As installed: Python's bytecode cache on (a primed run writes it); only wasm's cache varies.
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as scratch:
        _write_hermes_config(Path(scratch) / "hermes")
        prime = dict(base_env, AGENTSFENCE_CACHE=str(Path(scratch) / "prime"), HERMES_HOME=str(Path(scratch) / "hermes"))
        subprocess.run([sys.executable, __file__], env=prime, check=True, capture_output=True)
        for cache in ("cold", "warm"):
            samples = []
            for run in range(runs):
                cache_dir = Path(scratch) / (f"cold{run}" if cache == "cold" else "warm")
                env = dict(base_env, AGENTSFENCE_CACHE=str(cache_dir), HERMES_HOME=str(Path(scratch) / "hermes"))
                if cache == "warm" and run == 0:  # fills the cache
                    subprocess.run([sys.executable, __file__], env=env, check=True, capture_output=True)
                done = subprocess.run([sys.executable, __file__], env=env, check=True, capture_output=True, text=True)
                samples.append(json.loads(done.stdout.strip().splitlines()[-1]))
            results[cache] = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
    return results


def _write_hermes_config(home: Path) -> None:
    """Hermes' full default config.yaml, as a Hermes home has one: register() reads its settings there."""
    import yaml
    from hermes_cli.config import DEFAULT_CONFIG

    home.mkdir(parents=True)
    (home / "config.yaml").write_text(yaml.safe_dump(DEFAULT_CONFIG), encoding="utf-8")


if __name__ == "__main__":
    print(json.dumps(_one_start()))
