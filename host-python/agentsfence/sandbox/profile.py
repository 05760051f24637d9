"""The sandbox profile: what a confined command may write, see and reach (the contract with the
evaluator, which constructs it; this package only reads it).

Paths are absolute and literal (no globs). The two callables are the evaluator's answers to the
questions the host cannot answer without deciding: which of the paths found below the writable
directories and the home must be read-only or hidden, and which environment variables are secrets.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

READ_ONLY = "read_only"
HIDE = "hide"


@dataclass(frozen=True)
class SandboxProfile:
    cwd: str                 # absolute working directory the command starts in
    home: str                # the user's home
    write: tuple[str, ...]   # absolute paths writable: the working tree, and files/dirs the request named as outputs (may not exist yet)
    hide: tuple[str, ...]    # absolute literal paths not visible at all (credential dirs/files, $HERMES_HOME)
    hosts: tuple[str, ...]   # host names reachable through the proxy ("pypi.org"; "*.example.com" = its subdomains); empty: no network
    # absolute paths found below the writable dirs and the home -> "" | "read_only" | "hide", one answer each
    classify: Callable[[list[str]], list[str]]
    # environment variables as NAME=VALUE (or NAME when the value is not known) -> the names to remove (secrets)
    env_drop: Callable[[list[str]], list[str]]
    # absolute paths inside hidden ones that the request named itself: visible, read-only
    show: tuple[str, ...] = ()
    # as classify, for paths a run created: "read_only" wherever the read-only list holds, hidden or not
    classify_created: Callable[[list[str]], list[str]] | None = None

    def __post_init__(self) -> None:
        if self.classify_created is None:
            object.__setattr__(self, "classify_created", self.classify)
