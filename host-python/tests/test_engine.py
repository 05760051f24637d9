"""The call mechanics of agentsfence.engine, on a stand-in module with fence.wasm's ABI."""
from __future__ import annotations

import os
import random
import stat
from pathlib import Path

import pytest
import wasmtime

from agentsfence import engine
from agentsfence.engine import EngineFault, InputTooLarge, WasmInstance, load_module


def decide(instance: WasmInstance, handle: int, name: bytes, args: bytes) -> bytes:
    """Through the decide fast path, which falls back to invoke on the public path."""
    return instance.decide(handle, len(name), len(args), name + args)


def test_raw_and_public_calls_give_identical_records(mock_wasm):
    module, _ = load_module(mock_wasm, None)
    raw, public = WasmInstance(module, raw_calls=True), WasmInstance(module, raw_calls=False)
    generator = random.Random(7)
    alphabet = "abcdefhijklmnopqruvwxyz_é"  # no leading t/s/g: those trap, spin, grow
    for _ in range(500):
        name = "".join(generator.choice(alphabet) for _ in range(generator.randint(1, 40))).encode()
        args = os.urandom(generator.randint(0, 300)).hex().encode()
        handle = generator.randint(0, 2)
        assert decide(raw, handle, name, args) == decide(public, handle, name, args)
    assert raw.call_plain("session_open", ()) == public.call_plain("session_open", ()) == 1
    for export, payload in [("load", b"policy"), ("disasm", b""), ("intent", "résumé".encode())]:
        args = (1, len(payload)) if export == "intent" else ((len(payload),) if export == "load" else ())
        assert raw.invoke(export, args, payload) == public.invoke(export, args, payload)


@pytest.mark.parametrize("raw_calls", [True, False])
@pytest.mark.parametrize("name, cause", [(b"trap", "unreachable"), (b"spin", "fuel")])
def test_a_trap_becomes_an_engine_fault(mock_wasm, raw_calls, name, cause):
    instance = WasmInstance(load_module(mock_wasm, None)[0], raw_calls=raw_calls)
    with pytest.raises(EngineFault, match=cause):
        decide(instance, 1, name, b"{}")


def test_a_raw_call_after_a_trap_sees_no_stale_trap(mock_wasm):
    instance = WasmInstance(load_module(mock_wasm, None)[0])
    with pytest.raises(EngineFault):
        decide(instance, 1, b"trap", b"{}")
    assert decide(instance, 1, b"read", b"{}")[24:] == b"read{}"


@pytest.mark.parametrize("raw_calls", [True, False])
def test_the_view_is_refreshed_when_memory_grows(mock_wasm, raw_calls):
    instance = WasmInstance(load_module(mock_wasm, None)[0], raw_calls=raw_calls)
    decide(instance, 1, b"read", b"{}")  # the first call places the input buffer
    before = len(instance._view)
    assert decide(instance, 2, b"grow", b'{"a":1}') == b"\x02\x04\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00grow{\"a\":1}"
    assert len(instance._view) == before + 65536
    # A larger input buffer: the evaluator moves it and grows memory (bit 0 of input's answer).
    message = b"x" * 300_000
    assert instance.invoke("intent", (1, len(message)), message) == b"\x00" + message


def test_an_input_over_every_limit_is_refused(mock_wasm):
    instance = WasmInstance(load_module(mock_wasm, None)[0])
    with pytest.raises(InputTooLarge):
        instance.invoke("intent", (1, 17_000_000), b"x" * 17_000_000)


def test_a_module_without_the_abi_is_refused():
    module, _ = load_module(wasmtime.wat2wasm('(module (memory (export "memory") 1))'), None)
    with pytest.raises(EngineFault, match="does not export the function 'input'"):
        WasmInstance(module)


def test_a_module_with_wrong_export_types_is_refused(mock_wasm):
    wat = (Path(__file__).parent / "fixtures" / "mock_fence.wat").read_text()
    wat = wat.replace('(func (export "disasm") (result i32)', '(func (export "disasm") (param i32) (result i32)')
    with pytest.raises(EngineFault, match="'disasm' with the wrong type"):
        WasmInstance(load_module(wasmtime.wat2wasm(wat), None)[0])


# ---- the compiled-module cache ----

def cache_entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.cwasm"))


def refuse_compiling(monkeypatch):
    def compile_(engine_, wasm):
        raise AssertionError("compiled although a trusted cache entry exists")

    monkeypatch.setattr(engine, "_compile", compile_)


def test_cache_miss_writes_a_private_entry_and_a_hit_reads_it(mock_wasm, tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    load_module(mock_wasm, directory)
    [entry] = cache_entries(directory)
    assert entry.name.startswith(engine.cache_key(mock_wasm) + "-")
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    refuse_compiling(monkeypatch)
    module, _ = load_module(mock_wasm, directory)
    assert decide(WasmInstance(module), 1, b"read", b"{}")[24:] == b"read{}"


def test_the_key_covers_the_wasm_bytes(mock_wasm):
    assert engine.cache_key(mock_wasm) != engine.cache_key(mock_wasm + b"\x00")


def test_a_corrupt_entry_is_compiled_anew_and_replaced(mock_wasm, tmp_path):
    directory = tmp_path / "cache"
    load_module(mock_wasm, directory)
    [entry] = cache_entries(directory)
    good = entry.read_bytes()
    entry.write_bytes(good[:100] + b"\xff" * 64 + good[164:])
    module, _ = load_module(mock_wasm, directory)
    assert decide(WasmInstance(module), 1, b"read", b"{}")[24:] == b"read{}"
    [replaced] = cache_entries(directory)
    assert replaced.read_bytes() == good


def test_an_entry_for_other_wasm_is_never_read(mock_wasm, tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    load_module(mock_wasm, directory)
    [entry] = cache_entries(directory)
    other = wasmtime.wat2wasm('(module (memory (export "memory") 1))')
    entry.rename(directory / entry.name.replace(engine.cache_key(mock_wasm), engine.cache_key(other)))
    compiled = []
    real_compile = engine._compile
    monkeypatch.setattr(engine, "_compile", lambda e, w: compiled.append(w) or real_compile(e, w))
    load_module(mock_wasm, directory)
    assert compiled == [mock_wasm]


def test_a_directory_others_can_write_is_not_used(mock_wasm, tmp_path):
    directory = tmp_path / "shared"
    directory.mkdir(mode=0o777)
    os.chmod(directory, 0o777)
    load_module(mock_wasm, directory)
    assert cache_entries(directory) == []


def test_an_entry_others_can_write_is_not_trusted(mock_wasm, tmp_path):
    directory = tmp_path / "cache"
    load_module(mock_wasm, directory)
    [entry] = cache_entries(directory)
    os.chmod(entry, 0o666)
    load_module(mock_wasm, directory)
    [replaced] = cache_entries(directory)
    assert stat.S_IMODE(replaced.stat().st_mode) == 0o600


def test_the_default_cache_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTSFENCE_CACHE", str(tmp_path / "explicit"))
    assert engine.default_cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("AGENTSFENCE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert engine.default_cache_dir() == tmp_path / "xdg" / "agentsfence"
