"""A call budget in the real `hermes chat`: the scripted model asks for four writes in one answer,
Hermes runs them on its worker threads at once, and a policy that allows two writes per session
lets exactly two run. `hermes chat --resume` then finds the budget spent."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from demo import HERMES_TIMEOUT_SECONDS, hermes_command, read_decisions, write_hermes_home  # noqa: E402
from model_server import ScriptedModelServer  # noqa: E402

from agentsfence.compiler import compile_policy  # noqa: E402

POLICY = """version: 1
name: two-writes
extends: [defaults]
budgets:
  - {id: two-writes, capability: [file.write], limit: 2}
"""
FILES = ["a.md", "b.md", "c.md", "d.md"]
PROMPT = "Write a.md, b.md, c.md and d.md with one line each"
BATCH = [("write_file", {"path": name, "content": f"{name}\n"}) for name in FILES]


def run_hermes(root: Path, script: list, *args: str) -> subprocess.CompletedProcess[str]:
    server = ScriptedModelServer(script=script)
    server.start()
    hermes_home = root / "home" / ".hermes"
    try:
        if not hermes_home.exists():
            write_hermes_home(hermes_home, server.port)
        else:  # the same home on a new port
            config = json.loads((hermes_home / "config.yaml").read_text())
            config["model"]["base_url"] = f"http://127.0.0.1:{server.port}/v1"
            (hermes_home / "config.yaml").write_text(json.dumps(config))
        (hermes_home / "agentsfence").mkdir(exist_ok=True)
        source = root / "two-writes.yaml"
        source.write_text(POLICY)
        compile_policy([source], hermes_home / "agentsfence" / "policy.afb")
        env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
        env.update(HOME=str(root / "home"), HERMES_HOME=str(hermes_home), XDG_CACHE_HOME=str(root / "cache"), NO_COLOR="1")
        return subprocess.run([hermes_command(), "chat", "-Q", *args], cwd=root / "work", env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=HERMES_TIMEOUT_SECONDS)
    finally:
        server.shutdown()
        server.server_close()


def test_hermes_runs_the_batch_on_its_parallel_path():
    """What makes the next test concurrent: Hermes' planner puts writes to distinct files in one
    parallel segment (agent/tool_dispatch_helpers.py), which runs on a thread pool."""
    from agent.tool_dispatch_helpers import _plan_tool_batch_segments

    calls = [SimpleNamespace(id=f"c{i}", function=SimpleNamespace(name=name, arguments=json.dumps(args)))
             for i, (name, args) in enumerate(BATCH)]
    assert [(kind, len(segment)) for kind, segment in _plan_tool_batch_segments(calls)] == [("parallel", 4)]


def test_a_batch_of_concurrent_writes_cannot_overshoot_the_budget_and_resume_keeps_it(tmp_path: Path):
    (tmp_path / "work").mkdir()
    done = run_hermes(tmp_path, [BATCH, None], "-q", PROMPT)
    assert done.returncode == 0, done.stderr[-3000:]
    hermes_home = tmp_path / "home" / ".hermes"
    decisions = read_decisions(hermes_home / "agentsfence" / "audit.jsonl")
    assert sorted(d["tool"] for d in decisions) == ["write_file"] * 4
    assert sorted((d["kind"], d["reason"]) for d in decisions) == [
        ("allow", "rule_allow"), ("allow", "rule_allow"), ("block", "budget_exhausted"), ("block", "budget_exhausted")]
    written = [name for name in FILES if (tmp_path / "work" / name).exists()]
    assert len(written) == 2
    from agentsfence.store.sqlite import SQLiteStore

    [saved] = SQLiteStore(hermes_home / "agentsfence" / "state.db").sessions()
    assert saved.spent == {"two-writes": 2_000_000}  # two calls, committed by post_tool_call (store units)
    from agentsfence.report import build

    budget = build(hermes_home / "agentsfence" / "audit.jsonl").as_json()["budgets"]["two-writes"]
    assert budget == {"limit": 2, "units_spent": 2, "sessions": 1, "most_in_one_session": 2, "blocked": 2}

    resumed = run_hermes(tmp_path, [("write_file", {"path": "e.md", "content": "e\n"}), None],
                         "--resume", saved.session_id, "-q", "Also write e.md")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    later = read_decisions(hermes_home / "agentsfence" / "audit.jsonl")[4:]
    # (Hermes 0.19 may ask the model twice on a resumed turn; every attempt is refused.)
    assert later and {(d["tool"], d["kind"], d["reason"]) for d in later} == {("write_file", "block", "budget_exhausted")}
    assert not (tmp_path / "work" / "e.md").exists()
