"""Running fence_gateway.py processes, and reading what they and the store left."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentsfence.audit import verify
from agentsfence.store import open_store

WORKER = Path(__file__).with_name("fence_gateway.py")


def environment(home: Path) -> dict[str, str]:
    return {**os.environ, "HERMES_HOME": str(home), "HOME": str(home.parent), "PYTHONUNBUFFERED": "1"}


def start(home: Path, session: str, attempts: int, sends: Path, pause: float = 0.0) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WORKER), session, str(attempts), str(sends), str(pause)],
                            env=environment(home), cwd=home.parent, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)


def result(process: subprocess.Popen[str], timeout: float = 300) -> tuple[list[str], dict]:
    """The worker's marker lines and its final JSON report."""
    out, _ = process.communicate(timeout=timeout)
    lines = out.splitlines()
    assert process.returncode == 0 and lines and lines[-1].startswith("{"), out[-2000:]
    return lines[:-1], json.loads(lines[-1])


def sent(sends: Path) -> list[str]:
    return sends.read_text().split() if sends.exists() else []


def stored(home: Path, state: str, session: str) -> tuple[int, dict[str, int], int]:
    """(messages saved, units spent and held by budget, open reservations) of a session in the store."""
    store = open_store(state, home / "agentsfence")
    try:
        loaded = store.load(session)
        if loaded is None:  # nothing saved yet (a gateway killed before its first turn was)
            return 0, {}, 0
        _, items, units = loaded
        with store.transaction(write=False) as tx:
            (open_reservations,) = tx.one("SELECT count(*) FROM reservations WHERE session_id = ?", (session,))
        return sum(1 for item in items if item.kind == "message"), units, open_reservations
    finally:
        store.close()


def chain_ok(home: Path) -> tuple[bool, int, list[str]]:
    verdict = verify(home / "agentsfence" / "audit.jsonl")
    return verdict.ok, verdict.records, verdict.problems


def decisions(home: Path) -> list[dict]:
    path = home / "agentsfence" / "audit.jsonl"
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["event"] == "decision"]
