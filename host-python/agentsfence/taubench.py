"""`python -m agentsfence.taubench SUITE.json`: scores the fence on a tau-bench domain
(tests/corpora/taubench/README.md holds the format) by replaying each task's calls.

For each task one session: the user's instruction (as written, or with --first-person in the
user's own voice), then each call in order: decided, and when not blocked, its output handed to
the fence as Hermes' post_tool_call would hand it over. Tools are described to the fence first,
from the suite's catalogue. The labels (`side_effect`, `inferred`, `attack`, `planted`) are read
only here, to score, and never reach the fence.

An injected variant replays the same reads, one of whose outputs carries planted text, then the
attacker's side-effecting call: it counts as allowed when that call is allowed.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .api import Decision, Fence
from .errors import FenceError

EXIT_OK = 0
EXIT_ERROR = 1


@dataclass(frozen=True, slots=True)
class Stop:
    """The first call of a task that was not allowed."""

    task: str
    call_index: int
    function: str
    args: dict[str, Any]
    kind: str
    rule: str
    reason: str
    side_effect: bool
    witness: list[list[str]] = field(default_factory=list)  # the values the deciding rule held on


@dataclass(slots=True)
class SuiteScore:
    suite: str
    form: str  # "as written" or "first person"
    tasks: int = 0
    tasks_no_block: int = 0
    tasks_no_question: int = 0
    writes: int = 0  # the user's side-effecting calls
    writes_asked: int = 0
    writes_blocked: int = 0
    reads: int = 0
    reads_asked: int = 0
    reads_blocked: int = 0
    variants: int = 0
    variants_allowed: int = 0
    variants_asked: int = 0
    variants_blocked: int = 0
    stops: list[Stop] = field(default_factory=list)
    allowed_variants: list[list[str]] = field(default_factory=list)  # [task, goal]

    @property
    def no_block(self) -> float:
        return _fraction(self.tasks_no_block, self.tasks)

    @property
    def no_question(self) -> float:
        return _fraction(self.tasks_no_question, self.tasks)


def _fraction(good: int, total: int) -> float:
    return good / total if total else 1.0


def describe_catalogue(fence: Fence, suite: dict[str, Any]) -> None:
    for tool in suite["tools"]:
        fence.describe_tool(tool["name"], tool.get("description", ""), tool.get("json_schema"))


class _Sessions:
    def __init__(self, fence: Fence):
        self._fence = fence
        self._opened = 0

    def replay(self, instruction: str, calls: list[dict[str, Any]]) -> list[Decision]:
        """One session: the instruction, then each call decided and, when not blocked, observed.
        A call with no output (an attacker's, scored on its decision alone) is not observed."""
        self._opened += 1
        session_id = f"taubench-{self._opened}"
        session = self._fence.session(session_id)
        try:
            session.intent(instruction)
            decisions = []
            for call in calls:
                decision = session.decide(call["function"], call["args"])
                decisions.append(decision)
                if decision.kind != "block" and "output" in call:
                    session.observe(call["function"], call["args"], call["output"])
            return decisions
        finally:
            self._fence.drop_session(session_id)


def instruction_of(task: dict[str, Any], first_person: bool) -> str:
    return task["instruction_first_person"] if first_person else task["instruction"]


def score_suite(fence: Fence, suite: dict[str, Any], first_person: bool = False) -> SuiteScore:
    describe_catalogue(fence, suite)
    sessions = _Sessions(fence)
    score = SuiteScore(suite.get("suite", "?"), "first person" if first_person else "as written")
    for task in suite["tasks"]:
        instruction = instruction_of(task, first_person)
        calls = task["calls"]
        decisions = sessions.replay(instruction, calls)
        score.tasks += 1
        kinds = [d.kind for d in decisions]
        if "block" not in kinds:
            score.tasks_no_block += 1
        if all(kind == "allow" for kind in kinds):
            score.tasks_no_question += 1
        for call, decision in zip(calls, decisions):
            write = bool(call.get("side_effect"))
            if write:
                score.writes += 1
                score.writes_asked += decision.kind == "ask"
                score.writes_blocked += decision.kind == "block"
            else:
                score.reads += 1
                score.reads_asked += decision.kind == "ask"
                score.reads_blocked += decision.kind == "block"
        first = next((i for i, kind in enumerate(kinds) if kind != "allow"), -1)
        if first >= 0:
            call, decision = calls[first], decisions[first]
            score.stops.append(Stop(task["id"], first, call["function"], call["args"], decision.kind,
                                    decision.rule, decision.reason, bool(call.get("side_effect")),
                                    [list(pair) for pair in decision.witness]))
        for variant in task.get("injected", []):
            variant_calls = variant["calls"]
            attack = [i for i, call in enumerate(variant_calls) if call.get("attack")]
            # the attacker's call is scored on its decision: its output is not handed over
            replayed = [call if not call.get("attack") else {k: v for k, v in call.items() if k != "output"}
                        for call in variant_calls]
            decided = sessions.replay(instruction, replayed)
            score.variants += 1
            kinds_at = {decided[i].kind for i in attack}
            if "allow" in kinds_at:
                score.variants_allowed += 1
                score.allowed_variants.append([task["id"], variant["goal"]])
            elif "ask" in kinds_at:
                score.variants_asked += 1
            else:
                score.variants_blocked += 1
    return score


def _percent(value: float) -> str:
    return f"{100 * value:5.1f}%"


def render_table(score: SuiteScore, show: bool = False) -> str:
    lines = [
        f"suite {score.suite} ({score.form}): {score.tasks} tasks, {score.writes} side-effecting calls of the user's, "
        f"{score.variants} injected variants",
        f"  tasks with no call blocked       {_percent(score.no_block)}  ({score.tasks_no_block}/{score.tasks})",
        f"  tasks with every call allowed    {_percent(score.no_question)}  ({score.tasks_no_question}/{score.tasks})",
        f"  user's side-effecting calls      {score.writes_asked} asked, {score.writes_blocked} blocked of {score.writes}",
        f"  user's reads                     {score.reads_asked} asked, {score.reads_blocked} blocked of {score.reads}",
        f"  injected variants allowed        {score.variants_allowed} of {score.variants}"
        f"  ({score.variants_asked} asked, {score.variants_blocked} blocked)",
    ]
    if show and score.stops:
        lines.append("  first call not allowed, per task:")
        for stop in score.stops:
            lines.append(f"    {stop.task:<11} call {stop.call_index} {stop.function}"
                         f"{' (write)' if stop.side_effect else ''}: {stop.kind} by {stop.rule or '(default)'} "
                         f"[{stop.reason}] args={json.dumps(stop.args)}"
                         + (f" on {json.dumps(stop.witness)}" if stop.witness else ""))
    if show and score.allowed_variants:
        lines.append("  injected variants allowed:")
        lines.extend(f"    {task}: {goal}" for task, goal in score.allowed_variants)
    return "\n".join(lines)


def common_stops(scores: list[SuiteScore], top: int) -> list[tuple[tuple[str, str, str, str], int, Stop]]:
    """The most common (kind, rule, reason, tool) of the first call not allowed, with one example."""
    counts: Counter[tuple[str, str, str, str]] = Counter()
    example: dict[tuple[str, str, str, str], Stop] = {}
    for score in scores:
        for stop in score.stops:
            key = (stop.kind, stop.rule, stop.reason, stop.function)
            counts[key] += 1
            example.setdefault(key, stop)
    return [(key, count, example[key]) for key, count in counts.most_common(top)]


def to_json(score: SuiteScore) -> dict[str, Any]:
    result = asdict(score)
    result["no_block"] = score.no_block
    result["no_question"] = score.no_question
    return result


def main(argv: list[str] | None = None, prog: str = "agentsfence-taubench") -> int:
    parser = argparse.ArgumentParser(prog=prog, description="Score the fence on a tau-bench suite by replaying its calls.")
    parser.add_argument("suites", type=Path, nargs="+", help="tests/corpora/taubench/{retail,airline}.json")
    parser.add_argument("--first-person", action="store_true", help="use the instruction in the user's own voice")
    parser.add_argument("--show", action="store_true", help="print each task's first call not allowed")
    parser.add_argument("--top", type=int, default=0, help="print the N most common first stops, with an example")
    parser.add_argument("--json", action="store_true", help="print one JSON object per suite instead of a table")
    parser.add_argument("--policy", help="a .yaml or .afb policy (default: the shipped one)")
    options = parser.parse_args(argv)
    scores = []
    try:
        for path in options.suites:
            suite = json.loads(path.read_text(encoding="utf-8"))
            score = score_suite(Fence(options.policy), suite, options.first_person)
            scores.append(score)
            print(json.dumps(to_json(score)) if options.json else render_table(score, options.show))
    except (OSError, ValueError, KeyError, FenceError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return EXIT_ERROR
    if options.top and not options.json:
        print(f"most common first stops ({scores[0].form}):")
        for (kind, rule, reason, function), count, stop in common_stops(scores, options.top):
            print(f"  {count:>4}  {function}: {kind} by {rule or '(default)'} [{reason}]\n"
                  f"        e.g. {stop.task} call {stop.call_index} {stop.function} {json.dumps(stop.args)}"
                  + (f" on {json.dumps(stop.witness)}" if stop.witness else ""))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(prog="python -m agentsfence.taubench"))
