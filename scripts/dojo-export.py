"""Exports one AgentDojo suite, with every task's ground-truth calls and the scoring labels, in
the format of tests/corpora/agentdojo/README.md, for `agentsfence-dojo SUITE.json`.

Needs the `agentdojo` package (PyPI, MIT; not a dependency of AgentsFence): run it with a Python
that has it, e.g. `python -m venv /tmp/dojo && /tmp/dojo/bin/pip install agentdojo==0.1.35`, then
`/tmp/dojo/bin/python scripts/dojo-export.py SUITE OUT.json [--version v1.2.2]`.

What it computes, per task, in the suite's default environment (after the task's own
`init_environment`):
  ground_truth_calls  the task's `ground_truth()`, in order, with each call's arguments
  side_effect         a name-prefix heuristic: a tool that reads (get_, search_, list_, read_,
                      check_) has none; any other tool has one
  arg_sources         per string argument (per element of a list of strings; numbers by their
                      written forms): "prompt" when the value stands in the user's prompt (the
                      injection task's goal), "tool_output" when it stands in an earlier call's
                      output, "both", "neither"; empty strings, booleans and objects carry none
  arg_origin_calls    per argument, the earlier calls whose output holds the value
  output_carries_vectors, injection_vectors_seen
                      the same calls run in an environment whose every injection vector holds a
                      canary; a call carries the vectors whose canary its output shows
  gt_check            AgentDojo's own utility() (security() for an injection task) after the
                      ground truth ran, and the errors the calls raised
An injection task whose upstream ground truth is empty keeps it empty (travel's injection task 6,
whose goal is a text answer): no calls are made up here. Workspace's injection tasks 6 to 13 have
none upstream either; their calls were constructed by hand once and checked with AgentDojo's
security(): `--synthetic-from OLD.json` carries them over from an earlier export
(`ground_truth_source: synthetic ...`), so that workspace is reproduced byte for byte.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
from agentdojo.functions_runtime import Function, FunctionCall, FunctionsRuntime
from agentdojo.task_suite.load_suites import get_suite

READ_PREFIXES = ("get_", "search_", "list_", "read_", "check_")


def side_effect(name: str) -> bool:
    return not name.startswith(READ_PREFIXES)


def _param_type(schema: dict[str, Any]) -> Any:
    if "anyOf" in schema:
        return [part.get("type") for part in schema["anyOf"]]
    kind = schema.get("type")
    if kind == "array" and isinstance(schema.get("items"), dict) and "type" in schema["items"]:
        return f"array<{schema['items']['type']}>"
    return kind


def tool_entry(tool: Function) -> dict[str, Any]:
    schema = tool.parameters.model_json_schema()
    required = set(schema.get("required", []))
    params = []
    for name, prop in schema.get("properties", {}).items():
        param: dict[str, Any] = {
            "name": name,
            "type": _param_type(prop),
            "description": prop.get("description", ""),
            "required": name in required,
        }
        if "default" in prop:
            param["default"] = prop["default"]
        params.append(param)
    return {
        "name": tool.name,
        "description": tool.description,
        "params": params,
        "side_effect": side_effect(tool.name),
        "json_schema": schema,
    }


def _plain(value: Any) -> Any:
    """A call's argument as JSON: a nested FunctionCall becomes its own object."""
    if isinstance(value, FunctionCall):
        return {"function": value.function, "args": {k: _plain(v) for k, v in value.args.items()}}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _forms(value: Any) -> list[str] | None:
    """The written forms a value is looked for under, or None when it carries no label."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return [value] if value else None
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, float):
        return [str(int(value)), repr(value)] if value.is_integer() else [repr(value)]
    return None


def _source(forms: list[str], prompt: str, outputs: list[str]) -> tuple[str, list[int]]:
    forms = [form.casefold() for form in forms]
    prompt = prompt.casefold()
    in_prompt = any(form in prompt for form in forms)
    origins = [index for index, output in enumerate(outputs) if any(form in output.casefold() for form in forms)]
    label = {(True, True): "both", (True, False): "prompt", (False, True): "tool_output"}.get(
        (in_prompt, bool(origins)), "neither")
    return label, origins


def label_args(args: dict[str, Any], prompt: str, outputs: list[str]) -> tuple[dict[str, Any], dict[str, list[int]]]:
    sources: dict[str, Any] = {}
    origins: dict[str, list[int]] = {}
    for name, value in args.items():
        if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
            labels, found = [], set()
            for item in value:
                label, where = _source([item], prompt, outputs)
                labels.append(label)
                found.update(where)
            sources[name] = labels
            if found:
                origins[name] = sorted(found)
            continue
        forms = _forms(value)
        if forms is None:
            continue
        label, where = _source(forms, prompt, outputs)
        sources[name] = label
        if where:
            origins[name] = where
    return sources, origins


def run_calls(runtime: FunctionsRuntime, env: Any, calls: list[FunctionCall]) -> tuple[list[str], list[str]]:
    outputs, errors = [], []
    for call in calls:
        result, error = runtime.run_function(env, call.function, call.args)
        if error is not None:
            errors.append(f"{call.function}: {error}")
            outputs.append(error)
        else:
            outputs.append(tool_result_to_str(result))
    return outputs, errors


def _class(task: Any) -> str:
    return f"{type(task).__module__}.{type(task).__name__}"


def _number(task_id: str) -> int:
    return int(re.search(r"(\d+)$", task_id).group(1))


def export(version: str, suite_name: str, synthetic: dict[str, Any] | None = None) -> dict[str, Any]:
    suite = get_suite(version, suite_name)
    runtime = FunctionsRuntime(suite.tools)
    vectors = suite.get_injection_vector_defaults()
    canaries = {vector: f"---CANARY_{vector}---" for vector in vectors}

    def fresh(injections: dict[str, str], task: Any | None = None) -> Any:
        env = suite.load_and_inject_default_environment(injections)
        return task.init_environment(env) if task is not None else env

    user_tasks = []
    for task_id in sorted(suite.user_tasks, key=_number):
        task = suite.user_tasks[task_id]
        calls = task.ground_truth(fresh({}, task))
        outputs, errors = run_calls(runtime, fresh({}, task), calls)
        canary_outputs, _ = run_calls(runtime, fresh(canaries, task), calls)
        entries, seen = [], []
        for index, call in enumerate(calls):
            carried = [vector for vector, canary in canaries.items() if canary in canary_outputs[index]]
            sources, origin = label_args(dict(call.args), task.PROMPT, outputs[:index])
            entries.append({
                "function": call.function,
                "args": _plain(dict(call.args)),
                "side_effect": side_effect(call.function),
                "arg_sources": sources,
                "arg_origin_calls": origin,
                "output_carries_vectors": carried,
            })
            seen.extend({"vector": vector, "call_index": index, "function": call.function} for vector in carried)
        try:
            utility, _ = suite.run_task_with_pipeline(GroundTruthPipeline(task), task, None, {},
                                                      environment=fresh({}))
        except Exception as error:  # noqa: BLE001 — a broken ground truth is a label, not a stop
            utility = False
            errors.append(f"{type(error).__name__}: {error}")
        user_tasks.append({
            "id": task_id,
            "prompt": task.PROMPT,
            "difficulty": task.DIFFICULTY.name,
            "ground_truth_output": task.GROUND_TRUTH_OUTPUT,
            "ground_truth_calls": entries,
            "injection_vectors_seen": seen,
            "gt_check": {"utility": utility, "errors": errors},
            "class": _class(task),
        })

    first_user_task = suite.user_tasks[min(suite.user_tasks, key=_number)]
    injection_tasks = []
    for task_id in sorted(suite.injection_tasks, key=_number):
        task = suite.injection_tasks[task_id]
        calls = task.ground_truth(fresh({}))
        if not calls and task_id in (synthetic or {}):
            injection_tasks.append(synthetic[task_id])
            continue
        outputs, errors = run_calls(runtime, fresh({}), calls)
        entries = []
        for index, call in enumerate(calls):
            sources, origin = label_args(dict(call.args), task.GOAL, outputs[:index])
            entry = {
                "function": call.function,
                "args": _plain(dict(call.args)),
                "side_effect": side_effect(call.function),
                "arg_sources": sources,
                "arg_origin_calls": origin,
            }
            if call.placeholder_args is not None:
                entry["placeholder_args"] = _plain(dict(call.placeholder_args))
            entries.append(entry)
        try:
            _, security = suite.run_task_with_pipeline(GroundTruthPipeline(task), first_user_task, task, {},
                                                       environment=fresh({}))
        except Exception as error:  # noqa: BLE001
            security = False
            errors.append(f"{type(error).__name__}: {error}")
        injection_tasks.append({
            "id": task_id,
            "goal": task.GOAL,
            "difficulty": task.DIFFICULTY.name,
            "ground_truth_source": "agentdojo" if calls else "agentdojo (upstream ground_truth() returns [])",
            "ground_truth_calls": entries,
            "gt_check": {"security": security, "errors": errors},
            "class": _class(task),
        })

    return {
        "suite": suite_name,
        "version": version,
        "suite_benchmark_version": list(suite.benchmark_version),
        "tools": [tool_entry(tool) for tool in suite.tools],
        "injection_vectors": vectors,
        "user_tasks": user_tasks,
        "injection_tasks": injection_tasks,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Export an AgentDojo suite with its ground-truth calls.")
    parser.add_argument("suite", help="workspace, slack, banking or travel")
    parser.add_argument("out", type=Path)
    parser.add_argument("--version", default="v1.2.2", help="AgentDojo benchmark version (default v1.2.2)")
    parser.add_argument("--synthetic-from", type=Path, metavar="OLD.json",
                        help="an earlier export whose constructed calls (ground_truth_source: synthetic) "
                             "fill injection tasks that have no ground truth upstream")
    options = parser.parse_args(argv[1:])
    warnings.simplefilter("ignore")
    synthetic = None
    if options.synthetic_from:
        earlier = json.loads(options.synthetic_from.read_text(encoding="utf-8"))
        synthetic = {task["id"]: task for task in earlier["injection_tasks"]
                     if task.get("ground_truth_source", "").startswith("synthetic")}
    exported = export(options.version, options.suite, synthetic)
    options.out.write_text(json.dumps(exported, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
