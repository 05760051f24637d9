"""Start-up: a fresh interpreter imports wasmtime, then register() to the first decision.

`python bench/startup.py [RUNS]` prints the start-up table of `make bench` (bench/run.py);
with --one it measures one start in this process and prints JSON. `measure_startup` runs that
in fresh interpreters, in three cases (STARTS): with the package's precompiled module and an
empty module cache (a first start after `pip install` on x86_64 Linux), and without one (other
hosts) with the module cache warm, or empty (fence.wasm compiled).
"""
from __future__ import annotations

import json
import os
import shutil
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
    return {"import_wasmtime_ms": (imported - started) * 1000, "register_to_first_decision_ms": (finished - imported) * 1000,
            "module": hook.__self__.fence.module_source}


# name -> (what it shows, whether the package keeps its precompiled module, whether the module cache is warm)
STARTS = {
    "precompiled": ("the package's precompiled module, module cache empty", True, False),
    "cache": ("no precompiled module, module cache warm", False, True),
    "compile": ("no precompiled module, module cache empty: fence.wasm compiled", False, False),
}


def measure_startup(runs: int) -> dict[str, dict[str, float]]:
    """Median of `runs` fresh interpreters per start in STARTS, interleaved."""
    import agentsfence
    from agentsfence import engine

    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in STARTS}
    # As installed: Python's bytecode cache on (a primed run writes it); only wasm's caches vary.
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        _write_hermes_config(scratch / "hermes")
        # The package as a host without a precompiled module has it, found first on sys.path.
        bare = scratch / "bare"
        shutil.copytree(Path(agentsfence.__file__).parent, bare / "agentsfence",
                        ignore=shutil.ignore_patterns("__pycache__", engine.PRECOMPILED_MODULE, engine.PRECOMPILED_MANIFEST))
        envs = {}
        for name, (_, precompiled, _) in STARTS.items():
            envs[name] = dict(base_env, HERMES_HOME=str(scratch / "hermes"))
            if not precompiled:
                envs[name]["PYTHONPATH"] = os.pathsep.join(filter(None, [str(bare), base_env.get("PYTHONPATH")]))
            _start(envs[name], scratch / f"prime-{name}")  # writes Python's bytecode cache (and warms "cache")
        for run in range(runs):
            for name, (_, precompiled, warm) in STARTS.items():
                sample = _start(envs[name], scratch / (f"prime-{name}" if warm else f"{name}-{run}"))
                expected = engine.FROM_PACKAGE if precompiled else engine.FROM_CACHE if warm else engine.COMPILED
                if sample["module"] != expected:
                    raise RuntimeError(f"start {name!r}: the module was {sample['module']!r}, not {expected!r}")
                samples[name].append(sample)
    return {name: {key: statistics.median(s[key] for s in runs_of) for key in ("import_wasmtime_ms", "register_to_first_decision_ms")}
            for name, runs_of in samples.items()}


def _start(env: dict[str, str], cache: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--one"], env=dict(env, AGENTSFENCE_CACHE=str(cache)), check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _write_hermes_config(home: Path) -> None:
    """Hermes' full default config.yaml, as a Hermes home has one: register() reads its settings there."""
    import yaml
    from hermes_cli.config import DEFAULT_CONFIG

    home.mkdir(parents=True)
    (home / "config.yaml").write_text(yaml.safe_dump(DEFAULT_CONFIG), encoding="utf-8")


def print_startup(results: dict[str, dict[str, float]]) -> None:
    print("\n## Start-up (fresh interpreter; median of runs): import wasmtime, then register() to the first decision")
    for name, values in results.items():
        print(f"{STARTS[name][0]:64} import wasmtime {values['import_wasmtime_ms']:5.1f} ms, then "
              f"{values['register_to_first_decision_ms']:5.1f} ms")


if __name__ == "__main__":
    if sys.argv[1:] == ["--one"]:
        print(json.dumps(_one_start()))
    else:
        print_startup(measure_startup(int(sys.argv[1]) if sys.argv[1:] else 7))
