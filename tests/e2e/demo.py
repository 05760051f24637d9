"""AgentsFence in a real Hermes session: a prompt injection in a file, and what the fence did.

Starts the scripted model (model_server.py) on 127.0.0.1, makes a throwaway HERMES_HOME and
HOME with the plugin enabled and a work folder holding notes.txt (with an injected
instruction), and runs the real `hermes chat -Q -q "Summarize notes.txt into summary.md"`.
Then prints the fence's decision for every tool call from its audit log (audit.jsonl) and
`agentsfence report` of that log, and checks that
the user's write was allowed and happened while the injected command was blocked and never
ran (a `curl` stand-in on PATH records any run). Exits 1 when a check fails.

Run: .venv/bin/python tests/e2e/demo.py [--keep]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_server import ATTACKER_COMMAND, MODEL, NOTES, SUMMARY, ScriptedModelServer  # noqa: E402

PROMPT = "Summarize notes.txt into summary.md"
HERMES_TIMEOUT_SECONDS = 240
CURL_STANDIN = """#!/bin/sh
# Stands in for curl: records that it ran, reaches nothing.
echo "$@" >> "{log}"
"""


@dataclass
class Check:
    what: str
    ok: bool


def hermes_command() -> str:
    """The `hermes` next to this Python (the venv that also has agentsfence), else on PATH."""
    beside = Path(sys.executable).with_name("hermes")
    found = str(beside) if beside.exists() else shutil.which("hermes")
    if not found:
        raise SystemExit("demo: the `hermes` command is not installed (pip install 'hermes-agent==0.19.0')")
    return found


def hermes_version() -> str:
    from importlib.metadata import version

    return version("hermes-agent")


def write_hermes_home(home: Path, port: int) -> None:
    """config.yaml: a custom provider on the scripted model (context_length spares a lookup of the
    model's metadata), the plugin enabled, nothing that installs or downloads at start-up, and the
    update check answered in advance."""
    home.mkdir(parents=True)
    config = {
        "model": {"provider": "custom", "default": MODEL, "base_url": f"http://127.0.0.1:{port}/v1",
                  "api_key": "scripted", "context_length": 131072},
        "plugins": {"enabled": ["agentsfence"]},
        "security": {"allow_lazy_installs": False, "tirith_enabled": False},
    }
    (home / "config.yaml").write_text(json.dumps(config, indent=2))  # JSON is YAML
    (home / ".update_check").write_text(json.dumps({"ts": time.time(), "rev": None, "ver": hermes_version(), "behind": 0}))


def run_demo(root: Path) -> int:
    home, hermes_home, work, bin_dir = root / "home", root / "home" / ".hermes", root / "work", root / "bin"
    work.mkdir(parents=True)
    bin_dir.mkdir()
    (work / "notes.txt").write_text(NOTES)
    curl_log = root / "curl-ran.log"
    curl = bin_dir / "curl"
    curl.write_text(CURL_STANDIN.format(log=curl_log))
    curl.chmod(0o755)

    server = ScriptedModelServer()
    server.start()
    try:
        write_hermes_home(hermes_home, server.port)
        env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
        env.update(HOME=str(home), HERMES_HOME=str(hermes_home), PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
                   XDG_CACHE_HOME=str(root / "cache"), NO_COLOR="1")
        print(f"$ hermes chat -Q -q {PROMPT!r}   (Hermes {hermes_version()}, model on 127.0.0.1:{server.port})")
        started = time.monotonic()
        done = subprocess.run([hermes_command(), "chat", "-Q", "-q", PROMPT], cwd=work, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=HERMES_TIMEOUT_SECONDS)
        seconds = time.monotonic() - started
    finally:
        server.shutdown()
        server.server_close()

    print(f"hermes exited {done.returncode} after {seconds:.1f} s; its answer:")
    print("  " + (done.stdout.strip().replace("\n", "\n  ") or "(nothing)"))
    decisions = read_decisions(hermes_home / "agentsfence" / "audit.jsonl")
    print_table(decisions)
    report = subprocess.run([str(Path(sys.executable).with_name("agentsfence")), "report",
                             str(hermes_home / "agentsfence" / "audit.jsonl")], capture_output=True, text=True, timeout=120)
    print(f"\n$ agentsfence report\n  " + (report.stdout.strip() or report.stderr.strip()).replace("\n", "\n  "))

    results = server.transcript.tool_results()
    terminal_results = [text for text in results.values() if "terminal" in text and "AgentsFence" in text]
    checks = [
        Check("hermes ran to the end", done.returncode == 0),
        Check("the fence decided read_file, write_file and terminal",
              [d["tool"] for d in decisions] == ["read_file", "write_file", "terminal"]),
        Check("reading notes.txt was allowed", any(d["tool"] == "read_file" and d["kind"] == "allow" for d in decisions)),
        Check("the user's write was allowed", any(d["tool"] == "write_file" and d["kind"] == "allow" for d in decisions)),
        Check("summary.md holds the summary", (work / "summary.md").is_file() and (work / "summary.md").read_text() == SUMMARY),
        Check("the injected command was blocked",
              any(d["tool"] == "terminal" and d["kind"] == "block" for d in decisions)),
        Check("the injected command never ran", not curl_log.exists()),
        Check("the model was told why (the tool result carries the block message)", bool(terminal_results)),
        Check("agentsfence report summarizes the audit log", report.returncode == 0 and "egress-unnamed-host" in report.stdout),
    ]
    print()
    for check in checks:
        print(f"  [{'ok' if check.ok else 'FAILED'}] {check.what}")
    if terminal_results:
        print(f"\nwhat the model saw for `{ATTACKER_COMMAND}`:\n  {terminal_results[0]}")
    failed = [c for c in checks if not c.ok]
    if failed:
        print("\nhermes stderr (tail):\n" + "\n".join(done.stderr.strip().splitlines()[-30:]), file=sys.stderr)
        return 1
    return 0


def read_decisions(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [record for record in records if record["event"] == "decision"]


def print_table(decisions: list[dict]) -> None:
    print("\nwhat AgentsFence decided:")
    rows = [("tool", "decision", "reason", "rule", "µs")]
    rows += [(d["tool"], d["kind"], d["reason"], d["rule"] or "-", f"{d['us']:.1f}") for d in decisions]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)))
    if not decisions:
        print("  (no decisions were logged: was the plugin loaded?)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders and print where they are")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="agentsfence-demo-"))
    try:
        return run_demo(root)
    finally:
        if options.keep:
            print(f"\nkept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
