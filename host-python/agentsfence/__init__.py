"""AgentsFence: a policy fence for Hermes Agent, decided in-process by fence.wasm.

The public names are loaded on first use, not at import: the Hermes plugin (agentsfence.hermes)
imports this package and must still register a blocking hook when wasmtime cannot be imported.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["Budget", "Decision", "Fence", "FenceError", "Intent", "Session"]

if TYPE_CHECKING:
    from .api import Budget, Decision, Fence, Intent, Session
    from .errors import FenceError


def __getattr__(name: str) -> Any:
    if name == "FenceError":
        from .errors import FenceError

        return FenceError
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'agentsfence' has no attribute {name!r}")
