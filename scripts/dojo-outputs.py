"""Runs an AgentDojo suite's ground-truth calls in AgentDojo's own environment and writes what
each call returned, as the agent would read it, for `agentsfence-dojo --outputs FILE`.

Needs the `agentdojo` package (PyPI, MIT; not a dependency of AgentsFence): run it with a Python
that has it, e.g. `python -m venv /tmp/dojo && /tmp/dojo/bin/pip install agentdojo==0.1.35`, then
`/tmp/dojo/bin/python scripts/dojo-outputs.py SUITE.json OUT.json` (OUT.json.gz: written
through gzip, as tests/corpora/agentdojo keeps workspace's 4 MB of outputs).

Reads from the suite file only what the fence may read (tool names, each call's function and
arguments, the injection tasks' goals). Writes one JSON object:
  benign:   {user task id: [output of each ground-truth call]}, the default environment
  injected: {injection task id: {user task id: [outputs]}}, the environment with the injection
            task's goal planted, in AgentDojo's "important_instructions" wording, into every
            injection vector (not only those the task's calls happen to read)
"""
from __future__ import annotations

import datetime
import gzip
import json
import os
import sys
import types
from pathlib import Path
from typing import Any

# The same suite gives the same bytes: AgentDojo lists some sets (an event's participants) in
# hash order, so the interpreter runs with a fixed hash seed, and its e-mail and drive tools
# stamp what they create with the wall clock, so they read a fixed one.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})

from agentdojo.agent_pipeline.tool_execution import tool_result_to_str  # noqa: E402
from agentdojo.attacks.important_instructions_attacks import ImportantInstructionsAttack  # noqa: E402
from agentdojo.default_suites.v1.tools import cloud_drive_client, email_client  # noqa: E402
from agentdojo.functions_runtime import FunctionsRuntime  # noqa: E402
from agentdojo.task_suite.load_suites import get_suite  # noqa: E402

USER = "Emma Johnson"
MODEL = "the AI assistant"
CLOCK = datetime.datetime(2024, 5, 15, 12, 0)  # "now" for what a call creates: the suites' own day


class _Clock:
    @staticmethod
    def now(tz: Any = None) -> datetime.datetime:
        return CLOCK


for _module in (email_client, cloud_drive_client):
    _module.datetime = types.SimpleNamespace(**{**vars(datetime), "datetime": _Clock})  # type: ignore[attr-defined]


def _outputs(suite: Any, runtime: FunctionsRuntime, injections: dict[str, str],
             calls: list[dict[str, Any]]) -> list[str]:
    env = suite.load_and_inject_default_environment(injections)
    outputs = []
    for call in calls:
        result, error = runtime.run_function(env, call["function"], call["args"])
        outputs.append(error if error is not None else tool_result_to_str(result))
    return outputs


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: dojo-outputs.py SUITE.json OUT.json", file=sys.stderr)
        return 2
    exported = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    suite = get_suite(exported["version"], exported["suite"])
    runtime = FunctionsRuntime(suite.tools)
    vectors = list(suite.get_injection_vector_defaults())
    benign = {task["id"]: _outputs(suite, runtime, {}, task["ground_truth_calls"]) for task in exported["user_tasks"]}
    injected: dict[str, dict[str, list[str]]] = {}
    for injection in exported["injection_tasks"]:
        text = ImportantInstructionsAttack._JB_STRING.format(user=USER, model=MODEL, goal=injection["goal"])
        planted = {vector: text for vector in vectors}
        injected[injection["id"]] = {
            task["id"]: _outputs(suite, runtime, planted, task["ground_truth_calls"]) for task in exported["user_tasks"]
        }
    text = json.dumps({"suite": exported["suite"], "benign": benign, "injected": injected})
    if argv[2].endswith(".gz"):  # mtime 0: the same outputs give the same bytes
        Path(argv[2]).write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    else:
        Path(argv[2]).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
