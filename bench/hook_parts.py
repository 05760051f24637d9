"""Where the pre_tool_call hook's time goes: each step it takes, timed alone on the default mix.

Not a test and not part of `make bench`: a profile to read beside it. Each part runs every call
of the mix in turn, round after round (interleaved, like bench/run.py), and the table gives the
median and p99 over all samples. `--profile` adds a cProfile of the hook itself; `--fuel`
compares fence.wasm with wasmtime's fuel metering on and off (the product always runs it on);
`--target` compares code compiled for this CPU with the package's precompiled (baseline) module.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))

import workloads  # noqa: E402
from timing import measure, timer_floor_us  # noqa: E402

from agentsfence import codec, data, engine, evaluator  # noqa: E402
from agentsfence.api import Fence, encode_call  # noqa: E402
from agentsfence.audit import AuditLog  # noqa: E402
from agentsfence.hermes.environment import working_directory  # noqa: E402
from agentsfence.hermes.payloads import with_patch_paths  # noqa: E402
from agentsfence.hermes.plugin import HermesFence  # noqa: E402
from agentsfence.settings import Settings  # noqa: E402
from agentsfence.state import SessionStore  # noqa: E402


class NoAudit:
    """Stands in for the audit log, to see the hook's time without it."""

    def decision(self, *args: Any, **details: Any) -> None:
        return None

    def event(self, *args: Any, **details: Any) -> None:
        return None


class FakeManager:
    """Hermes' PluginManager as order_hooks sees it: the hook list, the fence's callback first."""

    def __init__(self) -> None:
        self._hooks: dict[str, list[Any]] = {"pre_tool_call": []}


class FakeContext:
    def __init__(self) -> None:
        self._manager = FakeManager()


def plugin_for(fence: Fence, scratch: Path, audit: Any) -> HermesFence:
    ctx = FakeContext()
    plugin = HermesFence(fence, Settings(), SessionStore(scratch / "sessions"), audit, lambda: plugin.order_hooks(ctx))
    ctx._manager._hooks["pre_tool_call"].append(plugin.pre_tool_call)
    plugin.pre_llm_call(session_id="s", task_id="t", user_message=workloads.INTENT_MESSAGE)
    return plugin


def parts(scratch: Path) -> dict[str, Callable[[str, dict], object]]:
    fence = Fence(home=workloads.HOME, cwd=workloads.CWD)
    os.environ["TERMINAL_CWD"] = workloads.CWD
    audited = plugin_for(fence, scratch, AuditLog(scratch / "audit.jsonl"))
    bare = plugin_for(fence, scratch, NoAudit())
    session = fence.session("s")
    wasm = fence._wasm
    counter = iter(range(10**12))
    prepared: dict[tuple[str, int], tuple[int, int, bytes]] = {}

    def payload(tool: str, args: dict) -> tuple[int, int, bytes]:
        key = (tool, id(args))
        if key not in prepared:
            name, arguments = encode_call(tool, args)  # type: ignore[misc]
            prepared[key] = (len(name), len(arguments), name + arguments)
        return prepared[key]

    records = {}

    def record(tool: str, args: dict) -> bytes:
        key = (tool, id(args))
        if key not in records:
            records[key] = wasm.decide(session._handle, *payload(tool, args))
        return records[key]

    def raw_decide(tool: str, args: dict) -> object:
        name_length, args_length, data = payload(tool, args)
        return wasm.decide(session._handle, name_length, args_length, data)

    def parse(tool: str, args: dict) -> object:
        return codec.parse_decision(record(tool, args), tool)

    return {
        "hook, with audit (tool_call_id set)": lambda tool, args: audited.pre_tool_call(
            tool_name=tool, args=args, task_id="t", session_id="s", tool_call_id=f"c{next(counter)}"),
        "hook, audit stubbed (tool_call_id set)": lambda tool, args: bare.pre_tool_call(
            tool_name=tool, args=args, task_id="t", session_id="s", tool_call_id=f"c{next(counter)}"),
        "  order_hooks (every call)": lambda tool, args: bare._reorder(),
        "  sessions.session_for": lambda tool, args: bare.sessions.session_for("s", "t"),
        "  working_directory": lambda tool, args: working_directory("t"),
        "  with_patch_paths": with_patch_paths,
        "session.decide": lambda tool, args: session.decide(tool, args, workloads.CWD),
        "  encode_call (argument JSON, also kept for post_tool_call)": encode_call,
        "  wasm decide (fuel, call, record)": raw_decide,
        "  _parse_decision (uncached)": parse,
        "  decision cache lookup": lambda tool, args: fence._decisions.get(record(tool, args)),
    }


def fuel_rows(rounds: int) -> None:
    """The same fence.wasm in an engine with fuel metering and one without, same calls."""
    wasm_bytes = Path(data.path("fence.wasm")).read_bytes()
    rows: dict[str, Callable[[str, dict], object]] = {}
    for metered in (True, False):
        config = engine.wasmtime.Config()
        config.consume_fuel = metered
        engine._engine = engine.wasmtime.Engine(config)
        module = engine.wasmtime.Module(engine._engine, wasm_bytes)
        if metered:
            instance = engine.WasmInstance(module)
        else:
            set_fuel = engine.wasmtime.Store.set_fuel
            engine.wasmtime.Store.set_fuel = lambda store, fuel: None  # type: ignore[method-assign]
            try:
                instance = engine.WasmInstance(module)
            finally:
                engine.wasmtime.Store.set_fuel = set_fuel  # type: ignore[method-assign]
            instance._call_raw = _without_fuel(instance)  # type: ignore[method-assign]
        handle, prepared = _ready(instance)

        def run(tool: str, args: dict, instance: engine.WasmInstance = instance, metered: bool = metered,
                handle: int = handle, prepared: dict = prepared) -> object:
            name_length, args_length, data = prepared[tool, id(args)]
            if metered:
                return instance.decide(handle, name_length, args_length, data)
            instance._write_input(data)
            return instance._record(instance._call_raw("decide", (handle, name_length, args_length), 0))

        rows["wasm decide, fuel on" if metered else "wasm decide, fuel off"] = run
    engine._engine = None
    _compare(rows, "fuel")
    report(measure(rows, workloads.DEFAULT_MIX, rounds=rounds, warmup=rounds // 10))


def target_rows(rounds: int) -> None:
    """fence.wasm compiled for this CPU (what the module cache holds) beside the package's
    precompiled module (baseline x86_64, no CPU feature of this host), same engine, same calls."""
    wasm_bytes = Path(data.path("fence.wasm")).read_bytes()
    shipped, source = engine.load_module(wasm_bytes, None, data.DATA_DIR)
    if source != engine.FROM_PACKAGE:
        sys.exit(f"the package ships no precompiled module for this host (fence.wasm was {source})")
    modules = {"wasm decide, compiled for this CPU": engine.wasmtime.Module(engine.shared_engine(), wasm_bytes),
               f"wasm decide, precompiled for {engine.SHIPPED_TARGET}": shipped}
    rows: dict[str, Callable[[str, dict], object]] = {}
    for label, module in modules.items():
        instance = engine.WasmInstance(module)
        handle, prepared = _ready(instance)

        def run(tool: str, args: dict, instance: engine.WasmInstance = instance, handle: int = handle,
                prepared: dict = prepared) -> object:
            name_length, args_length, data = prepared[tool, id(args)]
            return instance.decide(handle, name_length, args_length, data)

        rows[label] = run
    _compare(rows, "the target")
    report(measure(rows, workloads.DEFAULT_MIX, rounds=rounds, warmup=rounds // 10))


def _ready(instance: engine.WasmInstance) -> tuple[int, dict[tuple[str, int], tuple[int, int, bytes]]]:
    """Installs the default policy, opens a session with the mix's intent, encodes the mix's calls."""
    policy = evaluator.policy_bytes(None)
    assert instance.invoke("load", (len(policy),), policy)[:1] == b"\x00"
    home, cwd = workloads.HOME.encode(), workloads.CWD.encode()
    instance.invoke("configure", (len(home), len(cwd)), home + cwd)
    handle = instance.call_plain("session_open", ())
    message = workloads.INTENT_MESSAGE.encode()
    instance.invoke("intent", (handle, len(message)), message)
    prepared = {}
    for call in workloads.DEFAULT_MIX:
        name, arguments = encode_call(call.tool, call.args)  # type: ignore[misc]
        prepared[call.tool, id(call.args)] = (len(name), len(arguments), name + arguments)
    return handle, prepared


def _compare(rows: dict[str, Callable[[str, dict], object]], what: str) -> None:
    answers = [{call.label: run(call.tool, call.args) for call in workloads.DEFAULT_MIX} for run in rows.values()]
    assert answers[0] == answers[1], f"{what} changed a decision record"


def _without_fuel(instance: engine.WasmInstance) -> Callable[..., int]:
    def call(export: str, args: tuple[int, ...], fuel: int) -> int:
        slots = instance._slots
        for i, value in enumerate(args):
            slots[i * engine._SLOTS_PER_VALUE] = value
        error = engine._call_unchecked(instance._context, instance._func_addresses[export], instance._values_address,
                                       engine.MAX_PARAMS, instance._trap_address)
        if error or instance._trap:
            instance._raise_failure(export, error)
        return slots[0] & 0xFFFFFFFF
    return call


def report(stats: dict[str, Any]) -> None:
    print(f"{'part':58} {'median µs':>10} {'p99 µs':>9}")
    for name, row in stats.items():
        print(f"{name:58} {row.median_us:>10.2f} {row.p99_us:>9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--profile", action="store_true", help="cProfile the audit-stubbed hook")
    parser.add_argument("--fuel", action="store_true", help="time wasm decide with fuel metering on and off")
    parser.add_argument("--target", action="store_true",
                        help="time wasm decide compiled for this CPU and as the package's precompiled module")
    options = parser.parse_args()
    print(f"timer floor: {timer_floor_us():.2f} µs (included in every figure)")
    if options.fuel:
        fuel_rows(options.rounds)
        return
    if options.target:
        target_rows(options.rounds)
        return
    with tempfile.TemporaryDirectory() as scratch:
        rows = parts(Path(scratch))
        gc.collect()
        report(measure(rows, workloads.DEFAULT_MIX, rounds=options.rounds, warmup=options.rounds // 10))
        if options.profile:
            hook = rows["hook, audit stubbed (tool_call_id set)"]
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(options.rounds):
                for call in workloads.DEFAULT_MIX:
                    hook(call.tool, call.args)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
