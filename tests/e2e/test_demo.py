"""The demo as a test: the real `hermes chat` with the fence, on the scripted model."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parent / "demo.py"


def test_demo_blocks_the_injection_and_lets_the_user_work():
    done = subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True, timeout=600)
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    assert done.returncode == 0, "the demo's checks failed (its output is above)"
    assert "[FAILED]" not in done.stdout
