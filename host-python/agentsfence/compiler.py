"""Compiles YAML policies to bytecode, in this process: no Node.

The compiler is the bundled TypeScript of compiler/ (`_data/compile.cjs`), run on QuickJS in
wasmtime (agentsfence/jsengine.py): the same bundle, and so the same bytes, as `node` gives.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .errors import FenceError


class PolicyErrors(FenceError):
    """The policy did not compile; `diagnostics` are its `FILE:LINE:COL: error: MESSAGE` lines."""

    def __init__(self, diagnostics: str):
        self.diagnostics = diagnostics
        super().__init__(f"the policy did not compile:\n{diagnostics}")


def run_compiler(arguments: list[str]) -> int:
    """Runs the bundled compiler's command line (compiler/cli.ts) with this terminal's output;
    returns its exit status."""
    from .jsengine import run

    done = run(arguments)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    return done.status


def compile_policy(sources: list[Path], out: Path | None = None) -> bytes:
    """Compiles `sources` (merged in order, each with what it extends) and returns the bytecode;
    also writes it to `out` if given. A policy with errors raises PolicyErrors."""
    from .jsengine import run

    with tempfile.TemporaryDirectory(prefix="agentsfence-") as scratch:
        target = Path(scratch) / "policy.afb"
        done = run([*map(str, sources), "-o", str(target)])
        if done.status != 0 or not target.is_file():
            detail = (done.stderr or done.stdout).strip() or f"exit status {done.status}"
            errors = [line for line in detail.splitlines() if ": error: " in line]
            raise PolicyErrors("\n".join(errors) if errors else detail)
        bytecode = target.read_bytes()
    if out is not None:
        out.write_bytes(bytecode)
    return bytecode
