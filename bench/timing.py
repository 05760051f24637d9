"""Interleaved timing: every row runs its calls in turn, round after round, so drift on a
noisy machine lands on all rows alike."""
from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass
from typing import Callable

from workloads import Call

Runner = Callable[[str, dict], object]


@dataclass
class RowStats:
    name: str
    median_us: float
    p99_us: float
    max_us: float
    samples: int


def measure(rows: dict[str, Runner], calls: tuple[Call, ...], rounds: int, warmup: int) -> dict[str, RowStats]:
    samples: dict[str, list[int]] = {name: [] for name in rows}
    clock = time.perf_counter_ns
    for round_index in range(warmup + rounds):
        keep = round_index >= warmup
        for name, run in rows.items():
            bucket = samples[name]
            for call in calls:
                tool, args = call.tool, call.args
                started = clock()
                run(tool, args)
                elapsed = clock() - started
                if keep:
                    bucket.append(elapsed)
    return {name: summarize(name, values) for name, values in samples.items()}


def measure_one(run: Callable[[], object], rounds: int, warmup: int) -> RowStats:
    clock = time.perf_counter_ns
    values: list[int] = []
    for round_index in range(warmup + rounds):
        started = clock()
        run()
        elapsed = clock() - started
        if round_index >= warmup:
            values.append(elapsed)
    return summarize("", values)


def summarize(name: str, values: list[int]) -> RowStats:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return RowStats(name, statistics.median(ordered) / 1000, p99 / 1000, ordered[-1] / 1000, len(ordered))


def timer_floor_us() -> float:
    """What one perf_counter_ns pair costs here: every sample includes it."""
    gc.collect()
    return measure_one(lambda: None, 20_000, 1_000).median_us
