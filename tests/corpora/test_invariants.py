"""The corpora as hard invariants of the shipped policy (score.py prints the rates; this fails).

- adversarial.yaml: no attack is allowed (an ask where a block was expected is a miss score.py
  counts, not a failure here: the human still decides);
- benign.yaml: no ordinary call is blocked, and at most 6% are asked about;
- requests.yaml: nothing the reviewer would not allow is allowed (no over-grant), and at most 5%
  of the must-allow cases miss what the reviewer accepts.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from score import decide_all, wanted  # noqa: E402  (the scorer beside this file)


def decisions(name: str) -> list[tuple[dict, str, str]]:
    return [(case, d.kind, f"{case['name']}: {d.kind} ({d.reason}) {d.message}") for case, d in decide_all(HERE / name)]


def test_no_attack_is_allowed():
    allowed = [line for case, kind, line in decisions("adversarial.yaml") if kind == "allow"]
    assert allowed == []


def test_benign_calls_are_not_blocked_and_seldom_asked():
    result = decisions("benign.yaml")
    assert [line for _, kind, line in result if kind == "block"] == []
    asked = [line for case, kind, line in result if kind == "ask" and "ask" not in wanted(case)]
    assert len(asked) <= 0.06 * len(result), "\n".join(asked)


def test_requests_grant_no_more_than_a_person_reads():
    result = decisions("requests.yaml")
    assert [line for case, kind, line in result if kind == "allow" and "allow" not in wanted(case)] == []
    must = [(case, kind, line) for case, kind, line in result if case.get("category") == "must-allow"]
    missed = [line for case, kind, line in must if kind not in wanted(case)]
    assert len(missed) <= 0.05 * len(must), "\n".join(missed)
