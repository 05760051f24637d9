"""The shared decision vectors (tests/vectors/*.yaml) through the packaged Python engine.

tests/vectors.test.ts runs the same cases through fence.wasm in Node: both must agree.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agentsfence import Fence

from .conftest import REPO

VECTOR_FILES = sorted((REPO / "tests" / "vectors").glob("*.yaml"))


def load_cases() -> list[Any]:
    cases = []
    for path in VECTOR_FILES:
        suite = yaml.safe_load(path.read_text())
        for case in suite["cases"]:
            cases.append(pytest.param(path, suite, case, id=f"{path.stem}: {case['name']}"))
    return cases


_fences: dict[Path, Fence] = {}


def fence_for(path: Path, suite: dict) -> Fence:
    if path not in _fences:
        policy = REPO / "build" / "policies" / (Path(suite["policy"]).stem + ".afb")
        env = suite["env"]
        fence = _fences[path] = Fence(policy, home=env["home"], cwd=env["cwd"], fold_case=bool(env.get("fold_case")))
        for tool in suite.get("tools") or []:
            fence.describe_tool(tool["name"], tool.get("description", ""), tool.get("schema"))
    return _fences[path]


def test_there_are_vectors():
    assert VECTOR_FILES, "tests/vectors/*.yaml is missing"


@pytest.mark.parametrize("path, suite, case", load_cases())
def test_vector(path, suite, case):
    fence = fence_for(path, suite)
    session_id = f"{path.stem}:{case['name']}"
    session = fence.session(session_id)
    try:
        for message in case.get("intent", []):
            session.intent(message)
        decision = session.decide(case["tool"], case["args"])
    finally:
        fence.drop_session(session_id)
    expect = dict(case["expect"])
    kinds = expect.pop("kind")
    assert decision.kind in (kinds if isinstance(kinds, list) else [kinds]), decision.message
    got = {key: getattr(decision, key) for key in ("reason", "rule", "capability", "risk", "moves") if key in expect}
    assert got == {key: expect[key] for key in got}, decision.message
    if "message_contains" in expect:
        assert expect["message_contains"] in decision.message
    if "witness" in expect:
        assert [list(pair) for pair in decision.witness] == expect["witness"]
