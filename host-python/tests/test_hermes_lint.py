"""Writes Hermes itself turns into execution: its post-write lint.

Read from hermes-agent 0.19, tools/file_operations.py: after write_file and patch,
ShellFileOperations._check_lint_delta calls ShellFileOperations._check_lint, which lints in
process for the extensions of LINTERS_INPROC (ast, json, yaml, tomllib: nothing runs) and
otherwise runs the shell command of LINTERS in the terminal's directory (self._exec: the live
env.cwd), when its first word is on PATH (self._has_command) and, for the extensions of
_SHELL_LINTER_LSP_REDUNDANT, no language server claims the file. What that command runs is
chosen by files of the project:
- `.ts`: `npx tsc --noEmit FILE`: npx runs the `tsc` of node_modules/.bin, or the bin the local
  package.json names, with .npmrc's settings (or fetches one): package.json, node_modules and
  .npmrc are asked about unless named (rules lint-exec-write, code-config-write);
- `.rs`: `rustfmt --check FILE`: rustup's proxy runs the toolchain rust-toolchain(.toml) names,
  a local `path` toolchain included: asked about unless named (lint-exec-write);
- `.go`: `go vet FILE` (go.mod can only pick one of Go's signed toolchains) and `.js`:
  `node --check FILE` (parses only) run nothing a written file chooses.
If Hermes changes these tables, this test fails, and the rules must be read against them again.
"""
from __future__ import annotations

import pytest

from agentsfence import Fence

from .conftest import REPO

file_operations = pytest.importorskip("tools.file_operations")


def test_the_shell_linters_are_the_ones_the_rules_were_read_against():
    assert file_operations.LINTERS == {
        ".py": "python -m py_compile {file} 2>&1",
        ".js": "node --check {file} 2>&1",
        ".ts": "npx tsc --noEmit {file} 2>&1",
        ".go": "go vet {file} 2>&1",
        ".rs": "rustfmt --check {file} 2>&1",
    }
    # In-process linters come first in _check_lint: .py never reaches py_compile (which would
    # import modules from the terminal's directory).
    assert set(file_operations.LINTERS_INPROC) == {".py", ".json", ".yaml", ".yml", ".toml"}
    shell_run = set(file_operations.LINTERS) - set(file_operations.LINTERS_INPROC)
    assert shell_run == {".js", ".ts", ".go", ".rs"}


@pytest.fixture(scope="module")
def fence() -> Fence:
    return Fence(REPO / "build" / "policies" / "defaults.afb", home="/home/user", cwd="/home/user/project", fold_case=False)


@pytest.mark.parametrize("path", ["package.json", "web/package.json", "rust-toolchain", "rust-toolchain.toml", "crates/x/rust-toolchain.toml"])
def test_a_file_that_chooses_what_the_lint_runs_is_asked_about_unless_named(fence, path):
    session = fence.session(f"lint-{path}")
    session.intent("Refactor the parser")
    decision = session.decide("write_file", {"path": path, "content": "{}"})
    assert (decision.kind, decision.reason, decision.rule) == ("ask", "code_execution", "lint-exec-write"), decision.message
    named = fence.session(f"lint-named-{path}")
    # A name with no extension reads as a file when written as a path (./rust-toolchain).
    named.intent(f"Fix the syntax error in {path if '/' in path or '.' in path else './' + path}")
    assert named.decide("write_file", {"path": path, "content": "{}"}).kind == "allow"


@pytest.mark.parametrize("path", ["node_modules/.bin/tsc", ".npmrc"])
def test_what_npx_finds_first_is_asked_about(fence, path):
    session = fence.session(f"npx-{path}")
    session.intent("Refactor the parser")
    assert session.decide("write_file", {"path": path, "content": "x"}).kind == "ask"


def test_the_file_that_triggers_the_lint_is_ordinary_work(fence):
    # The .ts write itself only runs what the files above chose.
    session = fence.session("lint-ts")
    session.intent("Refactor the parser")
    decision = session.decide("write_file", {"path": "src/parser.ts", "content": "export {}"})
    assert (decision.kind, decision.rule) == ("allow", "write-in-tree"), decision.message
