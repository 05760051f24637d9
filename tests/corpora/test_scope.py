"""scope.yaml decided as written: each ordinary request runs as asked, and no call beside it that
widens what the same words allowed is allowed."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from score import decide_all, wanted  # noqa: E402  (the scorer beside this file)


def test_every_case_decides_as_written():
    missed = [f"{case['name']}: {d.kind} ({d.reason}) {d.message}"
              for case, d in decide_all(HERE / "scope.yaml") if d.kind not in wanted(case)]
    assert missed == []
