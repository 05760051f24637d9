"""What compiling a policy costs with Node and in-process (QuickJS in wasmtime), each in a new
process as a user runs it: the shipped policy and the rules workload's 1,000 rules, median of
ROUNDS runs; the in-process compiler with its QuickJS module in the module cache (a second
start) and without (a first start). Also the wheel's size, when `make wheel` has built it.

Run in the checkout after `make setup`: .venv/bin/python bench/compile_cost.py [--rounds N]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PYTHON = REPO / ".venv" / "bin" / "python"
BUNDLE = REPO / "dist" / "agentsfence-compile.cjs"


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env, cwd=REPO)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="agentsfence-compile-cost-"))
    try:
        rules = scratch / "rules-1000.yaml"
        rules.write_text(workloads.scaled_rules_policy_yaml(1000))
        out = scratch / "out.afb"
        cache = scratch / "cache"
        env = {**os.environ, "AGENTSFENCE_CACHE": str(cache)}
        in_process = [str(PYTHON), "-m", "agentsfence.cli", "compile"]
        print(f"{'policy':<28} {'Node':>8} {'in-process':>11} {'first start':>12}   (seconds, median of {options.rounds})")
        for name, policy in (("policies/defaults.yaml", REPO / "policies" / "defaults.yaml"), ("1,000 rules", rules)):
            node = statistics.median(timed(["node", str(BUNDLE), str(policy), "-o", str(out)], env) for _ in range(options.rounds))
            warm = statistics.median(timed([*in_process, str(policy), "-o", str(out)], env) for _ in range(options.rounds))
            cold = []
            for _ in range(options.rounds):
                shutil.rmtree(cache, ignore_errors=True)
                cold.append(timed([*in_process, str(policy), "-o", str(out)], env))
            print(f"{name:<28} {node:>8.2f} {warm:>11.2f} {statistics.median(cold):>12.2f}")
        for wheel in sorted((REPO / "build" / "wheel").glob("*.whl")):
            print(f"{wheel.name}: {wheel.stat().st_size:,} bytes")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
