"""The hash-chained audit log: chaining, rotation, tamper detection, torn writes, redaction,
concurrent writers, the `agentsfence audit` commands, and what the hook does when it cannot write."""
from __future__ import annotations

import errno
import json
import os
import threading
import time
from pathlib import Path

import pytest

from agentsfence import audit as audit_module
from agentsfence.api import Decision, Fence
from agentsfence.audit import GENESIS, AuditError, AuditLog, argument_shapes, rotated_files, scrub, verify
from agentsfence.cli import main as cli_main

ALLOW = Decision("allow", "rule_allow", "write-named", "file.write", "write", "AgentsFence allowed write_file",
                 targets=(("path", "/u/notes.md"),))


def write_records(log: AuditLog, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        log.decision("s1", "write_file", f"call-{i}", {"path": f"notes-{i}.md", "content": "x" * i}, ALLOW, 12.5)


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "agentsfence" / "audit.jsonl"


def test_records_chain_from_genesis_and_verify(log_path):
    log = AuditLog(log_path)
    write_records(log, 5)
    log.event("outcome", "s1", "write_file", "call-4", status="ok", duration_ms=3)
    records = [json.loads(line) for line in lines_of(log_path)]
    assert [r["seq"] for r in records] == [1, 2, 3, 4, 5, 6]
    assert records[0]["prev"] == GENESIS
    assert all(later["prev"] == earlier["hash"] for earlier, later in zip(records, records[1:]))
    verdict = verify(log_path)
    assert verdict.ok and verdict.records == 6 and verdict.head == records[-1]["hash"]


def test_a_new_writer_continues_the_chain(log_path):
    write_records(AuditLog(log_path), 3)
    write_records(AuditLog(log_path), 2, start=3)  # a restarted Hermes
    assert [json.loads(line)["seq"] for line in lines_of(log_path)] == [1, 2, 3, 4, 5]
    assert verify(log_path).ok


def test_rotation_keeps_one_chain_across_files(log_path):
    log = AuditLog(log_path, max_bytes=2000)
    write_records(log, 30)
    rotated = rotated_files(log_path)
    assert len(rotated) >= 3
    for file in rotated:  # rotated once full: over max_bytes by less than its last record
        lines = lines_of(file)
        assert file.stat().st_size - len(lines[-1]) < 2000 <= file.stat().st_size
    first_of_current = json.loads(lines_of(log_path)[0])
    last_of_previous = json.loads(lines_of(rotated[-1])[-1])
    assert first_of_current["prev"] == last_of_previous["hash"]
    verdict = verify(log_path)
    assert verdict.ok and verdict.records == 30
    # A writer that finds no current file picks the head up from the newest rotated one. The
    # chain alone cannot tell a deleted current file; the head its writers saved in the state
    # store beside the log can (close saves the last head; a running writer saves it within
    # HEAD_SAVE_SECONDS).
    log.close()
    log_path.unlink()
    write_records(AuditLog(log_path, max_bytes=2000), 1)
    assert json.loads(lines_of(log_path)[0])["prev"] == json.loads(lines_of(rotated[-1])[-1])["hash"]
    after = verify(log_path)
    assert after.head != verdict.head and [p for p in after.problems if "were cut off the end" in p] == after.problems != []
    (log_path.parent / "state.db").unlink()  # with no saved head, the chain alone verifies
    assert verify(log_path).ok


def test_writers_follow_a_rotation_another_writer_made(log_path):
    first, second = AuditLog(log_path, max_bytes=1500), AuditLog(log_path, max_bytes=1500)  # as two processes
    for i in range(40):
        write_records(first if i % 3 else second, 1, start=i)
    assert len(rotated_files(log_path)) >= 4
    verdict = verify(log_path)
    assert verdict.ok and verdict.records == 40


def test_a_writer_follows_its_file_deleted_or_moved_by_hand(log_path):
    log = AuditLog(log_path, link_check_seconds=0)  # looks at every write
    write_records(log, 2)
    log_path.unlink()  # the open file has no link left: the next record starts a new file
    write_records(log, 1, start=2)
    assert [json.loads(line)["seq"] for line in lines_of(log_path)] == [1]
    moved = log_path.with_name("kept.jsonl")
    log_path.rename(moved)  # its ctime moves past its mtime: the writer looks the path up again
    write_records(log, 1, start=3)
    assert len(lines_of(moved)) == 1 and [json.loads(line)["call"] for line in lines_of(log_path)] == ["call-3"]


def test_a_file_moved_by_hand_is_followed_within_the_link_check_interval(log_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("agentsfence.audit.time.monotonic", lambda: clock[0])
    log = AuditLog(log_path, link_check_seconds=1.0)
    write_records(log, 1)
    moved = log_path.with_name("kept.jsonl")
    log_path.rename(moved)
    write_records(log, 1, start=1)  # within the second: still into the file it holds, now kept.jsonl
    clock[0] += 1.0
    write_records(log, 1, start=2)
    assert [json.loads(line)["call"] for line in lines_of(moved)] == ["call-0", "call-1"]
    assert [json.loads(line)["call"] for line in lines_of(log_path)] == ["call-2"]


def tamper(path: Path, change) -> None:
    lines = lines_of(path)
    change(lines)
    path.write_bytes(b"".join(lines))


def test_an_edited_record_is_named(log_path):
    write_records(AuditLog(log_path), 5)
    tamper(log_path, lambda lines: lines.__setitem__(2, lines[2].replace(b'"kind":"allow"', b'"kind":"block"')))
    verdict = verify(log_path)
    assert verdict.problems == ["audit.jsonl:3: record 3 was edited (its content does not match its hash)"]


def test_an_edited_record_with_its_hash_recomputed_breaks_the_next_link(log_path):
    write_records(AuditLog(log_path), 5)

    def rewrite(lines):
        record = json.loads(lines[1])
        record["args"]["path"] = "/etc/passwd"
        del record["hash"]
        body = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        digest = audit_module._sha256(body.encode())
        lines[1] = f'{body[:-1]},"hash":"{digest}"}}\n'.encode()

    tamper(log_path, rewrite)
    assert verify(log_path).problems == ["audit.jsonl:2: record 2 was edited or replaced (record 3 at audit.jsonl:3 does not chain to it)"]


def test_a_removed_record_is_named(log_path):
    write_records(AuditLog(log_path), 6)
    tamper(log_path, lambda lines: lines.__delitem__(3))
    assert verify(log_path).problems == ["audit.jsonl:4: record 4 missing before record 5: removed"]
    tamper(log_path, lambda lines: lines.__delitem__(0))
    assert "record 1 missing before record 2: removed" in verify(log_path).problems[0]


def test_reordered_records_are_named(log_path):
    write_records(AuditLog(log_path), 6)

    def swap(lines):
        lines[2], lines[3] = lines[3], lines[2]

    tamper(log_path, swap)
    problems = verify(log_path).problems
    assert problems == ["audit.jsonl:3: record 3 belong before record 4 but is at audit.jsonl:4: records were moved",
                        "audit.jsonl:4: record 3 is out of order (after record 4): records were moved"]


def test_a_removed_rotated_file_is_named(log_path):
    write_records(AuditLog(log_path, max_bytes=2000), 30)
    rotated_files(log_path)[1].unlink()
    assert any("missing" in problem and "removed" in problem for problem in verify(log_path).problems)


def test_a_write_cut_short_loses_only_that_record(log_path):
    write_records(AuditLog(log_path), 4)
    whole = log_path.read_bytes()
    torn = lines_of(log_path)[-1][:-20]  # a fifth record, cut by a crash mid-write
    log_path.write_bytes(whole + torn)
    verdict = verify(log_path)
    assert verdict.ok and verdict.records == 4
    assert verdict.notes == [f"audit.jsonl:5: an incomplete last record ({len(torn)} bytes: a write cut short by a crash) was ignored"]
    # The next writer cuts the torn tail off, says so in the chain, and carries on.
    write_records(AuditLog(log_path), 1, start=4)
    assert log_path.read_bytes().startswith(whole)
    records = [json.loads(line) for line in lines_of(log_path)]
    assert [(r["seq"], r["event"]) for r in records][-2:] == [(5, "recovered"), (6, "decision")]
    assert records[4]["dropped_bytes"] == len(torn)
    assert verify(log_path).ok and not verify(log_path).notes


def test_concurrent_writers_in_threads_and_processes_keep_one_chain(log_path):
    first, second = AuditLog(log_path), AuditLog(log_path)  # two writers, as two processes would be
    threads = [threading.Thread(target=write_records, args=(log, 50, i * 50)) for i, log in enumerate([first, second] * 4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    verdict = verify(log_path)
    assert verdict.ok and verdict.records == 400
    calls = sorted(json.loads(line)["call"] for line in lines_of(log_path))
    assert calls == sorted(f"call-{i}" for i in range(400))  # none lost, none doubled


SECRETS = ["sk-ant-api03-abcdefghijklmnopqrstuvwx", "ghp_abcdefghijklmnopqrstuvwxyz012345", "AKIAIOSFODNN7EXAMPLE",
           "hunter2hunter2", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
           "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"]


ROLES_POLICY = """version: 1
name: audit-roles
extends: [defaults]
tools:
  - name: deploy_site
    capability: net.deploy
    risk: egress
    args: {zorblat: url, quux_mailbox: email, script: code, content: data, unmapped_note: data, api_key: data, headers: data}
"""


@pytest.fixture(scope="module")
def roles_fence(tmp_path_factory) -> Fence:
    from agentsfence.compiler import compile_policy

    source = tmp_path_factory.mktemp("policy") / "roles.yaml"
    source.write_text(ROLES_POLICY)
    return Fence(compile_policy([source]), home="/home/u", cwd="/home/u/work")


def recorded(log_path: Path, fence: Fence, tool: str, args: dict) -> dict:
    AuditLog(log_path).decision("s", tool, "c1", args, fence.session("s").decide(tool, args), 1.0)
    return json.loads(log_path.read_text().splitlines()[-1])


def test_the_policys_roles_choose_what_is_recorded(log_path, roles_fence):
    """An argument is recorded as the targets the policy's role for it made: an unusual name the
    policy maps is kept (normalised), one it marks as data leaves nothing of its value, and one
    without a role is read by its shape (a URL is a target wherever it appears)."""
    args = {"zorblat": "https://Example.COM/site?x=1", "quux_mailbox": "Ops <OPS@Example.com>",
            "unmapped_note": "https://not-recorded.example/x", "url": "https://by-its-shape.example/"}
    record = recorded(log_path, roles_fence, "deploy_site", args)
    assert record["targets"] == [["url", "https://example.com/site?x=1"], ["domain", "example.com"], ["email", "ops@example.com"],
                                 ["url", "https://by-its-shape.example/"], ["domain", "by-its-shape.example"]]
    assert record["args"] == {"zorblat": "str, 28 chars", "quux_mailbox": "str, 21 chars", "unmapped_note": "str, 30 chars",
                              "url": "str, 29 chars"}
    text = log_path.read_text()
    assert "not-recorded" not in text and "Ops" not in text
    assert verify(log_path).ok


def test_secrets_in_targets_are_scrubbed_and_content_is_never_written(log_path, roles_fence):
    args = {
        "zorblat": f"https://deploy:{SECRETS[3]}@git.example.com/repo.git",
        "script": f"fetch('https://api.example.com/v1?api_key={SECRETS[2]}') // {SECRETS[1]}",
        "content": f"the key is {SECRETS[1]} and {SECRETS[5]}, write to bob@example.com",
        "api_key": SECRETS[0],
        "headers": {"Authorization": SECRETS[4]},
    }
    record = recorded(log_path, roles_fence, "deploy_site", args)
    text = log_path.read_text()
    for secret in SECRETS:
        for fragment in secret.split("\n"):
            assert fragment not in text, fragment
    assert ["url", "https://[secret]@git.example.com/repo.git"] in record["targets"]
    assert ["url", "https://api.example.com/v1?api_key=[secret]"] in record["targets"]  # a URL the code named
    assert "bob@example.com" not in text and "fetch" not in text  # content and code: shape only
    assert record["args"]["content"] == f"str, {len(args['content'])} chars"
    assert record["args"]["headers"] == "dict, 1 items" and record["args"]["api_key"] == f"str, {len(SECRETS[0])} chars"
    command = f"curl -H 'Authorization: Bearer {SECRETS[0]}' https://api.example.com/?token={SECRETS[1]}"
    record = recorded(log_path, roles_fence, "terminal", {"command": command})
    assert ["program", "curl"] in record["targets"] and ["url", "https://api.example.com/?token=[secret]"] in record["targets"]
    assert SECRETS[0] not in log_path.read_text() and SECRETS[1] not in log_path.read_text()


def test_a_fault_records_no_targets_and_every_value_as_its_shape(log_path):
    odd = {"path": b"\xff", "to": {1, 2}, "url": float("nan"), "command": "x" * 5000, 3: "key", "mode": ["a"] * 1000}
    assert json.loads(argument_shapes(odd)) == {"path": "bytes, 1 bytes", "to": "set, 2 items", "url": "float", "command": "str, 5000 chars",
                                    "[int key]": "str, 3 chars", "mode": "list, 1000 items"}
    assert json.loads(argument_shapes("not a dict")) == "str, 10 chars"
    quoted = type('list"}', (list,), {})  # a subclass whose name would end the JSON string
    assert json.loads(argument_shapes({"k" * 100: quoted([1]), "n": 1})) == {"k" * 64: 'list"}, 1 items', "n": "int"}
    many = {f"a{i}": i for i in range(300)}
    shapes = json.loads(argument_shapes(many))
    assert len(shapes) == 257 and shapes["[more]"] == "44 arguments" and shapes["a0"] == "int"
    fault = Decision("block", "bad_arguments", "", "", "", "AgentsFence blocked t: the arguments are not JSON [bad_arguments]")
    AuditLog(log_path).decision("s", "t", "", odd, fault, 0.0)
    record = json.loads(log_path.read_text())
    assert record["targets"] == [] and record["args"]["command"] == "str, 5000 chars"
    assert verify(log_path).ok


def test_a_long_target_is_cut_and_says_how_long_it_was():
    assert scrub("/srv/" + "x" * 600) == "/srv/" + "x" * 507 + "…[605 chars]"


def test_a_lone_surrogate_is_recorded_escaped(log_path):
    AuditLog(log_path).decision("s\udcff", "tool\ud800", "c", {"pa\udfffth": "a"}, ALLOW, 1.0)
    record = json.loads(log_path.read_bytes())
    assert (record["session"], record["tool"], list(record["args"])) == ("s\udcff", "tool\ud800", ["pa\udfffth"])
    assert verify(log_path).ok


def test_audit_verify_and_tail_commands(log_path, capsys):
    write_records(AuditLog(log_path), 3)
    assert cli_main(["audit", "verify", str(log_path)]) == 0
    assert capsys.readouterr().out.startswith("ok: 3 records chain from the start; head ")
    assert cli_main(["audit", "tail", str(log_path), "-n", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith("2 ") and "decision s1 write_file allow rule_allow" in out[0]
    assert out[1].endswith("rule_allow path:/u/notes.md")  # a record's targets, as the evaluator made them
    tamper(log_path, lambda lines: lines.__delitem__(1))
    assert cli_main(["audit", "verify", str(log_path)]) == 1
    assert "TAMPERED: audit.jsonl:2: record 2 missing before record 3: removed" in capsys.readouterr().out


def test_audit_verify_defaults_to_the_hermes_home(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    write_records(AuditLog(tmp_path / "agentsfence" / "audit.jsonl"), 2)
    assert cli_main(["audit", "verify"]) == 0
    assert "2 records" in capsys.readouterr().out


def test_a_full_disk_fails_the_write_and_keeps_what_was_written(tmp_path):
    path = tmp_path / "audit.jsonl"
    os.symlink("/dev/full", path)
    with pytest.raises(AuditError, match="cannot be written: No space left on device"):
        write_records(AuditLog(path), 1)


def test_the_hook_overhead_of_a_record(log_path):
    """Not a timing assertion: prints what one record costs, for the README's figure."""
    log = AuditLog(log_path)
    args = {"command": "curl -s https://docs.python.org/3/ -o notes.html", "workdir": "/home/u/project"}
    log.decision("s", "terminal", "c", args, ALLOW, 1.0)
    rounds = 2000
    started = time.perf_counter_ns()
    for i in range(rounds):
        log.decision("s", "terminal", f"c{i}", args, ALLOW, 1.0)
    print(f"audit record: {(time.perf_counter_ns() - started) / rounds / 1000:.1f} µs each")
    assert verify(log_path).records == rounds + 1


def test_a_read_only_state_directory_raises_a_named_error(log_path, monkeypatch):
    write_records(AuditLog(log_path), 2)
    before = log_path.read_bytes()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(audit_module.os, "open", read_only)
    with pytest.raises(AuditError, match="Read-only file system"):
        write_records(AuditLog(log_path), 1)
    monkeypatch.undo()
    assert log_path.read_bytes() == before and verify(log_path).ok


class CountingHeads:
    """A store that counts the heads it is given."""

    def __init__(self) -> None:
        self.saved: list[tuple[int, str]] = []

    def set_audit_head(self, log: str, seq: int, digest: str, size: int, inode: int) -> None:
        self.saved.append((seq, digest))
        time.sleep(0.0002)  # a store write takes time, as SQLite's does


def test_a_burst_of_records_saves_the_head_at_most_once_per_interval(log_path):
    """The head's store write took the GIL once per record; decisions paid for it. A burst now
    saves it at most once per HEAD_SAVE_SECONDS (plus the first and close's), and the last head
    is the one close leaves."""
    heads = CountingHeads()
    log = AuditLog(log_path, heads=heads)
    started = time.monotonic()
    write_records(log, 2000)
    elapsed = time.monotonic() - started
    log.close()
    allowed = elapsed / audit_module.HEAD_SAVE_SECONDS + 3
    assert 1 <= len(heads.saved) <= allowed, (len(heads.saved), allowed)
    last = json.loads(lines_of(log_path)[-1])
    assert heads.saved[-1] == (last["seq"], last["hash"])
