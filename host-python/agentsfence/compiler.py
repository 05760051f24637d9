"""Compiles YAML policies to bytecode with the bundled TypeScript compiler; needs Node.js.

Only compiling needs Node: a Fence loads the resulting .afb with nothing but Python.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from . import data
from .errors import FenceError

COMPILE_TIMEOUT_SECONDS = 120

NODE_MISSING = ("Node.js is not on PATH, so this cannot run here: compiling, checking and testing policies run "
                "the bundled TypeScript compiler with `node`. Deciding (decide, explain, hook, the Hermes plugin) "
                "needs no Node: run `agentsfence compile POLICY.yaml -o policy.afb` where Node is installed and "
                "load the .afb.")


def node_missing_note() -> str:
    """A line for --help: empty when `node` is on PATH."""
    return "" if shutil.which("node") else f"\n\n{NODE_MISSING}"


def _compiler_command() -> list[str]:
    node = shutil.which("node")
    if node is None:
        raise FenceError(NODE_MISSING)
    compiler = data.path("compile.cjs")
    if not compiler.is_file():
        raise FenceError(f"the bundled policy compiler is missing ({compiler}); reinstall agentsfence")
    return [node, str(compiler)]


def run_compiler(arguments: list[str]) -> int:
    """Runs the bundled compiler's command line (compiler/cli.ts) with this terminal's output;
    returns its exit status."""
    try:
        return subprocess.run([*_compiler_command(), *arguments], timeout=COMPILE_TIMEOUT_SECONDS).returncode
    except subprocess.TimeoutExpired as error:
        raise FenceError(f"the policy compiler did not finish in {COMPILE_TIMEOUT_SECONDS} s") from error


def compile_policy(sources: list[Path], out: Path | None = None) -> bytes:
    """Compiles `sources` (merged in order) and returns the bytecode; also writes it to `out` if given."""
    command = _compiler_command()
    with tempfile.TemporaryDirectory(prefix="agentsfence-") as scratch:
        target = Path(scratch) / "policy.afb"
        try:
            done = subprocess.run(
                [*command, *map(str, sources), "-o", str(target)],
                capture_output=True, text=True, timeout=COMPILE_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired as error:
            raise FenceError(f"the policy compiler did not finish in {COMPILE_TIMEOUT_SECONDS} s") from error
        if done.returncode != 0 or not target.is_file():
            detail = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
            raise FenceError(f"the policy did not compile:\n{detail}")
        bytecode = target.read_bytes()
    if out is not None:
        out.write_bytes(bytecode)
    return bytecode
