"""The precompiled module the package ships (scripts/build.sh) and the checks before it is run."""
from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import wasmtime

from agentsfence import data, engine
from agentsfence.api import Fence
from agentsfence.engine import COMPILED, FROM_CACHE, FROM_PACKAGE, PRECOMPILED_MANIFEST, PRECOMPILED_MODULE, load_module

from .conftest import REPO


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    """A copy of the package's data: fence.wasm, its precompiled module, the default policy."""
    directory = tmp_path / "data"
    directory.mkdir()
    for name in ("fence.wasm", "default.afb", PRECOMPILED_MODULE, PRECOMPILED_MANIFEST):
        shutil.copy(data.path(name), directory / name)
    return directory


def fence_wasm(directory: Path) -> bytes:
    return (directory / "fence.wasm").read_bytes()


def edit_manifest(directory: Path, **changes: str) -> None:
    path = directory / PRECOMPILED_MANIFEST
    path.write_text(json.dumps(json.loads(path.read_text()) | changes))


def refuse_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def compile_(engine_: wasmtime.Engine, wasm: bytes) -> wasmtime.Module:
        raise AssertionError("compiled although the package ships a matching module")

    monkeypatch.setattr(engine, "_compile", compile_)


def falls_back(directory: Path, caplog: pytest.LogCaptureFixture, reason: str, wasm: bytes | None = None) -> None:
    """Loading compiles fence.wasm, logs why the shipped module was not used, and the module decides."""
    with caplog.at_level(logging.WARNING, logger="agentsfence"):
        module, source = load_module(fence_wasm(directory) if wasm is None else wasm, None, directory)
    assert source == COMPILED
    [record] = [r for r in caplog.records if r.name == "agentsfence"]
    assert record.levelno == logging.WARNING
    assert "not using the precompiled fence module" in record.getMessage()
    assert reason in record.getMessage()
    engine.WasmInstance(module)  # the ABI check passes: a usable evaluator


def test_the_package_fence_runs_the_shipped_module(private_cache, monkeypatch):
    refuse_compiling(monkeypatch)
    fence = Fence()
    assert fence.module_source == FROM_PACKAGE
    assert fence.session("s").decide("read_file", {"path": "README.md"}, "/tmp").kind == "allow"
    assert not private_cache.exists()  # the module cache is not touched


def test_the_plugin_says_where_its_module_came_from(tmp_path, monkeypatch, caplog):
    class Context:  # what register() calls on Hermes' plugin context
        def register_hook(self, *args, **kwargs):
            pass

        register_command = register_cli_command = register_hook

    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    from agentsfence.hermes import register

    with caplog.at_level(logging.INFO, logger="agentsfence"):
        register(Context())
    assert "AgentsFence active: policy" in caplog.text and "fence.wasm: the package's precompiled module" in caplog.text


def test_the_manifest_names_what_the_module_was_built_from():
    manifest = json.loads(data.path(PRECOMPILED_MANIFEST).read_text())
    assert manifest == engine.module_identity(hashlib.sha256(data.path("fence.wasm").read_bytes()).hexdigest(),
                                              engine.SHIPPED_TARGET) | {
        "module_sha256": hashlib.sha256(data.path(PRECOMPILED_MODULE).read_bytes()).hexdigest()}
    assert manifest["wasmtime"] == metadata.version("wasmtime")
    assert manifest["target"] == "x86_64-unknown-linux-gnu"


def test_a_matching_copy_is_used(shipped, monkeypatch):
    refuse_compiling(monkeypatch)
    assert load_module(fence_wasm(shipped), None, shipped)[1] == FROM_PACKAGE


def test_a_corrupt_module_is_not_run(shipped, caplog):
    module = shipped / PRECOMPILED_MODULE
    good = module.read_bytes()
    module.write_bytes(good[:4096] + bytes(b ^ 0xFF for b in good[4096:4160]) + good[4160:])
    falls_back(shipped, caplog, "does not have the digest its manifest gives")


def test_a_module_wasmtime_refuses_is_compiled_anew(shipped, caplog):
    """A truncated module whose manifest was rewritten to match: wasmtime's own checks refuse it."""
    module = shipped / PRECOMPILED_MODULE
    module.write_bytes(module.read_bytes()[:50_000])
    edit_manifest(shipped, module_sha256=hashlib.sha256(module.read_bytes()).hexdigest())
    falls_back(shipped, caplog, "wasmtime refused it")


def test_a_module_compiled_under_other_settings_is_refused(shipped, caplog):
    """Even when its manifest lies: wasmtime checks the settings recorded in the module itself."""
    config = wasmtime.Config()
    config.consume_fuel = False  # no fuel metering: the product never runs such code
    config.target = engine.SHIPPED_TARGET
    unmetered = bytes(wasmtime.Module(wasmtime.Engine(config), fence_wasm(shipped)).serialize())
    (shipped / PRECOMPILED_MODULE).write_bytes(unmetered)
    edit_manifest(shipped, module_sha256=hashlib.sha256(unmetered).hexdigest())
    falls_back(shipped, caplog, "without fuel support")


def test_a_manifest_naming_another_wasmtime_is_not_used(shipped, caplog):
    edit_manifest(shipped, wasmtime="49.0.0")
    falls_back(shipped, caplog, "wasmtime '49.0.0'")


def test_a_manifest_naming_other_engine_settings_is_not_used(shipped, caplog):
    edit_manifest(shipped, engine="consume_fuel=False")
    falls_back(shipped, caplog, "engine 'consume_fuel=False'")


def test_a_fence_wasm_it_was_not_built_from_is_compiled(shipped, caplog):
    other = fence_wasm(shipped) + b"\x00\x05\x04note"  # the same code with a custom section: other bytes
    falls_back(shipped, caplog, "fence_wasm_sha256", wasm=other)


def test_an_unreadable_manifest_is_not_used(shipped, caplog):
    (shipped / PRECOMPILED_MANIFEST).write_text("{not json")
    falls_back(shipped, caplog, "cannot be read")


def test_a_module_for_another_target_is_left_quietly(shipped, caplog):
    """Other hosts are expected to compile (the package ships x86_64 Linux only): no warning."""
    edit_manifest(shipped, target="aarch64-unknown-linux-gnu")
    with caplog.at_level(logging.WARNING, logger="agentsfence"):
        assert load_module(fence_wasm(shipped), None, shipped)[1] == COMPILED
    assert caplog.records == []


def test_without_a_shipped_module_the_cache_serves_the_second_start(shipped, tmp_path, monkeypatch):
    for name in (PRECOMPILED_MODULE, PRECOMPILED_MANIFEST):
        (shipped / name).unlink()
    assert load_module(fence_wasm(shipped), tmp_path / "cache", shipped)[1] == COMPILED
    refuse_compiling(monkeypatch)
    assert load_module(fence_wasm(shipped), tmp_path / "cache", shipped)[1] == FROM_CACHE


def test_a_fence_with_a_broken_package_module_compiles_and_decides(shipped, monkeypatch, caplog):
    (shipped / PRECOMPILED_MODULE).write_bytes(b"\x7fELF")
    monkeypatch.setattr(data, "DATA_DIR", shipped)
    with caplog.at_level(logging.WARNING, logger="agentsfence"):
        fence = Fence(cache_dir=False)
    assert fence.module_source == COMPILED
    assert "not using the precompiled fence module" in caplog.text
    assert fence.session("s").decide("read_file", {"path": "README.md"}, "/tmp").kind == "allow"


def test_a_fence_of_other_wasm_never_reads_the_shipped_module(monkeypatch):
    monkeypatch.setattr(engine, "_read_precompiled", lambda *a: pytest.fail("read the package's module for other wasm"))
    assert Fence(wasm=data.path("fence.wasm"), cache_dir=False).module_source == COMPILED


def test_the_cache_key_names_wasmtime_target_settings_and_wasm(mock_wasm, monkeypatch):
    key = engine.cache_key(mock_wasm)
    assert engine.cache_key(mock_wasm + b"\x00") != key
    monkeypatch.setattr(engine, "wasmtime_version", lambda: "49.0.0")
    assert engine.cache_key(mock_wasm) != key
    monkeypatch.undo()
    monkeypatch.setattr(engine, "host_target", lambda: "aarch64-unknown-linux-gnu")
    assert engine.cache_key(mock_wasm) != key
    monkeypatch.undo()
    monkeypatch.setattr(engine, "ENGINE_SETTINGS", {"consume_fuel": False})
    assert engine.cache_key(mock_wasm) != key


def test_the_wasmtime_version_is_the_installed_one(monkeypatch, tmp_path):
    assert engine.wasmtime_version() == metadata.version("wasmtime")
    # A package with no dist-info beside it: importlib.metadata's search answers.
    monkeypatch.setattr(engine.wasmtime, "__file__", str(tmp_path / "wasmtime" / "__init__.py"))
    assert engine.wasmtime_version() == metadata.version("wasmtime")

    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert engine.wasmtime_version() == "unknown"  # never equal to a manifest's version


def test_the_wheel_ships_the_precompiled_module(tmp_path):
    """What `pip install` of the package gets: the module, and a manifest for the wheel's own fence.wasm."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path),
                    str(REPO / "host-python")], check=True)
    [wheel] = tmp_path.glob("agentsfence-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        files = {name: archive.read(name) for name in archive.namelist() if name.startswith("agentsfence/_data/")}
    manifest = json.loads(files[f"agentsfence/_data/{PRECOMPILED_MANIFEST}"])
    assert manifest["fence_wasm_sha256"] == hashlib.sha256(files["agentsfence/_data/fence.wasm"]).hexdigest()
    assert manifest["module_sha256"] == hashlib.sha256(files[f"agentsfence/_data/{PRECOMPILED_MODULE}"]).hexdigest()
