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
