"""What one audit record costs: the Hermes hook with and without its record, AuditLog.decision
alone, and a profile of it. A measuring script, not a test: `.venv/bin/python bench/audit_cost.py`."""
from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import workloads  # noqa: E402
from timing import measure, measure_one  # noqa: E402

from agentsfence.api import Fence  # noqa: E402
from agentsfence.audit import AuditLog  # noqa: E402
from agentsfence.hermes.plugin import HermesFence  # noqa: E402
from agentsfence.settings import Settings  # noqa: E402
from agentsfence.state import SessionStore  # noqa: E402


class NoRecord:
    """An audit log that writes nothing: the hook's cost without its record."""

    def decision(self, *args: Any) -> None:
        pass

    def event(self, *args: Any, **details: Any) -> None:
        pass


def hook_of(audit: Any, scratch: Path) -> Any:
    fence = Fence(None, home=workloads.HOME, cwd=workloads.CWD)
    plugin = HermesFence(fence, Settings(), SessionStore(scratch / "sessions"), audit, lambda: None)
    plugin.pre_llm_call(session_id="s", task_id="t", user_message=workloads.INTENT_MESSAGE)
    calls = iter(range(1 << 62))
    return lambda tool, args: plugin.pre_tool_call(tool_name=tool, args=args, task_id="t", session_id="s",
                                                   tool_call_id=f"c{next(calls)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of AuditLog.decision")
    options = parser.parse_args()
    os.environ["TERMINAL_CWD"] = workloads.CWD  # as Hermes sets it
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        log = AuditLog(scratch / "audit.jsonl")
        rows = {"hook with its record": hook_of(log, scratch), "hook without": hook_of(NoRecord(), scratch)}
        gc.collect()
        stats = measure(rows, workloads.DEFAULT_MIX, options.rounds, options.rounds // 10)
        for row in stats.values():
            print(f"{row.name:24} median {row.median_us:6.1f} µs  p99 {row.p99_us:6.1f} µs  ({row.samples} calls)")
        print(f"{'the record':24} median {stats['hook with its record'].median_us - stats['hook without'].median_us:6.1f} µs")
        session = Fence(None, home=workloads.HOME, cwd=workloads.CWD).session("s")
        decided = [(call.tool, call.args, session.decide(call.tool, call.args)) for call in workloads.DEFAULT_MIX]

        def record_all() -> None:
            for tool, args, decision in decided:
                log.decision("s", tool, "c1", args, decision, 10.0)

        alone = measure_one(record_all, options.rounds, options.rounds // 10)
        print(f"{'AuditLog.decision':24} median {alone.median_us / len(decided):6.1f} µs per record "
              f"(mix of {len(decided)})")
        if options.profile:
            profile = cProfile.Profile()
            profile.runcall(lambda: [record_all() for _ in range(options.rounds)])
            pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
