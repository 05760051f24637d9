"""How one call is decided, in words for people and as JSON: what `agentsfence explain` and
`hermes fence explain` print. The words are read off the evaluator's own trace (records.Trace)
and decision; nothing here decides."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .intent import Intent
from .records import Decision, Trace, TraceStep

if TYPE_CHECKING:
    from .api import Fence

SOURCE_WORDS = {
    "mapped": "mapped by the policy",
    "name": "classified by the words of its name",
    "inferred": "inferred from its description",
    "unknown": "unknown: nothing maps or classifies it",
}

KIND_WORDS = {
    "allow": "it runs",
    "block": "it does not run, and the model is told why",
    "ask": "Hermes asks you before it runs",
    "confine": "it runs inside the task's sandbox",
}


@dataclass(frozen=True)
class Explanation:
    policy: str  # name and hash
    tool: str
    intent: Intent
    trace: Trace
    decision: Decision

    def lines(self) -> list[str]:
        trace, decision = self.trace, self.decision
        lines = [f"Policy: {self.policy}", "The request, as the fence reads it:", *self.intent.describe(),
                 f"The tool {self.tool}: {trace.capability or '?'} ({trace.risk or '?'}), "
                 f"{SOURCE_WORDS.get(trace.source, trace.source)}"]
        if trace.steps:
            lines.append("Rules tested, in order (a failed test skips to the next rule):")
            lines += [_step_line(step) for step in trace.steps]
        else:
            lines.append("No rule ran: the call was decided before the rules.")
        by = f"rule {decision.rule}" if decision.rule else "no rule (the class's default or the host)"
        lines.append(f"Decision: {decision.kind} [{decision.reason}] by {by}: {KIND_WORDS.get(decision.kind, decision.kind)}.")
        lines.append(f"Message: {decision.message}")
        return lines

    def as_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "tool": self.tool, "intent": self.intent.describe(),
                "class": {"capability": self.trace.capability, "risk": self.trace.risk, "source": self.trace.source},
                "steps": [dataclasses.asdict(step) for step in self.trace.steps],
                "decision": dataclasses.asdict(self.decision)}


def explain(fence: Fence, session_id: str, messages: list[str], tool: str, args: dict[str, Any],
            cwd: str | None = None) -> Explanation:
    """Binds `messages` (the user's turns, in order) in a new session, then traces and decides the call."""
    session = fence.session(session_id)
    intent = Intent()
    for message in messages:
        intent = session.intent(message, cwd)  # each summary holds every message so far
    trace = session.explain(tool, args)
    decision = session.decide(tool, args, cwd)
    return Explanation(f"{fence.policy_name} ({fence.policy_hash[:12]})", tool, intent, trace, decision)


def _step_line(step: TraceStep) -> str:
    if step.predicate == "decide":
        if step.maybe:
            return f"  .. {step.subject} by {step.rule} held only maybe (or warns): the run goes on"
        return f"  -> {step.subject} by {step.rule}"
    test = f"{step.subject}: {'not ' if step.negated else ''}{step.predicate}"
    return f"  {step.rule:<28} {test:<34} {'held' if step.held else 'maybe' if step.maybe else 'failed'}"
