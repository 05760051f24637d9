"""The profile a confined call runs in (docs/bytecode.md §8.3): computed by fence.wasm from the
policy's `sandbox` section, the task's intent and the call, and applied by this package. The
decisions inside it (which of the paths found below a writable folder stay read-only or hidden,
which environment variables are secrets) are the evaluator's: `classify` and `env_drop` ask it."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SandboxProfile:
    cwd: str                 # the absolute directory the command starts in
    home: str                # the user's home
    write: tuple[str, ...]   # absolute paths writable: the working tree, and what the request named as outputs
    hide: tuple[str, ...]    # absolute paths not visible at all (credentials, $HERMES_HOME)
    hosts: tuple[str, ...]   # hosts reachable through the proxy ("*.example.com": its subdomains); empty: no network
    top_guard: tuple[str, ...]  # names kept read-only at the top of each writable folder even when absent
    # absolute paths -> "" | "read_only" | "hide" each
    classify: Callable[[list[str]], list[str]]
    # environment variable names -> the ones to remove
    env_drop: Callable[[list[str]], list[str]]
