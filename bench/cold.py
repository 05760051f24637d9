"""Decisions as a real session meets them: one call every few seconds, after the model's turn has
run through the caches. Before each timed decision a buffer larger than the last-level cache is
copied (every line of it is written, so the evaluator's memory, its code and the interpreter's
objects are evicted) and the process sleeps, so the CPU may idle; the row beside the tight loop
of bench/run.py's default mix.

`python bench/cold.py [SAMPLES]` prints the table alone.
"""
from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))

import plain  # noqa: E402
import workloads  # noqa: E402
from timing import summarize  # noqa: E402

from agentsfence.api import Fence  # noqa: E402

PAUSE_S = 0.02
FALLBACK_SWEEP_BYTES = 64 * 1024 * 1024


def sweep_bytes() -> int:
    """Twice the largest cache the kernel reports (its last level), else FALLBACK_SWEEP_BYTES."""
    largest = 0
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (index / "size").read_text().strip()
        except OSError:
            continue
        scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
        digits = text.rstrip("KM")
        if digits.isdigit():
            largest = max(largest, int(digits) * scale)
    return 2 * largest if largest else FALLBACK_SWEEP_BYTES


class Sweeper:
    """Evicts the caches: copies a buffer of `size` bytes into another (memmove writes every line)."""

    def __init__(self, size: int):
        self.source = bytearray(os.urandom(1024)) * (size // 1024)
        self.target = bytearray(len(self.source))

    def __call__(self) -> None:
        self.target[:] = self.source


def measure_cold(samples: int = 200) -> dict[str, Any]:
    fence = Fence(home=workloads.HOME, cwd=workloads.CWD)
    session = fence.session("s")
    session.intent(workloads.INTENT_MESSAGE, workloads.CWD)
    intent = plain.bind_intent(workloads.INTENT_MESSAGE)
    rows: dict[str, Callable[[str, dict], object]] = {
        "2 fence session.decide": lambda tool, args: session.decide(tool, args).kind,
        "6 hand-written Python": lambda tool, args: plain.decide_default(tool, args, intent),
    }
    size = sweep_bytes()
    sweep = Sweeper(size)
    calls = workloads.DEFAULT_MIX
    for run in rows.values():  # warm: the first call of each kind is not what this row measures
        for call in calls:
            run(call.tool, call.args)
    times: dict[str, list[int]] = {name: [] for name in rows}
    clock = time.perf_counter_ns
    gc.collect()
    for index in range(samples):
        call = calls[index % len(calls)]
        for name, run in rows.items():
            sweep()
            time.sleep(PAUSE_S)
            started = clock()
            run(call.tool, call.args)
            times[name].append(clock() - started)
    stats = {name: summarize(name, values) for name, values in times.items()}
    fence_median = stats["2 fence session.decide"].median_us
    return {"sweep_bytes": size, "pause_ms": PAUSE_S * 1000, "samples": samples,
            "rows": [{"row": name, "median_us": round(s.median_us, 2), "p99_us": round(s.p99_us, 2),
                      "max_us": round(s.max_us, 1), "ratio_to_fence": round(s.median_us / fence_median, 2)}
                     for name, s in stats.items()]}


def print_cold(result: dict[str, Any]) -> None:
    print(f"\n## Default Hermes policy, realistic mix, cold: {result['sweep_bytes'] // (1024 * 1024)} MiB copied and "
          f"{result['pause_ms']:.0f} ms asleep before each decision")
    print(f"{'row':40} {'median µs':>10} {'p99 µs':>9} {'max µs':>9} {'x fence':>8}")
    for row in result["rows"]:
        print(f"{row['row']:40} {row['median_us']:>10.2f} {row['p99_us']:>9.2f} {row['max_us']:>9.1f} {row['ratio_to_fence']:>8.2f}")


if __name__ == "__main__":
    print_cold(measure_cold(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
