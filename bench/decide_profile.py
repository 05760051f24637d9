"""Per call of every workload: what session.decide costs and where fence.wasm spends it.

Not a test and not part of `make bench`: a profile to read beside it. For each call of the
default mix, the scaled allow-lists and the scaled rules it gives session.decide's median, the wasm decide
call's median alone, the wasm operators that call ran (the fuel it consumed: wasmtime charges
one unit per operator), the record's size, and whether the decision cache answered. Timing is
interleaved like bench/run.py (every call in turn, round after round).
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import workloads  # noqa: E402
from timing import timer_floor_us  # noqa: E402

from agentsfence.api import Fence, encode_call  # noqa: E402
from agentsfence.engine import FUEL_BASE, FUEL_PER_BYTE  # noqa: E402


def fences() -> list[tuple[str, Fence, tuple[workloads.Call, ...]]]:
    found = []
    default = Fence(home=workloads.HOME, cwd=workloads.CWD)
    default.session("s").intent(workloads.INTENT_MESSAGE, workloads.CWD)
    found.append(("default mix", default, workloads.DEFAULT_MIX))
    for n in workloads.SCALES:
        fence = Fence(workloads.compiled(workloads.scaled_policy_yaml(n)), home=workloads.HOME, cwd=workloads.CWD)
        fence.session("s")
        found.append((f"allow-lists of {n:,}", fence, workloads.scaled_calls(n)))
    for n in workloads.SCALES:
        fence = Fence(workloads.compiled(workloads.scaled_rules_policy_yaml(n)), home=workloads.HOME, cwd=workloads.CWD)
        fence.session("s")
        found.append((f"{n:,} rules", fence, workloads.scaled_rule_calls(n)))
    return found


def operators(fence: Fence, call: workloads.Call) -> tuple[int, int, bool]:
    """(operators the wasm decide ran, record bytes, whether the decision cache answers it)."""
    session = fence.session("s")
    wasm = fence._wasm
    name, arguments = encode_call(call.tool, call.args)  # type: ignore[misc]
    payload = name + arguments
    record = wasm.decide(session._handle, len(name), len(arguments), payload)
    granted = FUEL_BASE + FUEL_PER_BYTE * len(payload)
    consumed = granted - wasm._store.get_fuel()
    session.decide(call.tool, call.args)  # fills the cache, if it ever will
    cached = fence._decisions.get(record) is not None
    return consumed, len(record), cached


def time_calls(fence: Fence, calls: tuple[workloads.Call, ...], rounds: int) -> dict[str, dict[str, float]]:
    session = fence.session("s")
    wasm = fence._wasm
    handle = session._handle
    prepared = []
    for call in calls:
        name, arguments = encode_call(call.tool, call.args)  # type: ignore[misc]
        prepared.append((call, len(name), len(arguments), name + arguments))
    samples: dict[str, dict[str, list[int]]] = {c.label: {"decide": [], "wasm": []} for c in calls}
    clock = time.perf_counter_ns
    decide = session.decide
    raw = wasm.decide
    warmup = max(20, rounds // 10)
    gc.collect()
    for index in range(warmup + rounds):
        keep = index >= warmup
        for call, name_length, args_length, payload in prepared:
            tool, args = call.tool, call.args
            started = clock()
            decide(tool, args)
            middle = clock()
            raw(handle, name_length, args_length, payload)
            ended = clock()
            if keep:
                bucket = samples[call.label]
                bucket["decide"].append(middle - started)
                bucket["wasm"].append(ended - middle)
    return {label: {part: statistics.median(values) / 1000 for part, values in parts.items()}
            for label, parts in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    print(f"timer floor: {timer_floor_us():.2f} µs (included in every time)")
    report: list[dict[str, Any]] = []
    for title, fence, calls in fences():
        figures = [operators(fence, call) for call in calls]
        times = time_calls(fence, calls, options.rounds)
        print(f"\n## {title}")
        print(f"{'call':30} {'decide µs':>10} {'wasm µs':>8} {'operators':>10} {'record B':>9} {'cached':>7}")
        rows = []
        for call, (ops, size, cached) in zip(calls, figures):
            t = times[call.label]
            print(f"{call.label:30} {t['decide']:>10.2f} {t['wasm']:>8.2f} {ops:>10,} {size:>9} {'yes' if cached else 'NO':>7}")
            rows.append({"call": call.label, "decide_us": round(t["decide"], 2), "wasm_us": round(t["wasm"], 2),
                         "operators": ops, "record_bytes": size, "cached": cached})
        mean = {k: statistics.mean(r[k] for r in rows) for k in ("decide_us", "wasm_us", "operators")}
        print(f"{'mean of calls':30} {mean['decide_us']:>10.2f} {mean['wasm_us']:>8.2f} {mean['operators']:>10,.0f}")
        report.append({"workload": title, "calls": rows})
    if options.json:
        options.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
