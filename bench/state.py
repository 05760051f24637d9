"""Decisions under 16 threads with the state store: 16 sessions at once through the Hermes
hooks, each call's outcome reported, the default mix with its writes and sends under budgets (so
a budgeted call reserves in the store before it runs, and commits after). Throughput of whole
calls (decision and outcome), and the median and p99 of the decision (pre_tool_call).

Uses only what every version of the plugin has (HermesFence, SessionStore, AuditLog), so the same
script measures a checkout from before the store: `python bench/state.py` with its venv."""
from __future__ import annotations

import itertools
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import workloads  # noqa: E402

from agentsfence.api import Fence  # noqa: E402
from agentsfence.audit import AuditLog  # noqa: E402
from agentsfence.compiler import compile_policy  # noqa: E402
from agentsfence.hermes.plugin import HermesFence  # noqa: E402
from agentsfence.settings import Settings  # noqa: E402
from agentsfence.state import SessionStore  # noqa: E402

THREADS = 16
BUDGETS = """version: 1
name: bench-budgets
extends: [defaults]
budgets:
  - {id: writes, capability: [file.write], limit: 1000000000}
  - {id: sends, capability: ["email.*", message.send], limit: 1000000000}
"""


def measure_state(rounds: int, threads: int = THREADS) -> dict[str, Any]:
    os.environ["TERMINAL_CWD"] = workloads.CWD  # as Hermes sets it
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        source = scratch / "budgets.yaml"
        source.write_text(BUDGETS)
        fence = Fence(compile_policy([source]), home=workloads.HOME, cwd=workloads.CWD)
        state = scratch / "agentsfence"
        plugin = HermesFence(fence, Settings(), SessionStore(state / "sessions"), AuditLog(state / "audit.jsonl"),
                             lambda: None)
        ids = itertools.count()
        latencies: list[list[int]] = [[] for _ in range(threads)]
        budgeted = [0] * threads
        start = threading.Barrier(threads + 1)

        def run(index: int) -> None:
            session, task = f"s{index}", f"t{index}"
            plugin.pre_llm_call(session_id=session, task_id=task, user_message=workloads.INTENT_MESSAGE)
            start.wait()
            clock = time.perf_counter_ns
            for _ in range(rounds):
                for call in workloads.DEFAULT_MIX:
                    call_id = f"c{next(ids)}"
                    began = clock()
                    directive = plugin.pre_tool_call(tool_name=call.tool, args=call.args, task_id=task, session_id=session,
                                                     tool_call_id=call_id)
                    latencies[index].append(clock() - began)
                    plugin.post_tool_call(tool_name=call.tool, args=call.args, task_id=task, session_id=session,
                                          tool_call_id=call_id, status="ok" if directive is None else "blocked", result="ok")
            budgeted[index] = sum(int(b.spent) for b in fence.session(session).budgets() if not b.sums)

        workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        start.wait()
        began = time.perf_counter()
        for worker in workers:
            worker.join()
        wall = time.perf_counter() - began
        plugin.audit.close()
    ordered = sorted(v for per_thread in latencies for v in per_thread)
    calls = len(ordered)
    return {"threads": threads, "calls": calls, "budgeted_calls": sum(budgeted), "seconds": round(wall, 3),
            "calls_per_second": round(calls / wall), "median_us": round(ordered[calls // 2] / 1000, 1),
            "p99_us": round(ordered[min(calls - 1, int(calls * 0.99))] / 1000, 1)}


def print_state(result: dict[str, Any]) -> None:
    print(f"\n## Decisions under {result['threads']} threads with the state store (16 sessions, outcomes reported)")
    print(f"{result['calls']} calls ({result['budgeted_calls']} under a budget) in {result['seconds']} s: "
          f"{result['calls_per_second']} calls/s; pre_tool_call median {result['median_us']} µs, p99 {result['p99_us']} µs")


if __name__ == "__main__":
    print_state(measure_state(int(sys.argv[1]) if len(sys.argv) > 1 else 50))
