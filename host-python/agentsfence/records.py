"""The evaluator's answers as Python values: a decision (its record, docs/bytecode.md §8.1), a
budget's use (§8.2), what it read from a call's output (`derive`) and how it decided one
(`explain`). Plain data: nothing here runs the evaluator or imports wasmtime."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

# confine: allowed, to run inside the task's sandbox (Session.sandbox_profile says which); a host
# that cannot confine the call treats it as ask.
DecisionKind = Literal["allow", "block", "ask", "confine"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The evaluator's answer for one call (§8.1 decision record)."""

    kind: DecisionKind
    reason: str
    rule: str
    capability: str
    risk: str
    message: str
    # The values the deciding rule held on, as (subject, value): for an ask, the part of the
    # call outside what the user granted (docs/bytecode.md §8.1). Empty when no rule's value decided.
    witness: tuple[tuple[str, str], ...] = ()
    # The call's targets as (subject, normal form), as the policy's roles made them (§8.1): what the
    # audit log keeps of the arguments. Empty when the call was refused before they were made.
    targets: tuple[tuple[str, str], ...] = ()
    # The budget units this call holds (§8.2), 0 for none: settle with Session.commit or release.
    reservation: int = 0
    # An ask because a block rule held maybe: a value it could not read to the end, or a condition
    # in the request (§5.4).
    possible: bool = False
    # An ask because a reader could not read all of the call (§8.1): never allowed.
    opaque: bool = False
    # The ids of the warn rules that held (`effect: warn`): recorded, deciding nothing.
    warned: tuple[str, ...] = ()
    # If it runs, the call may leave the terminal in another working directory (a `cd`, a workdir
    # argument; §8.1): Hermes keeps it for later calls, whose relative paths then resolve there.
    moves: bool = False


@dataclass(frozen=True, slots=True)
class Budget:
    """One budget of the policy as a session has used it (§8 `budgets`): calls, or for a budget of
    sums (`sums`) the sums of its calls as Decimals, in `currency` when its cap names one."""

    id: str
    limit: int | Decimal
    spent: int | Decimal
    reserved: int | Decimal
    sums: bool = False
    currency: str = ""
    # Whose calls the count adds up (docs/bytecode.md §3.2): session, user or team; and the period
    # it restarts after: "", day or week. A host with a state store keeps the count under them.
    per: str = "session"
    period: str = ""

    @property
    def remaining(self) -> int | Decimal:
        return max(0, self.limit - self.spent - self.reserved)

    @property
    def saved(self) -> int | str:
        """What a session record keeps of `spent`: a count of calls, or a sum as decimal text."""
        return str(self.spent) if self.sums else int(self.spent)


@dataclass(frozen=True, slots=True)
class Derivation:
    """What the evaluator read from one call's output (§8 `derive`)."""

    read: bool  # the user pointed at the call, and the policy derives from its class
    why: str  # why the output was ignored ("" when read)
    items: tuple[tuple[str, str], ...]  # the session's derived items: (email|url|domain|path|recipient, value)


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One test the evaluator ran (§8 `explain`), or the DECIDE it reached (predicate "decide")."""

    rule: str  # rule id, "(default)" for the class default
    predicate: str  # in_intent, granted, equals, ...; "decide" for a rule's DECIDE or the class default
    subject: str  # email, tool, args.NAME, ...; the effect for "decide"
    held: bool  # a test held; a DECIDE ended the run
    negated: bool
    # A test held maybe (§5.4); a DECIDE the run went on from (a warn rule, or a rule that held maybe).
    maybe: bool = False


@dataclass(frozen=True, slots=True)
class Trace:
    """How the evaluator classified a call and every test it ran deciding it (§8 `explain`)."""

    capability: str
    risk: str
    source: str  # mapped, name (the classifier read the tool's name), inferred (its description), unknown
    steps: tuple[TraceStep, ...]


def host_decision(tool_name: str, reason: str, text: str) -> Decision:
    """A block the host makes itself, worded like the evaluator's messages (§8.1)."""
    return Decision("block", reason, "", "", "", f"AgentsFence blocked {tool_name}: {text} [{reason}]")
