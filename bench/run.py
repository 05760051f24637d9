"""`make bench`: the fence beside Cedar, OPA (wasm) and hand-written Python, in one run.

Prints a table per workload and writes bench/results/latest.json. Not a test: nothing here
asserts a time. Rows whose decisions differ from the fence's are reported as such.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import plain  # noqa: E402
import workloads  # noqa: E402
from cold import measure_cold, print_cold  # noqa: E402
from peers import CedarPeer, OpaPeer, opa_binary  # noqa: E402
from sandbox import measure_sandbox, print_sandbox  # noqa: E402
from startup import measure_startup, print_startup  # noqa: E402
from state import measure_state, print_state  # noqa: E402
from timing import measure, measure_one, timer_floor_us  # noqa: E402

from agentsfence.api import Fence  # noqa: E402
from agentsfence.audit import AuditLog  # noqa: E402
from agentsfence.hermes.plugin import HermesFence  # noqa: E402
from agentsfence.settings import Settings  # noqa: E402
from agentsfence.state import SessionStore  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "latest.json"
FENCE_ROW = "2 fence session.decide"


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import wasmtime  # noqa: F401
    from importlib.metadata import version

    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "os": platform.platform(),
            "wasmtime": version("wasmtime")}


def _fence(policy: bytes | None = None, raw_calls: bool = True) -> Fence:
    return Fence(policy, raw_calls=raw_calls, home=workloads.HOME, cwd=workloads.CWD)


def default_rows(scratch: Path, notes: list[str], wanted: Wanted) -> dict[str, Any]:
    fence = _fence()
    plugin = HermesFence(fence, Settings(), SessionStore(scratch / "sessions"), AuditLog(scratch / "audit.jsonl"), lambda: None)
    os.environ["TERMINAL_CWD"] = workloads.CWD  # as Hermes sets it: the hook resolves paths against it
    plugin.pre_llm_call(session_id="s", task_id="t", user_message=workloads.INTENT_MESSAGE)
    session = fence.session("s")
    public = _fence(raw_calls=False).session("s")
    public.intent(workloads.INTENT_MESSAGE, workloads.CWD)
    intent = plain.bind_intent(workloads.INTENT_MESSAGE)

    def hook(tool: str, args: dict) -> Any:
        return plugin.pre_tool_call(tool_name=tool, args=args, task_id="t", session_id="s")

    rows: dict[str, Any] = {
        "1 fence Hermes pre_tool_call hook": hook,
        FENCE_ROW: lambda tool, args: session.decide(tool, args).kind,
        "3 fence via wasmtime Func.__call__": lambda tool, args: public.decide(tool, args).kind,
    }
    rows.update(_peer_rows(notes, wanted, lambda: CedarPeer.default(intent), lambda opa: OpaPeer.default(opa, intent)))
    rows["6 hand-written Python"] = lambda tool, args: plain.decide_default(tool, args, intent)
    return wanted.keep(rows)


class Wanted:
    """The rows a run times, by their number: all of them unless --only names some (the fence's
    session.decide row always runs: every ratio is to it)."""

    def __init__(self, numbers: set[str] | None):
        self.numbers = numbers

    def __contains__(self, number: str) -> bool:
        return self.numbers is None or number in self.numbers or FENCE_ROW.startswith(number + " ")

    def keep(self, rows: dict[str, Any]) -> dict[str, Any]:
        return {name: run for name, run in rows.items() if name.split(" ", 1)[0] in self}


def _peer_rows(notes: list[str], wanted: Wanted, cedar: Any, opa: Any) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    if "4" in wanted:
        try:
            rows["4 Cedar (cedarpy)"] = cedar().decide
        except ImportError:
            notes.append("cedarpy is not installed (bench/setup.sh): no Cedar row")
    if "5" not in wanted:
        return rows
    binary = opa_binary()
    if binary is None:
        notes.append("no opa binary in bench/.bin (bench/setup.sh could not build it): no OPA row")
        return rows
    try:
        rows["5 OPA wasm (opa-wasmtime)"] = opa(binary).decide
    except ImportError:
        notes.append("opa-wasmtime is not installed (bench/setup.sh): no OPA row")
    return rows


def scaled_rows(n: int, notes: list[str], opa_cache: dict[str, bytes], wanted: Wanted) -> dict[str, Any]:
    session = _fence(workloads.compiled(workloads.scaled_policy_yaml(n))).session("s")
    lists = plain.ScaledLists(workloads.recipients(n), workloads.domains(n), workloads.directories(n))
    rows: dict[str, Any] = {FENCE_ROW: lambda tool, args: session.decide(tool, args).kind}
    rows.update(_peer_rows(notes, wanted, lambda: CedarPeer.scaled(lists),
                           lambda opa: OpaPeer.scaled(opa, lists, opa_cache)))
    rows["6 hand-written Python"] = lists.decide
    return wanted.keep(rows)


def rule_rows(n: int, notes: list[str]) -> dict[str, Any]:
    session = _fence(workloads.compiled(workloads.scaled_rules_policy_yaml(n))).session("s")
    notes.append("the rules workload runs the fence and hand-written Python only: the allow-list tables put Cedar "
                 "and OPA beside them")
    return {FENCE_ROW: lambda tool, args: session.decide(tool, args).kind, "6 hand-written Python": plain.ScaledRules(n).decide}


def agreement(rows: dict[str, Any], calls: tuple[workloads.Call, ...]) -> dict[str, list[str]]:
    """For each row, the calls on which its decision differs from the fence's."""
    def kind(value: Any) -> str:
        if value is None:
            return "allow"  # the hook's answer for an allowed call
        if isinstance(value, dict):
            return "ask" if value.get("action") == "approve" else value.get("action", "?")
        return str(value)

    fence = {c.label: kind(rows[FENCE_ROW](c.tool, c.args)) for c in calls}
    return {name: [f"{c.label}: {kind(run(c.tool, c.args))} (fence {fence[c.label]})" for c in calls
                   if kind(run(c.tool, c.args)) != fence[c.label]] for name, run in rows.items()}


def workload(title: str, rows: dict[str, Any], calls: tuple[workloads.Call, ...], rounds: int) -> dict[str, Any]:
    differences = agreement(rows, calls)
    gc.collect()
    stats = measure(rows, calls, rounds=rounds, warmup=max(20, rounds // 10))
    fence_median = stats[FENCE_ROW].median_us
    table = []
    for name, row in stats.items():
        table.append({"row": name, "median_us": round(row.median_us, 2), "p99_us": round(row.p99_us, 2),
                      "max_us": round(row.max_us, 1), "samples": row.samples,
                      "ratio_to_fence": round(row.median_us / fence_median, 2),
                      "differs_from_fence": differences[name]})
    print_table(title, table)
    return {"title": title, "calls": [c.label for c in calls], "rows": table}


def print_table(title: str, table: list[dict[str, Any]]) -> None:
    print(f"\n## {title}")
    print(f"{'row':40} {'median µs':>10} {'p99 µs':>9} {'max µs':>9} {'x fence':>8}")
    for row in table:
        flag = "  (differs: " + "; ".join(row["differs_from_fence"]) + ")" if row["differs_from_fence"] else ""
        print(f"{row['row']:40} {row['median_us']:>10.2f} {row['p99_us']:>9.2f} {row['max_us']:>9.1f} "
              f"{row['ratio_to_fence']:>8.2f}{flag}")


def intent_rows(rounds: int) -> list[dict[str, Any]]:
    fence = _fence()
    found = []
    print("\n## Intent compilation (a new session binds the message)")
    for size in (1024, 16 * 1024):
        text = workloads.intent_text(size)
        counter = iter(range(10**9))

        def bind() -> None:
            name = f"i{next(counter)}"
            fence.session(name).intent(text)
            fence.drop_session(name)

        fence_stats = measure_one(bind, rounds, rounds // 10)
        plain_stats = measure_one(lambda: plain.bind_intent(text), rounds, rounds // 10)
        for row, stats in (("fence session.intent (+open/close)", fence_stats), ("hand-written Python regexes", plain_stats)):
            print(f"{size:>6} B  {row:40} median {stats.median_us:8.1f} µs  p99 {stats.p99_us:8.1f}  max {stats.max_us:8.1f}")
            found.append({"bytes": size, "row": row, "median_us": round(stats.median_us, 2),
                          "p99_us": round(stats.p99_us, 2), "max_us": round(stats.max_us, 1)})
    return found


def memory_rows() -> dict[str, Any]:
    """Linear memory the evaluator grew plus Python heap, for 10,000 sessions with an intent."""
    fence = _fence()
    fence.session("warm").intent(workloads.INTENT_MESSAGE)
    wasm = fence._wasm
    gc.collect()
    before_linear = wasm._memory.data_len(wasm._store)
    tracemalloc.start()
    before_python = tracemalloc.get_traced_memory()[0]
    count = 10_000
    for i in range(count):
        fence.session(f"s{i}").intent(workloads.INTENT_MESSAGE)
    python_bytes = tracemalloc.get_traced_memory()[0] - before_python
    tracemalloc.stop()
    linear_bytes = wasm._memory.data_len(wasm._store) - before_linear
    result = {"sessions": count, "wasm_linear_bytes": linear_bytes, "python_heap_bytes": python_bytes,
              "bytes_per_session": round((linear_bytes + python_bytes) / count, 1),
              "wasm_bytes_per_session": round(linear_bytes / count, 1),
              "python_bytes_per_session": round(python_bytes / count, 1)}
    print(f"\n## Memory: {count} live sessions, each with the mix's intent bound")
    print(f"wasm linear memory grew {linear_bytes / 1024:.0f} KiB, Python heap {python_bytes / 1024:.0f} KiB: "
          f"{result['bytes_per_session']:.0f} B per session ({result['wasm_bytes_per_session']:.0f} wasm + "
          f"{result['python_bytes_per_session']:.0f} Python)")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2000, help="timed rounds of the default mix")
    parser.add_argument("--quick", action="store_true", help="few rounds, for trying the bench itself")
    parser.add_argument("--only", metavar="ROWS", help="time only these rows, by number (e.g. 2,6); a partial run "
                        "skips intent, start-up and memory and writes no JSON")
    options = parser.parse_args()
    rounds = 50 if options.quick else options.rounds
    wanted = Wanted(set(options.only.split(",")) if options.only else None)
    notes: list[str] = []
    report: dict[str, Any] = {"machine": machine(), "timer_floor_us": round(timer_floor_us(), 3), "workloads": []}
    print(f"machine: {report['machine']}\nevery sample includes the timer's own {report['timer_floor_us']} µs")
    with tempfile.TemporaryDirectory() as scratch:
        rows = default_rows(Path(scratch), notes, wanted)
        report["workloads"].append(workload("Default Hermes policy, realistic mix", rows, workloads.DEFAULT_MIX, rounds))
        # The typical call: allowed, so no approval gate is consulted (an ask reads Hermes' gate state).
        allowed = tuple(c for c in workloads.DEFAULT_MIX if rows[FENCE_ROW](c.tool, c.args) == "allow")
        report["workloads"].append(workload("Default Hermes policy, the mix's allowed calls", rows, allowed, rounds))
    opa_cache: dict[str, bytes] = {}
    for n in workloads.SCALES:
        report["workloads"].append(workload(f"Allow-lists of {n:,} recipients, domains and directories",
                                            scaled_rows(n, notes, opa_cache, wanted), workloads.scaled_calls(n),
                                            max(20, rounds // 10)))  # Cedar at 100,000 takes ~50 ms a call
    for n in workloads.SCALES:
        report["workloads"].append(workload(f"{n:,} rules, one per MCP send tool", wanted.keep(rule_rows(n, notes)),
                                            workloads.scaled_rule_calls(n), max(20, rounds // 10)))
    if options.only:
        return
    report["cold"] = measure_cold(20 if options.quick else 200)
    print_cold(report["cold"])
    report["intent"] = intent_rows(20 if options.quick else 500)
    report["startup"] = measure_startup(2 if options.quick else 7)
    print_startup(report["startup"])
    report["sandbox"] = measure_sandbox(5 if options.quick else 40)
    print_sandbox(report["sandbox"])
    report["state"] = measure_state(5 if options.quick else 50)
    print_state(report["state"])
    report["memory"] = memory_rows()
    report["sizes"] = {"fence_wasm_bytes": _size("build/fence.wasm"), "default_policy_bytes": _size("build/policies/defaults.afb")}
    print(f"\n## Sizes: fence.wasm {report['sizes']['fence_wasm_bytes']} B, default policy "
          f"{report['sizes']['default_policy_bytes']} B")
    report["notes"] = sorted(set(notes))
    for note in report["notes"]:
        print(f"note: {note}")
    report["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten: {RESULTS.relative_to(Path.cwd()) if RESULTS.is_relative_to(Path.cwd()) else RESULTS}")


def _size(relative: str) -> int:
    return (Path(__file__).parent.parent / relative).stat().st_size


if __name__ == "__main__":
    main()
