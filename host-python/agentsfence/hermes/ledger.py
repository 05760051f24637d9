"""What a decided call holds between its pre_tool_call and its post_tool_call.

A call a budget covers holds a reservation of its units (docs/bytecode.md §8.2) from its
decision until its outcome: committed when it ran (ok or error), released when it did not
(blocked by another plugin, refused at the gate, cancelled, timed out), and released at the end
of its turn when no post_tool_call came (the tool raised, an edit approval refused it). Calls
are paired by their call reference (approvals.call_reference: the tool_call_id, else the
session, tool and arguments). Beside it, the argument JSON each call was decided on, so that
post_tool_call can tell when another plugin changed the arguments after the decision.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ..api import Session


@dataclass(frozen=True, slots=True)
class Held:
    """A budget reservation of a decided call, with the Hermes ids its turn ends under."""

    session: Session
    reservation: int
    session_id: str
    task_id: str


class Ledger:
    """Reservations awaiting their call's outcome, and the arguments each call was decided on."""

    def __init__(self, save: Callable[[str], None]):
        self._save = save  # saves a session's record: spent units outlive a shutdown (--resume)
        self._lock = threading.Lock()
        self._held: dict[str, list[Held]] = {}  # call reference -> budget reservations awaiting post_tool_call
        self._decided: dict[str, bytes] = {}  # tool_call_id -> the argument JSON the fence decided on

    def decided(self, tool_call_id: str, arguments_json: bytes) -> None:
        with self._lock:
            self._decided[tool_call_id] = arguments_json

    def runs_as_decided(self, tool_call_id: str, arguments_json: bytes) -> bool:
        """Whether a call about to run has the arguments the fence decided on (or none was kept)."""
        with self._lock:
            decided = self._decided.get(tool_call_id)
        return decided is None or decided == arguments_json

    def changed_since_decided(self, tool_call_id: str, arguments_json: bytes) -> bool:
        """Whether the call ran with other arguments than the fence decided on (forgetting them)."""
        with self._lock:
            decided = self._decided.pop(tool_call_id, None)
        return decided is not None and decided != arguments_json

    def hold(self, call_ref: str, held: Held) -> None:
        with self._lock:  # settled by this call's post_tool_call, or at the end of its turn
            self._held.setdefault(call_ref, []).append(held)

    def settle(self, call_ref: str, ran: bool) -> Held | None:
        """Commits (the call ran) or releases (it did not) the oldest reservation held for the call;
        the reservation when it was spent."""
        with self._lock:
            waiting = self._held.get(call_ref)
            if not waiting:
                return None
            held = waiting.pop(0)
            if not waiting:
                del self._held[call_ref]
        if ran:
            held.session.commit(held.reservation)
            self._save(held.session.id)  # spent units outlive a shutdown (--resume)
            return held
        held.session.release(held.reservation)
        return None

    def end_turn(self, session_id: str, task_id: str) -> None:
        """The end of a turn: a reserved call of it whose post_tool_call never came did not finish;
        its units are released."""
        with self._lock:
            ended = [(ref, h) for ref, waiting in self._held.items() for h in waiting
                     if (session_id and h.session_id == session_id) or (task_id and h.task_id == task_id)]
            for ref, h in ended:
                self._held[ref].remove(h)
                if not self._held[ref]:
                    del self._held[ref]
        for _, h in ended:
            h.session.release(h.reservation)

    def forget(self, session_id: str) -> None:
        """A dropped session's reservations: its counters close with the session."""
        with self._lock:
            for ref in [r for r, waiting in self._held.items() if waiting[0].session.id == session_id]:
                del self._held[ref]
