from __future__ import annotations

from pathlib import Path

import pytest
import wasmtime

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parents[1]


@pytest.fixture(scope="session")
def mock_wasm() -> bytes:
    """A module with fence.wasm's ABI and trivial semantics (fixtures/mock_fence.wat)."""
    return wasmtime.wat2wasm((TESTS / "fixtures" / "mock_fence.wat").read_text())


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test compiles into its own cache, never the user's."""
    cache = tmp_path_factory.mktemp("cache") / "agentsfence"
    monkeypatch.setenv("AGENTSFENCE_CACHE", str(cache))
    return cache


@pytest.fixture(autouse=True)
def fences_closed(monkeypatch: pytest.MonkeyPatch):  # torn down before monkeypatch restores the manager
    """A test that loads the plugin leaves it registered in Hermes' plugin manager, with its
    state store and audit log open; one process runs thousands of tests, so each plugin's files
    are closed after its test (else the process passes 1,024 descriptors, where Hermes' own
    terminal tool, which watches its pipes with select(), returns no output)."""
    yield
    try:
        from hermes_cli import plugins
    except ImportError:
        return
    manager = plugins._plugin_manager
    if manager is None:
        return
    for hook in list(getattr(manager, "_hooks", {}).get("pre_tool_call", [])):
        fence = getattr(hook, "__self__", None)
        for closable in (getattr(fence, "audit", None), getattr(getattr(fence, "sessions", None), "store", None)):
            if closable is not None and hasattr(closable, "close"):
                closable.close()
