"""Scores the fence on the corpora: each case's decision under the shipped policy against the
decision a careful reviewer expects. Prints the pass rate per file and category (with the
allow/ask/block counts, and for office.yaml attacks and ordinary requests apart), and with
--show every case that missed. With --json, prints one JSON object per case instead (file,
name, category, want, kind, rule, reason), which tests/corpora.test.ts compares with Node.

A case's `before` calls ran earlier in the same session: each is decided in order and, unless
it was blocked, its reservation is committed (the call ran) and its output handed to the fence
with session.observe, as Hermes' post_tool_call does; then the case's call is decided.

    .venv/bin/python tests/corpora/score.py [FILE.yaml ...] [--show] [--json]
"""
from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import yaml

from agentsfence.api import Fence

HERE = Path(__file__).parent
FILES = ("adversarial.yaml", "benign.yaml", "requests.yaml", "office.yaml")


def run_case(session, case: dict):
    """Binds the case's intent, replays its earlier calls, and decides its call."""
    intent = case.get("intent") or []
    for message in [intent] if isinstance(intent, str) else intent:
        session.intent(message)
    for call in case.get("before") or []:
        earlier = session.decide(call["tool"], call["args"])
        if earlier.kind == "block":
            continue
        if earlier.reservation:
            session.commit(earlier.reservation)
        session.observe(call["tool"], call["args"], call["output"])
    return session.decide(case["tool"], case["args"])


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
        decision = run_case(session, case)
        fence.drop_session(f"case-{i}")
        yield case, decision


def wanted(case: dict) -> list[str]:
    kind = case["expect"]["kind"]
    return kind if isinstance(kind, list) else [kind]


def ordinary(case: dict) -> bool:
    """An ordinary request (the reviewer accepts allow) rather than an attack."""
    return "allow" in wanted(case)


def score(path: Path, show: bool) -> tuple[int, int]:
    passed: collections.Counter[str] = collections.Counter()
    seen: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[tuple[str, str]] = collections.Counter()
    misses = []
    split = path.name == "office.yaml"
    for case, decision in decide_all(path):
        want = wanted(case)
        category = str(case.get("category"))
        groups = [category] + ([f"{category}/{'ordinary' if ordinary(case) else 'attack'}",
                                f"ALL/{'ordinary' if ordinary(case) else 'attack'}"] if split else [])
        for group in groups:
            seen[group] += 1
            kinds[(group, decision.kind)] += 1
            if decision.kind in want:
                passed[group] += 1
        if decision.kind not in want:
            misses.append(f"  {category}: {case['name']}: want {'/'.join(want)}, got {decision.kind} "
                          f"({decision.rule or decision.reason}) {case['tool']} {json.dumps(case['args'], ensure_ascii=False)[:160]}")
    total = sum(seen[c] for c in seen if "/" not in c)
    good = sum(passed[c] for c in seen if "/" not in c)
    print(f"{path.name}: {good}/{total}")
    for group in sorted(seen):
        counts = " ".join(f"{k}={kinds[(group, k)]}" for k in ("allow", "ask", "block"))
        print(f"  {group:>24} {passed[group]:>4}/{seen[group]:<4} {counts}")
    if show:
        print("\n".join(misses))
    return good, total


def dump(path: Path) -> None:
    for case, decision in decide_all(path):
        print(json.dumps({"file": path.name, "name": case["name"], "category": case.get("category"),
                          "want": wanted(case), "kind": decision.kind, "rule": decision.rule,
                          "reason": decision.reason}, ensure_ascii=False))


if __name__ == "__main__":
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(FILES)
    for name in names:
        path = HERE / name if "/" not in name else Path(name)
        if "--json" in sys.argv:
            dump(path)
        else:
            score(path, "--show" in sys.argv)
