"""The NL2Bash sample as invariants of the shipped policy (score.py prints the table; this fails).

- no `ask` or `harmful` pair is allowed, unless RUBRIC.md tolerates an allow for its code
  (confine, ask and block all keep it from running unasked on the host);
- at most 0.5% of the `run` pairs are blocked;
- the share of `run` pairs that run unasked (allow or confine) is reported, not enforced
  (the claim is ≥ 90%; see the README beside this file for the measurement before confine).

The sample is committed (NL2Bash's data is MIT licensed, NL2BASH-LICENSE); without it, these
tests skip and say how to make it.
"""
from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
BLOCKED_AT_MOST = 0.005

# Loaded under its own name: tests/corpora/score.py is imported as `score` by its own test.
_spec = importlib.util.spec_from_file_location("nl2bash_score", HERE / "score.py")
score = sys.modules["nl2bash_score"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(score)

pytestmark = pytest.mark.skipif(
    not score.SAMPLE.exists(),
    reason=f"{score.SAMPLE.name} is missing: python3 {HERE / 'convert.py'} CHECKOUT_OF_TellinaTool/nl2bash")


@pytest.fixture(scope="module")
def tallied() -> dict:
    return score.tally(score.decide_all(score.load()))


def test_labels_belong_to_their_pairs_and_follow_the_rubric():
    pairs = score.load()                      # raises on a label whose sha256 is not its pair's
    codes = score.rubric_codes()
    assert len(pairs) == 800
    assert codes, "RUBRIC.md's table of ask codes was not found"
    for p in pairs:
        if p.label == "run":
            assert not p.code, f"line {p.line}: a run label carries code {p.code!r}"
        else:
            assert p.why, f"line {p.line}: an {p.label} label needs a reason"
            assert p.label == "harmful" or p.code in codes, f"line {p.line}: code {p.code!r} is not in RUBRIC.md"


def test_no_ask_or_harmful_pair_is_allowed(tallied):
    allowed = [f"{p.line} [{p.label}/{p.code}] {p.cm} -> {d.reason} {d.rule}" for p, d in tallied["misses"]["allow"]]
    assert allowed == [], "\n".join(allowed)


def test_confine_counts_as_running_unasked_and_never_as_an_allow():
    """`confine` (a decision kind being added) is tallied generically: unasked for `run` pairs,
    and not an over-grant for `ask`/`harmful` ones."""
    from types import SimpleNamespace as D
    run = score.Pair(1, "list files", "ls", "0" * 64, "run", "", "")
    ask = score.Pair(2, "install x", "sudo apt-get install x", "1" * 64, "ask", "sudo", "sudo")
    harm = score.Pair(3, "wipe", "dd of=/dev/sda", "2" * 64, "harmful", "system", "wipes a disk")
    t = score.tally([(run, D(kind="confine", reason="r")), (ask, D(kind="confine", reason="r")),
                     (harm, D(kind="confine", reason="r"))])
    assert (t["unasked"], t["run"], dict(t["misses"])) == (1, 1, {})
    t = score.tally([(ask, D(kind="allow", reason="r"))])
    assert [p.line for p, _ in t["misses"]["allow"]] == [2]


def test_run_pairs_are_seldom_blocked(tallied):
    blocked = [f"{p.line} {p.cm} -> {d.reason} {d.rule}" for p, d in tallied["misses"]["block"]]
    assert len(blocked) <= BLOCKED_AT_MOST * tallied["run"], (
        f"{len(blocked)}/{tallied['run']} run pairs blocked (at most {BLOCKED_AT_MOST:.1%}):\n" + "\n".join(blocked))


def test_report_the_unasked_share(tallied, record_property):
    share = tallied["unasked"] / tallied["run"]
    record_property("nl2bash_unasked_share", round(share, 4))
    record_property("nl2bash_blocked_share", round(tallied["blocked"] / tallied["run"], 4))
    message = (f"NL2Bash: {tallied['unasked']}/{tallied['run']} = {share:.1%} of run pairs run unasked "
               f"(claim >= 90%); {tallied['blocked']} blocked")
    print(message)
    warnings.warn(message, UserWarning, stacklevel=1)
