"""Gateways killed with SIGKILL at random points of a session with a one-send budget, each killed
one followed by another that continues the session: never a second send, no turn or spend
lost, and the audit chain verifies after every restart.

STATE_KILLS kills (default 10; `make fuzz` runs 100); STATE_KILL_SEED repeats a run."""
from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

from conftest import make_home
from gateways import chain_ok, result, sent, start, stored

KILLS = int(os.environ.get("STATE_KILLS", "10"))
SEND_SECONDS = 0.3  # how long a send takes: the window a kill during the first send lands in


def test_kill_9_at_random_points_never_sends_twice_nor_loses_a_record(tmp_path: Path):
    seed = int(os.environ.get("STATE_KILL_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    home = make_home(tmp_path, 1)
    sends = tmp_path / "sends.log"
    runs: list[str] = []  # every call the fence let run, in any process
    turns = 0  # turns a process reported saved
    killed = during_send = 0
    for kill in range(KILLS):
        worker = start(home, "one-send", 2, sends, SEND_SECONDS)
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "READY", f"seed {seed}: the gateway did not start"
        seen = ""
        if rng.random() < 0.5:
            # Anywhere from the turn's binding through a send and its outcome to the second attempt.
            time.sleep(rng.uniform(0, 0.6))
        else:  # during a send: after the fence let it run, before its outcome is reported
            while not seen.startswith(("RUN ", "{")) and worker.poll() is None:
                seen = worker.stdout.readline() or "{"
            if seen.startswith("RUN "):
                during_send += 1
                time.sleep(rng.uniform(0, SEND_SECONDS))
        worker.send_signal(signal.SIGKILL)
        out, _ = worker.communicate(timeout=60)
        out = seen + out
        killed += worker.returncode == -signal.SIGKILL
        runs += [line.split()[1] for line in out.splitlines() if line.startswith("RUN ")]
        turns += sum(1 for line in out.splitlines() if line.startswith("TURN "))
        assert len(runs) <= 1, f"seed {seed}, kill {kill}: a second send was let through: {runs}"
        ok, _, problems = chain_ok(home)
        assert ok, f"seed {seed}, kill {kill}: {problems}"
        messages, units, open_reservations = stored(home, "", "one-send")
        assert messages >= turns, f"seed {seed}, kill {kill}: a saved turn was lost"
        # A send that ran (or may have: killed between its decision and its outcome) is counted.
        assert sum(units.values()) >= len(runs) * 1_000_000, f"seed {seed}, kill {kill}: a spend was lost"
    lines, _ = result(start(home, "one-send", 2, sends))  # one more, left to finish
    runs += [line.split()[1] for line in lines if line.startswith("RUN ")]
    assert len(runs) <= 1 and len(sent(sends)) <= 1, f"seed {seed}: {runs}"
    assert chain_ok(home)[0]
    print(f"\n{KILLS} kills ({killed} by SIGKILL, the rest finished first; {during_send} during a send; seed {seed}): "
          f"{len(runs)} send(s) let through, {len(sent(sends))} recorded, 0 records lost")
