"""Where the package's data lives: fence.wasm and its precompiled module, the compiled default policy, the bundled compiler."""
from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "_data"


def path(name: str) -> Path:
    return DATA_DIR / name
