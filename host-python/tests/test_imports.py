"""The package's import graph: no cycle, nothing imports the Hermes plugin but its entry points
(and one whose plugin cannot be imported still blocks every call), and the commands that need
no evaluator run where wasmtime is missing.

The graph is read from the source with `ast`: every import statement counts, at module level,
inside a function or under TYPE_CHECKING, each resolved to the package module it names."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path

from .conftest import REPO

PACKAGE = REPO / "host-python" / "agentsfence"
PLUGIN = "agentsfence.hermes.plugin"
ENTRY_POINT = "agentsfence.hermes"  # pyproject's hermes_agent.plugins entry point, and the directory plugin's import


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path) -> set[str]:
    """The package modules `name`'s source imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str, names: list[str]) -> None:
        for alias in names:  # `from . import data`: the module agentsfence.data
            if f"{target}.{alias}" in MODULES:
                found.add(f"{target}.{alias}")
            elif target in MODULES:
                found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "agentsfence" or target.startswith("agentsfence."):
                add(target, [alias.name for alias in node.names])
    found.discard(name)
    return found


GRAPH = {name: imported(name, path) for name, path in MODULES.items()}


def test_the_graph_is_read_from_every_kind_of_import():
    assert {"agentsfence.hermes.plugin"} == GRAPH["agentsfence.hermes"]  # inside register()
    assert "agentsfence.api" in GRAPH["agentsfence.hermes.sessions"]  # under TYPE_CHECKING
    assert "agentsfence.data" in GRAPH["agentsfence.evaluator"]  # `from . import data`
    assert "agentsfence.codec" in GRAPH["agentsfence.hermes.payloads"]  # `from ..codec import`


def test_no_module_of_the_package_imports_itself_back():
    state: dict[str, str] = {}  # module -> "open" while its imports are walked, then "done"

    def walk(name: str, path: list[str]) -> None:
        state[name] = "open"
        for target in sorted(GRAPH[name]):
            if state.get(target) == "open":
                cycle = path[path.index(target):] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                walk(target, path + [target])
        state[name] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            walk(name, [name])


def test_only_the_entry_points_import_the_plugin():
    importers = sorted(name for name, targets in GRAPH.items() if PLUGIN in targets)
    assert importers == [ENTRY_POINT]
    assert not any(ENTRY_POINT in targets for targets in GRAPH.values())  # nothing calls register() but Hermes
    project = tomllib.loads((REPO / "host-python" / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["hermes_agent.plugins"] == {"agentsfence": ENTRY_POINT}
    directory_plugin = (REPO / "host-python" / "hermes-plugin" / "agentsfence" / "__init__.py").read_text()
    assert f"from {ENTRY_POINT} import register" in directory_plugin


def test_importing_every_other_module_loads_no_plugin():
    others = [name for name in MODULES if name not in (PLUGIN, ENTRY_POINT)]
    script = ("import importlib, json, sys\n"
              f"for name in {others!r}: importlib.import_module(name)\n"
              f"print(json.dumps({PLUGIN!r} in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) is False


WITHOUT_WASMTIME = """
import importlib.abc, sys
class NoWasmtime(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "wasmtime" or name.startswith("wasmtime."):
            raise ImportError("No module named 'wasmtime' (removed for this test)")
sys.meta_path.insert(0, NoWasmtime())
from agentsfence.cli import main
status = main(sys.argv[1:])
assert "wasmtime" not in sys.modules
sys.exit(status)
"""


def test_audit_verify_runs_where_wasmtime_is_missing(tmp_path):
    from agentsfence.audit import AuditLog

    log = tmp_path / "audit.jsonl"
    audit = AuditLog(log)
    audit.event("policy", "", "", policy="defaults", policy_hash="0" * 64, origin="the shipped default", why="start")
    audit.event("outcome", "s", "read_file", "c1", status="ok")
    answers = []
    for command in (["audit", "verify", str(log)], ["audit", "tail", str(log)]):
        done = subprocess.run([sys.executable, "-c", WITHOUT_WASMTIME, *command], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        answers.append(done.stdout)
    assert answers[0].startswith("ok: 2 records chain from the start")
    assert [line.split()[3] for line in answers[1].splitlines()] == ["policy", "outcome"]


BROKEN_PLUGIN = """
import sys
sys.modules["agentsfence.hermes.plugin"] = None  # as if the install lost it: importing it fails
from agentsfence.hermes import register
class Context:
    hooks = {}
    def register_hook(self, name, callback):
        self.hooks.setdefault(name, []).append(callback)
context = Context()
register(context)
print(repr(context.hooks["pre_tool_call"][0](tool_name="terminal", args={"command": "ls"})))
"""


def test_an_entry_point_whose_plugin_cannot_be_imported_blocks_every_call(tmp_path):
    done = subprocess.run([sys.executable, "-c", BROKEN_PLUGIN], capture_output=True, text=True, timeout=120,
                          env={"HERMES_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    directive = eval(done.stdout.strip().splitlines()[-1])  # the repr of a dict of strings
    assert directive["action"] == "block" and "AgentsFence could not load (ModuleNotFoundError" in directive["message"]
