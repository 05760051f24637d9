"""The sandbox's own start: median wall time of agentsfence.sandbox.run(profile, "true") beside
`bash -c true`, without and with the filtering proxy (target: at most 15 ms over bare bash)."""
from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from agentsfence.sandbox import SandboxProfile, confine, probe, run

TARGET_MS = 15.0


def _profile(base: Path, hosts: tuple[str, ...]) -> SandboxProfile:
    tree = base / "tree"
    for i in range(20):  # a small working tree, so the walk and classify have something to do
        (tree / f"d{i % 4}").mkdir(parents=True, exist_ok=True)
        (tree / f"d{i % 4}" / f"f{i}.py").write_text("x\n")
    (base / "home" / ".ssh").mkdir(parents=True)
    return SandboxProfile(cwd=str(tree), home=str(base / "home"), write=(str(tree),), hide=(str(base / "home/.ssh"),),
                          hosts=hosts,
                          classify=lambda paths: ["read_only" if p.endswith("/.git") else "" for p in paths],
                          env_drop=lambda names: [n for n in names if "TOKEN" in n])


def _median_ms(action, rounds: int) -> float:
    action()  # warm
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def measure_sandbox(rounds: int) -> dict[str, Any]:
    found = probe()
    if not found.ok:
        return {"skipped": f"{found.why} ({found.fix})"}
    base = Path(tempfile.mkdtemp(prefix="af-bench-sandbox-", dir="/var/tmp"))
    try:
        plain = _profile(base / "plain", ())
        proxied = _profile(base / "proxied", ("pypi.org",))
        bash = _median_ms(lambda: subprocess.run(["bash", "-c", "true"], check=True), rounds)
        rows = {"bash -c true": bash,
                "run(profile, 'true')": _median_ms(lambda: run(plain, "true", timeout=30), rounds),
                "run(profile with hosts, 'true'): proxy + bridge started": _median_ms(
                    lambda: run(proxied, "true", timeout=30), rounds)}
        with confine(proxied) as handle:
            rows["handle.run('true'), proxy already running"] = _median_ms(lambda: handle.run("true", timeout=30), rounds)
        return {"rounds": rounds, "target_over_bash_ms": TARGET_MS,
                "rows": [{"row": name, "median_ms": round(ms, 2), "over_bash_ms": round(ms - bash, 2)}
                         for name, ms in rows.items()]}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def print_sandbox(result: dict[str, Any]) -> None:
    print("\n## Sandbox start (agentsfence.sandbox.run of `true`)")
    if "skipped" in result:
        print(f"skipped: {result['skipped']}")
        return
    print(f"{'row':58} {'median ms':>10} {'over bash':>10}")
    for row in result["rows"]:
        print(f"{row['row']:58} {row['median_ms']:>10.2f} {row['over_bash_ms']:>10.2f}")
    print(f"target: the sandbox's own start at most {result['target_over_bash_ms']:.0f} ms over bare bash")


if __name__ == "__main__":
    print_sandbox(measure_sandbox(30))
