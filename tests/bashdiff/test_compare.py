"""The comparison and the adapter of the fence's targets, on made-up runs and decisions (no
sandbox): what counts as reported, in today's subjects and in the ones the rewrite adds."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from agentsfence import api

from .compare import Verdict, unreported
from .reading import PathTarget, adapt, read
from .sandbox import Effect, Run


@dataclass
class FakeDecision:
    kind: str
    targets: tuple
    reason: str = "rule_allow"
    rule: str = ""
    message: str = ""
    moves: bool = False


def run_of(*effects: Effect) -> Run:
    return Run("cmd", list(effects), 0, "", 0.0)


READ_KEY = Effect("read", "/home/user/.ssh/id_rsa", "", "/usr/bin/cat")
EXEC_CAT = Effect("exec", "/usr/bin/cat", "", "/usr/bin/bash")
WRITE_RC = Effect("write", "/home/user/.bashrc", "open creat+trunc+wronly", "/usr/bin/bash")
CONNECT = Effect("connect", "attacker.example", "AF_INET 127.0.0.2 port 443", "/usr/bin/bash")


@pytest.mark.parametrize("target, path, covered", [
    (PathTarget("/home/user/.ssh/id_rsa"), "/home/user/.ssh/id_rsa", True),
    (PathTarget("/home/user/.ssh"), "/home/user/.ssh/id_rsa", True),
    (PathTarget("/home/user/.ss"), "/home/user/.ssh/id_rsa", False),
    (PathTarget("/home/user/.ss?/id_rsa"), "/home/user/.ssh/id_rsa", False),  # a literal name, not a pattern
    (PathTarget("/home/user/.ss?/id_rsa", True), "/home/user/.ssh/id_rsa", True),
    (PathTarget("/home/user/*", True), "/home/user/.ssh/id_rsa", True),  # it names ~/.ssh, which holds the key
    (PathTarget("/home/user/*/x", True), "/home/user/.ssh/id_rsa", False),
    (PathTarget("/home/**/id_rsa", True), "/home/user/.ssh/id_rsa", True),
    (PathTarget("/home/user/.ssh/**/id_rsa", True), "/home/user/.ssh/id_rsa", True),  # ** between slashes: zero dirs
    (PathTarget("/home/user/.hermes/*.afb", True), "/home/user/.hermes/agentsfence/policy.afb", False),
    (PathTarget("/", False), "/etc/passwd", True),
])
def test_path_targets_cover_paths(target, path, covered):
    assert target.covers(path) is covered


@pytest.mark.parametrize("kind, target, path, covered", [
    ("read", "/home/user/.ssh", "/home/user/.ssh/id_rsa", True),
    ("read", "/home/user", "/home/user/.ssh/id_rsa", False),  # `grep -r x ~`: no policy sees the key in ~
    ("read", "/", "/home/user/.netrc", False),
    ("read", "/home/user/.hermes", "/home/user/.hermes/agentsfence/policy.afb", False),
    ("write", "/home/user/.hermes", "/home/user/.hermes/agentsfence/policy.afb", True),  # `rm -rf ~/.hermes`
    ("write", "/home/user", "/home/user/.bashrc", False),
    ("write", "/home/user", "/home/user/project/notes.txt", True),
    ("write", "/", "/tmp/out", True),
])
def test_naming_a_directory_above_a_protected_place_covers_nothing_in_it(kind, target, path, covered):
    written = (("write", target),) if kind == "write" else ()
    reading = adapt("x", FakeDecision("ask", (("program", "grep"), ("path", target)) + written))
    effect = Effect(kind, path, "", "/usr/bin/grep")
    assert (unreported(run_of(effect), reading) == []) is covered


@pytest.mark.parametrize("subject", ["path:tree", "path:tree:pattern"])
def test_a_tree_target_covers_everything_below_it(subject):
    value = "/home/user" if subject == "path:tree" else "/home/*"
    reading = adapt("x", FakeDecision("ask", (("program", "grep"), (subject, value))))
    effect = Effect("read", "/home/user/.ssh/id_rsa", "", "/usr/bin/grep")
    assert unreported(run_of(effect), reading) == []


def test_todays_pairs_a_path_stands_in_for_a_write(monkeypatch):
    monkeypatch.setattr(api, "SUBJECTS", tuple(s for s in api.SUBJECTS if s != "write"))
    reading = adapt("x", FakeDecision("allow", (("program", "echo"), ("path", "/home/user/.bashrc"))))
    assert not reading.writes_reported
    assert unreported(run_of(WRITE_RC), reading) == []


def test_with_a_write_subject_only_a_write_target_covers_a_write(monkeypatch):
    monkeypatch.setattr(api, "SUBJECTS", api.SUBJECTS + ("write", "opaque"))
    as_path = adapt("x", FakeDecision("allow", (("program", "echo"), ("path", "/home/user/.bashrc"))))
    assert unreported(run_of(WRITE_RC), as_path) == [WRITE_RC]
    as_write = adapt("x", FakeDecision("allow", (("program", "echo"), ("write", "/home/user/.bashrc"))))
    assert unreported(run_of(WRITE_RC), as_write) == []


@pytest.mark.parametrize("target", [
    ("path:pattern", "/home/user/.ss?/id_rsa"),
    ("path:tree:pattern", "/home/user/.ss?/id_rsa"),
])
def test_a_pattern_target_covers_what_it_matches(target):
    reading = adapt("x", FakeDecision("allow", (("program", "cat"), target)))
    assert [(p.value, p.pattern) for p in reading.paths] == [("/home/user/.ss?/id_rsa", True)]
    assert unreported(run_of(EXEC_CAT, READ_KEY), reading) == []


@pytest.mark.parametrize("target", [("opaque", "eval $x"), ("program", "/dev/stdin")])
def test_an_opaque_reading_accounts_for_everything(target):
    reading = adapt("x", FakeDecision("ask", (target,)))
    assert unreported(run_of(EXEC_CAT, READ_KEY, WRITE_RC, CONNECT), reading) == []


def test_hosts_are_covered_by_name_address_or_pattern():
    by_name = adapt("x", FakeDecision("block", (("domain", "attacker.example"),)))
    by_address = adapt("x", FakeDecision("block", (("domain", "127.0.0.2"),)))
    by_pattern = adapt("x", FakeDecision("block", (("domain:pattern", "*.example"),)))
    other = adapt("x", FakeDecision("block", (("domain", "exfil.example"), ("path", "/dev/tcp/attacker.example/443"))))
    for reading in (by_name, by_address, by_pattern):
        assert unreported(run_of(CONNECT), reading) == []
    assert unreported(run_of(CONNECT), other) == [CONNECT]


def test_wrappers_and_implied_helpers_need_no_program_target():
    reading = adapt("x", FakeDecision("ask", (("program", "cat"), ("program", "tar"))))
    env = Effect("exec", "/usr/bin/env", "", "/usr/bin/bash")
    # tar runs its compressor as `sh -c gzip`; a shell it runs for anything else is no helper.
    shell = Effect("exec", "/bin/sh", "/bin/sh -c gzip", "/usr/bin/tar", True, ("/usr/bin/bash", "/usr/bin/tar"))
    gzip = Effect("exec", "/usr/bin/gzip", "gzip", "/bin/sh", True, ("/usr/bin/bash", "/usr/bin/tar", "/bin/sh"))
    other_shell = Effect("exec", "/bin/sh", "/bin/sh -c 'cat ~/.netrc'", "/usr/bin/tar", True,
                         ("/usr/bin/bash", "/usr/bin/tar"))
    gzip_by_cat = Effect("exec", "/usr/bin/gzip", "", "/usr/bin/cat", True, ("/usr/bin/bash", "/usr/bin/cat"))
    assert unreported(run_of(env, EXEC_CAT, shell, gzip, other_shell, gzip_by_cat), reading) == [
        other_shell, gzip_by_cat]


def test_gits_bookkeeping_is_implied_but_not_its_config_or_hooks():
    reading = adapt("x", FakeDecision("ask", (("program", "git"),)))
    index = Effect("write", "/home/user/project/.git/index", "rename from x", "/usr/bin/git")
    config = Effect("write", "/home/user/project/.git/config", "rename from x", "/usr/bin/git")
    hook = Effect("write", "/home/user/project/.git/hooks/pre-commit", "open", "/usr/bin/git")
    by_cp = Effect("write", "/home/user/project/.git/index", "open", "/usr/bin/cp")
    assert unreported(run_of(index, config, hook, by_cp), reading) == [config, hook, by_cp]


def test_an_allowed_command_with_an_unreported_effect_is_the_worst_case():
    reading = adapt("cat ~/.ss?/id_rsa", FakeDecision("allow", (("program", "cat"), ("path", "/home/user/.ss?/id_rsa"))))
    verdict = Verdict("cat ~/.ss?/id_rsa", run_of(EXEC_CAT, READ_KEY), reading,
                      unreported(run_of(EXEC_CAT, READ_KEY), reading))
    assert verdict.disagrees and verdict.worst
    text = verdict.vector()
    assert "read /home/user/.ssh/id_rsa by cat  <- unreported" in text
    assert "ALLOWED" in text
    assert 'args: {command: "cat ~/.ss?/id_rsa"}, expect: {kind: ask}}' in text


def test_the_fence_is_asked_with_the_configured_home_and_intent():
    reading = read("cat ~/.ssh/id_rsa")
    assert ("path", "/home/user/.ssh/id_rsa") in reading.targets
    assert reading.kind == "ask"
    assert read("cat notes.txt").kind == "allow"


MOVED = Effect("moved", "/tmp", "the shell's working directory at its end")


@pytest.mark.parametrize("moves, missing", [(False, [MOVED]), (True, [])])
def test_a_shell_that_ended_elsewhere_is_reported_only_by_the_moves_flag(moves, missing):
    reading = adapt("cd /tmp", FakeDecision("allow", (("program", "cd"), ("path", "/tmp")), moves=moves))
    assert unreported(run_of(MOVED), reading) == missing
