"""What a decided call holds between its pre_tool_call and its post_tool_call, and the budget
counts every process shares through the state store.

A call a budget covers holds a reservation of its units (docs/bytecode.md §8.2) from its
decision until its outcome: committed when it ran (ok or error), released when it did not
(blocked by another plugin, refused at the gate, cancelled, timed out), and released at the end
of its turn when no post_tool_call came (the tool raised, an edit approval refused it). Calls
are paired by their call reference (approvals.call_reference: the tool_call_id, else the
session, tool and arguments). Beside it, the argument JSON each call was decided on, so that
post_tool_call can tell when another plugin changed the arguments after the decision.

Shared counts: the evaluator decides a budgeted call against the session's counters in its own
memory. A call it reserved for (or refused for a budget) is decided again inside one store
transaction that holds the counts against every other process: the counters are first set to
what the store says every process spent and holds, and the reservation the evaluator then
makes is written before the transaction ends, so it is on disk before the call runs. A process
killed while the call runs leaves the reservation in the store, counted as spent. When the store
cannot be reached, the call blocks.

Where a count is kept follows the budget's scope and period, which the evaluator reports
(docs/bytecode.md §3.2): under the session's id, the user's (`@user ID`, the platform's user id of
the session's latest turn) or the team's (`@team`: everyone sharing the store), with the period's
day or ISO week after it (` @day 2026-12-07`, ` @week 2026-W49`, UTC).
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..records import Decision, host_decision
from ..state import SessionStore, StateCorrupt, StoreUnavailable, from_units, to_units

if TYPE_CHECKING:
    from ..api import Session
    from ..records import Budget

logger = logging.getLogger("agentsfence")

# The reasons a budget gives (docs/bytecode.md §8.1): decided again against the shared counts,
# since this process's counters may be behind what other processes spent or released.
BUDGET_REASONS = frozenset({"budget_exhausted", "budget_exceeded", "budget_unmeasured", "repeated_payment"})


@dataclass(frozen=True, slots=True)
class Held:
    """A budget reservation of a decided call, with the Hermes ids its turn ends under."""

    session: Session
    reservation: int
    session_id: str
    task_id: str


class Ledger:
    """Reservations awaiting their call's outcome, and the arguments each call was decided on."""

    def __init__(self, store: SessionStore, user_of: Callable[[str], str] = lambda session_id: "",
                 clock: Callable[[], float] = time.time):
        self._store = store.store
        self._user_of = user_of  # a session's user: the platform's user id of its latest turn
        self._clock = clock
        self.owner = uuid.uuid4().hex  # this process's reservations in the store
        self._tickets = itertools.count(1)
        self._lock = threading.Lock()
        self._held: dict[str, list[tuple[Held, int]]] = {}  # call reference -> (reservation, its ticket) awaiting post_tool_call
        self._decided: dict[str, bytes] = {}  # tool_call_id -> the argument JSON the fence decided on
        self._stored: dict[tuple[str, int], int] = {}  # (session id, reservation) -> its ticket in the store
        self._sessions: dict[str, threading.RLock] = {}  # session id -> held while one of its calls is decided

    # ---- deciding against the shared counts ----

    def deciding(self, session_id: str) -> threading.RLock:
        """The lock a session's decisions are made under: its counters change in one thread at a time."""
        lock = self._sessions.get(session_id)
        if lock is None:
            with self._lock:
                lock = self._sessions.setdefault(session_id, threading.RLock())
        return lock

    def counted(self, session: Session, tool_name: str, decision: Decision, decide: Callable[[], Decision]) -> Decision:
        """The decision, made again against every process's counts when a budget took part in it
        (the caller holds `deciding(session.id)`); its reservation is in the store before this
        returns. A block when the store cannot be reached or read."""
        if not decision.reservation and decision.reason not in BUDGET_REASONS:
            return decision
        if decision.reservation:
            session.release(decision.reservation)  # made against this process's counters alone
        decision = None  # type: ignore[assignment]
        try:
            before = session.budgets()
            keys = {b.id: self.key(session.id, b) for b in before}
            with self._store.transaction(session.id, durable=True, keys=sorted(set(keys.values()))) as tx:
                used = {key: tx.units(key) for key in set(keys.values())}
                session.set_budgets({b.id: from_units(max(0, used[keys[b.id]].get(b.id, 0) - to_units(b.reserved)))
                                     for b in before})
                decision = decide()
                if decision.reservation:
                    after = {b.id: to_units(b.reserved) for b in session.budgets()}
                    ticket = next(self._tickets)
                    for b in before:
                        if after[b.id] > to_units(b.reserved):
                            tx.reserve(keys[b.id], self.owner, ticket, {b.id: after[b.id] - to_units(b.reserved)})
        except (StoreUnavailable, StateCorrupt) as error:
            if decision is not None and decision.reservation:
                session.release(decision.reservation)
            return host_decision(tool_name, "host_error", f"a budget covers the call, and the state store that counts it "
                                 f"for every process cannot be used: {error}")
        if decision.reservation:
            with self._lock:
                self._stored[(session.id, decision.reservation)] = ticket
        return decision

    def key(self, session_id: str, budget: Budget) -> str:
        """Where the store keeps a budget's count for this session (the module's docstring)."""
        key = f"@user {self._user_of(session_id)}" if budget.per == "user" else "@team" if budget.per == "team" else session_id
        if budget.period:
            now = time.gmtime(self._clock())
            key += time.strftime(" @day %Y-%m-%d" if budget.period == "day" else " @week %G-W%V", now)
        return key

    def cancel(self, session: Session, reservation: int) -> None:
        """A reservation whose decision was not acted on (it could not be recorded): released."""
        session.release(reservation)
        with self._lock:
            ticket = self._stored.pop((session.id, reservation), None)
        if ticket is not None:
            self._settle_stored(ticket, commit=False)

    # ---- arguments ----

    def decided(self, tool_call_id: str, arguments_json: bytes) -> None:
        with self._lock:
            self._decided[tool_call_id] = arguments_json

    def changed_since_decided(self, tool_call_id: str, arguments_json: bytes) -> bool:
        """Whether the call ran with other arguments than the fence decided on (forgetting them)."""
        with self._lock:
            decided = self._decided.pop(tool_call_id, None)
        return decided is not None and decided != arguments_json

    # ---- outcomes ----

    def hold(self, call_ref: str, held: Held) -> None:
        with self._lock:  # settled by this call's post_tool_call, or at the end of its turn
            ticket = self._stored.pop((held.session.id, held.reservation), 0)
            self._held.setdefault(call_ref, []).append((held, ticket))

    def settle(self, call_ref: str, ran: bool) -> Held | None:
        """Commits (the call ran) or releases (it did not) the oldest reservation held for the call;
        the reservation when it was spent."""
        with self._lock:
            waiting = self._held.get(call_ref)
            if not waiting:
                return None
            held, ticket = waiting.pop(0)
            if not waiting:
                del self._held[call_ref]
        if ran:
            held.session.commit(held.reservation)
        else:
            held.session.release(held.reservation)
        if ticket:
            self._settle_stored(ticket, commit=ran)
        return held if ran else None

    def end_turn(self, session_id: str, task_id: str) -> None:
        """The end of a turn: a reserved call of it whose post_tool_call never came did not finish;
        its units are released."""
        with self._lock:
            ended = [(ref, entry) for ref, waiting in self._held.items() for entry in waiting
                     if (session_id and entry[0].session_id == session_id) or (task_id and entry[0].task_id == task_id)]
            for ref, entry in ended:
                self._held[ref].remove(entry)
                if not self._held[ref]:
                    del self._held[ref]
        for _, (held, ticket) in ended:
            held.session.release(held.reservation)
            if ticket:
                self._settle_stored(ticket, commit=False)

    def forget(self, session_id: str) -> None:
        """A dropped session's reservations: its counters close with the session (and its rows
        with its record)."""
        with self._lock:
            for ref in [r for r, waiting in self._held.items() if waiting[0][0].session.id == session_id]:
                del self._held[ref]
            self._sessions.pop(session_id, None)

    def _settle_stored(self, ticket: int, commit: bool) -> None:
        """A settlement the store could not take leaves the reservation there, counted as spent:
        the safe error."""
        try:
            self._store.settle(self.owner, ticket, commit)
        except (StoreUnavailable, StateCorrupt) as error:
            logger.error("AgentsFence could not settle a budget reservation in the state store "
                                                   "(it stays counted as spent): %s", error)
