"""`agentsfence init` on projects of several shapes, built here: what it reads, that the files it
writes pass `agentsfence check --strict` and `agentsfence test` when run again on their own, that
the sandbox a confined command gets (computed by fence.wasm) reaches the registries the project
names, and that nothing is overwritten without --force."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

COMMAND = str(Path(sys.executable).with_name("agentsfence"))


def run(*args: str, home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "HERMES_HOME": str(home)}
    return subprocess.run([COMMAND, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def build(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


NODE = {"package.json": json.dumps({"name": "web", "packageManager": "pnpm@9.1.0",
                                    "scripts": {"test": "vitest run", "build": "vite build", "dev": "vite"}}),
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        ".npmrc": "@corp:registry=https://npm.corp.example/api/npm/\n",
        "Makefile": "VERSION := 1\n.PHONY: test\ntest:\n\tpnpm test\nrelease: build\n\t./release.sh\n"}
PYTHON = {"pyproject.toml": '[project]\nname = "svc"\n[tool.pytest.ini_options]\naddopts = "-q"\n'
                            '[[tool.uv.index]]\nname = "corp"\nurl = "https://pypi.corp.example/simple/"\n',
          "uv.lock": "version = 1\n", "tests/test_x.py": "def test_x(): pass\n"}
RUST = {"Cargo.toml": '[package]\nname = "tool"\nversion = "0.1.0"\n',
        ".cargo/config.toml": '[registries.corp]\nindex = "sparse+https://cargo.corp.example/index/"\n'}
GO = {"go.mod": "module example.com/app\n\ngo 1.22\n", "main.go": "package main\n"}

SHAPES = {
    "node": (NODE, ["pnpm test", "pnpm run build", "pnpm install", "make test"], [("pnpm",), "npm.corp.example"]),
    "python": (PYTHON, ["uv run pytest -q", "uv sync"], [("pip", "uv", "poetry"), "pypi.corp.example"]),
    "rust": (RUST, ["cargo test", "cargo build"], [("cargo",), "cargo.corp.example"]),
    "go": (GO, ["go test ./...", "go build ./..."], None),
    "empty": ({}, [], None),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_init_writes_a_policy_and_tests_that_pass_for_each_project_shape(tmp_path, shape):
    from agentsfence.api import Fence
    from agentsfence.starter import detect

    files, commands, registry = SHAPES[shape]
    project = build(tmp_path / shape, files)
    out = tmp_path / "out"
    done = run("init", str(project), "--out", str(out), home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert [command for _, command in detect(project).commands] == commands
    policy, tests = out / "policy.yaml", out / "policy.test.yaml"
    for command in commands:
        assert f"  {command}  (" in done.stdout
    # The files pass on their own, run as a user would, --strict: no warning either.
    check = run("check", "--strict", str(policy), home=tmp_path / "home")
    assert check.returncode == 0 and "has no errors, 0 warnings" in check.stdout, check.stdout + check.stderr
    tested = run("test", str(tests), home=tmp_path / "home")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.strip() == f"ok: {len(commands) + 2} passed, 0 failed"
    if registry is not None:
        programs, host = registry
        assert f"{host}: reachable from the sandbox" in done.stdout
        session = Fence(str(policy), cwd=str(project)).session("s")
        session.intent("Install the dependencies")
        command = next(c for c in commands if c.split()[0] in ("pnpm", "uv", "cargo") and ("install" in c or "sync" in c or "build" in c))
        assert host in session.sandbox_profile("terminal", {"command": command}).hosts
        empty = Fence(cwd=str(project)).session("s")  # the shipped policy alone does not reach it
        empty.intent("Install the dependencies")
        assert host not in empty.sandbox_profile("terminal", {"command": command}).hosts
    else:
        assert "sandbox:" not in policy.read_text()


def test_init_refuses_to_overwrite_and_writes_nothing_on_a_bad_project_file(tmp_path):
    project = build(tmp_path / "p", GO)
    out = tmp_path / "out"
    assert run("init", str(project), "--out", str(out), home=tmp_path).returncode == 0
    (out / "policy.yaml").write_text("# mine\n")
    again = run("init", str(project), "--out", str(out), home=tmp_path)
    assert again.returncode == 1 and "exist already: nothing was written (--force replaces them)" in again.stderr
    assert (out / "policy.yaml").read_text() == "# mine\n"
    assert run("init", str(project), "--out", str(out), "--force", home=tmp_path).returncode == 0
    assert "go test ./..." in (out / "policy.test.yaml").read_text()
    broken = build(tmp_path / "broken", {"package.json": "{"})
    done = run("init", str(broken), "--out", str(tmp_path / "out2"), home=tmp_path)
    assert done.returncode == 1 and "package.json is not JSON" in done.stderr and not (tmp_path / "out2").exists()


def test_init_writes_where_hermes_reads_and_the_commands_use_it(tmp_path):
    home = tmp_path / "home"
    project = build(tmp_path / "p", RUST)
    done = run("init", home=home, cwd=project)
    assert done.returncode == 0, done.stderr
    assert (home / "agentsfence" / "policy.yaml").is_file() and "Hermes uses the policy from its next user turn" in done.stdout
    decided = run("decide", "--intent", "Run the tests", "--tool", "terminal", "--args", json.dumps({"command": "cargo test"}),
                  home=home, cwd=project)
    assert json.loads(decided.stdout)["rule"] == "project-tools" and "policy p (" in decided.stderr
