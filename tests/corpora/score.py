"""Scores the fence on the corpora: each case's decision under the shipped policy against the
decision a careful reviewer expects. Prints the pass rate per file and category, and with
--show every case that missed.

    .venv/bin/python tests/corpora/score.py [FILE.yaml ...] [--show]
"""
from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import yaml

from agentsfence.api import Fence

HERE = Path(__file__).parent
FILES = ("adversarial.yaml", "benign.yaml", "requests.yaml")


def decide_all(path: Path):
    """Each case of a corpus file with the fence's decision under the shipped policy."""
    doc = yaml.safe_load(path.read_text())
    env = doc.get("env", {})
    home = env.get("home", "/home/user")
    fence = Fence(home=home, cwd=env.get("cwd", home), hermes_homes=[f"{home}/.hermes"])
    for tool in doc.get("tools") or []:
        fence.describe_tool(tool["name"], tool.get("description", ""), tool.get("schema"))
    for i, case in enumerate(doc["cases"]):
        session = fence.session(f"case-{i}")
        intent = case.get("intent") or []
        for message in [intent] if isinstance(intent, str) else intent:
            session.intent(message)
        decision = session.decide(case["tool"], case["args"])
        fence.drop_session(f"case-{i}")
        yield case, decision


def wanted(case: dict) -> list[str]:
    kind = case["expect"]["kind"]
    return kind if isinstance(kind, list) else [kind]


def score(path: Path, show: bool) -> tuple[int, int]:
    passed: collections.Counter[str] = collections.Counter()
    seen: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[tuple[str, str]] = collections.Counter()
    misses = []
    for case, decision in decide_all(path):
        want = wanted(case)
        category = str(case.get("category"))
        seen[category] += 1
        kinds[(category, decision.kind)] += 1
        if decision.kind in want:
            passed[category] += 1
        else:
            misses.append(f"  {category}: {case['name']}: want {'/'.join(want)}, got {decision.kind} "
                          f"({decision.rule or decision.reason}) {case['tool']} {json.dumps(case['args'])[:160]}")
    print(f"{path.name}: {sum(passed.values())}/{sum(seen.values())}")
    for category in sorted(seen):
        counts = " ".join(f"{k}={kinds[(category, k)]}" for k in ("allow", "ask", "block"))
        print(f"  {category:>22} {passed[category]:>4}/{seen[category]:<4} {counts}")
    if show:
        print("\n".join(misses))
    return sum(passed.values()), sum(seen.values())


if __name__ == "__main__":
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(FILES)
    for name in names:
        score(HERE / name if "/" not in name else Path(name), "--show" in sys.argv)
