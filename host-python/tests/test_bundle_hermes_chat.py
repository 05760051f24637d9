"""A host of a fleet in the real `hermes chat` (tests/e2e's scripted model): its policy comes from a
signed bundle on an HTTPS server and its audit records go to rsyslogd, both started here. The
bundle's policy allows two writes per session; the model asks for four; the collector's copy of
the chain verifies, and `hermes fence status` names the bundle's revision."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentsfence.audit import verify
from agentsfence.bundle import build, keygen

from .conftest import REPO
from .fleet_support import BundleServer, Collector, make_certificates

sys.path.insert(0, str(REPO / "tests" / "e2e"))
from demo import HERMES_TIMEOUT_SECONDS, hermes_command, read_decisions, write_hermes_home  # noqa: E402
from model_server import ScriptedModelServer  # noqa: E402

POLICY = """version: 1
name: fleet-two-writes
extends: [defaults]
budgets:
  - {id: two-writes, capability: [file.write], limit: 2}
"""
FILES = ["a.md", "b.md", "c.md", "d.md"]
BATCH = [("write_file", {"path": name, "content": f"{name}\n"}) for name in FILES]


def test_a_fleet_host_decides_by_the_bundle_and_ships_every_record(tmp_path: Path):
    (tmp_path / "work").mkdir()
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "policy.yaml").write_text(POLICY)
    keygen(tmp_path / "team.pem", tmp_path / "team.pub.pem")
    bundles = BundleServer(make_certificates(tmp_path / "pki", "bundles")).start()
    bundles.served.body = build(policies, [tmp_path / "team.pem"], "fleet-r7")
    collector = Collector(tmp_path / "collector").start()
    model = ScriptedModelServer(script=[BATCH, None])
    model.start()
    hermes_home = tmp_path / "home" / ".hermes"
    try:
        write_hermes_home(hermes_home, model.port)
        config = json.loads((hermes_home / "config.yaml").read_text())
        config["agentsfence"] = {"bundle_url": bundles.url, "bundle_keys": [str(tmp_path / "team.pub.pem")],
                                 "bundle_ca": str(bundles.certificates.ca), "audit_syslog": f"tcp://127.0.0.1:{collector.port}"}
        (hermes_home / "config.yaml").write_text(json.dumps(config))
        env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
        env.update(HOME=str(tmp_path / "home"), HERMES_HOME=str(hermes_home), XDG_CACHE_HOME=str(tmp_path / "cache"), NO_COLOR="1")
        done = subprocess.run([hermes_command(), "chat", "-Q", "-q", "Write a.md, b.md, c.md and d.md with one line each"],
                              cwd=tmp_path / "work", env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=HERMES_TIMEOUT_SECONDS)
        assert done.returncode == 0, done.stderr[-3000:]
        audit = hermes_home / "agentsfence" / "audit.jsonl"
        # Sent before `hermes chat` exited (the shipper drains at exit): no process is left to send them.
        collector.wait_for(len([line for line in audit.read_bytes().split(b"\n") if line]), timeout=3)
        status = subprocess.run([hermes_command(), "fence", "status"], cwd=tmp_path / "work", env=env, stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=HERMES_TIMEOUT_SECONDS)
        written = [line for line in audit.read_bytes().split(b"\n") if line]
        collected = collector.wait_for(len(written))
    finally:
        model.shutdown()
        model.server_close()
        bundles.stop()
        collector.stop()
    decisions = read_decisions(audit)
    assert sorted((d["kind"], d["reason"]) for d in decisions) == [
        ("allow", "rule_allow"), ("allow", "rule_allow"), ("block", "budget_exhausted"), ("block", "budget_exhausted")]
    assert len([name for name in FILES if (tmp_path / "work" / name).exists()]) == 2
    # `hermes chat` and `hermes fence status` each loaded the plugin: each start is recorded
    starts = [json.loads(line) for line in written if b'"event":"policy"' in line]
    assert len(starts) == 2 and all(start["policy"] == "fleet-two-writes" and start["origin"] == f"bundle fleet-r7 from {bundles.url}"
                                    for start in starts)
    assert list(dict.fromkeys(collected)) == written  # in order, nothing lost (a resend may repeat a record)
    assert verify(collector.output, collector=True).ok
    assert status.returncode == 0, status.stderr[-2000:]
    assert "policy: fleet-two-writes" in status.stdout and f"bundle: revision fleet-r7 from {bundles.url}" in status.stdout
