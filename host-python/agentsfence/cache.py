"""The decisions already read, by the bytes of their record: the same call in the same state
gives the same record, so a hit skips decoding it.

Only decisions without a reservation are kept: a reservation id is unique, so its record never
comes again, and a hit therefore holds none. The cache is emptied when it is full, and whenever
the instance is rebuilt or a policy installed (Evaluator._rebuild, Fence.install).
"""
from __future__ import annotations

from .records import Decision

LIMIT = 4096


class DecisionCache(dict[bytes, Decision]):
    """A dict, so that a lookup on the hot path is dict.get itself."""

    __slots__ = ()

    def keep(self, record: bytes, decision: Decision) -> None:
        if decision.reservation == 0:
            if len(self) >= LIMIT:
                self.clear()
            self[record] = decision
