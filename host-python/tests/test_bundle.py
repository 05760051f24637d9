"""Signed policy bundles (agentsfence/bundle.py) served by a real HTTPS server the tests start on
127.0.0.1, taken up by the real Hermes plugin (hermes-agent 0.19.0) at a user turn."""
from __future__ import annotations

import http.server
import io
import json
import socket
import ssl
import tarfile
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

import hermes_cli.plugins as hermes_plugins
import model_tools
from agentsfence import bundle as bundle_module
from agentsfence.bundle import (BYTECODE, SOURCES, BundleError, build, key_id, keygen, load_private_key,
                                load_public_keys, open_bundle, pack)
from agentsfence.cli import main
from agentsfence.hermes.plugin import HermesFence
from agentsfence.hermes.view import run_cli
from agentsfence.jsengine import compiler_digest

from .fleet_support import BundleServer, make_certificates

POLICY = "version: 1\nextends: [defaults]\nname: {name}\n"


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    folder = tmp_path / "keys"
    folder.mkdir()
    keygen(folder / "team.pem", folder / "team.pub.pem")
    keygen(folder / "stranger.pem", folder / "stranger.pub.pem")
    return folder


def policy_dir(tmp_path: Path, name: str, text: str = POLICY) -> Path:
    folder = tmp_path / "policies" / name
    folder.mkdir(parents=True)
    (folder / "policy.yaml").write_text(text.format(name=name))
    return folder


@pytest.fixture
def server(tmp_path: Path):
    running = BundleServer(make_certificates(tmp_path / "pki", "bundles")).start()
    yield running
    running.stop()


@pytest.fixture
def home(tmp_path: Path, server: BundleServer, keys: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "plugins:\n  enabled: [agentsfence]\nagentsfence:\n"
        f"  bundle_url: {server.url}\n  bundle_keys: [{keys / 'team.pub.pem'}]\n"
        f"  bundle_ca: {server.certificates.ca}\n  bundle_poll: 3600\n")
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("launch in October\n")
    return home


started: list[HermesFence] = []


@pytest.fixture(autouse=True)
def stop_pollers():
    yield
    while started:
        started.pop().policy.files.stop()
    # Hermes' guard against a model re-reading one file counts reads in a row per task, and
    # every test's task is t1: each test starts it afresh, as a new task would.
    from tools.file_tools import notify_other_tool_call

    notify_other_tool_call("t1")


def start_plugin(monkeypatch: pytest.MonkeyPatch) -> HermesFence:
    manager = hermes_plugins.PluginManager()
    monkeypatch.setattr(hermes_plugins, "_plugin_manager", manager)
    manager.discover_and_load()
    plugin = manager._hooks["pre_tool_call"][0].__self__
    assert isinstance(plugin, HermesFence)
    started.append(plugin)
    return plugin


def user_turn() -> None:
    hermes_plugins.invoke_hook("pre_llm_call", session_id="s1", task_id="t1", turn_id="1", user_message="Summarize notes.txt",
                               conversation_history=[], is_first_turn=True, model="scripted", platform="cli", sender_id="")


def read_call() -> dict:
    """read_file of notes.txt through Hermes: its content when the fence lets it run, else Hermes' error."""
    return json.loads(model_tools.handle_function_call("read_file", {"path": "notes.txt"}, task_id="t1", session_id="s1"))


def audit_records(home: Path) -> list[dict]:
    return [json.loads(line) for line in (home / "agentsfence" / "audit.jsonl").read_text().splitlines()]


def status(capsys: pytest.CaptureFixture) -> str:
    capsys.readouterr()
    assert run_cli(type("Options", (), {"fence_command": "status"})()) == 0
    return capsys.readouterr().out


def signed(tmp_path: Path, keys: Path, name: str, signer: str = "team", revision: str | None = None) -> bytes:
    return build(policy_dir(tmp_path, name), [keys / f"{signer}.pem"], revision or name)


def test_a_new_host_fetches_the_bundle_at_start_and_shows_its_revision(tmp_path, server, keys, home, monkeypatch, capsys):
    server.served.body = signed(tmp_path, keys, "team-r1")
    plugin = start_plugin(monkeypatch)
    assert plugin.fence.policy_name == "team-r1" and plugin.policy.error is None
    user_turn()
    assert "launch in October" in read_call()["content"]
    shown = status(capsys)
    assert f"from bundle team-r1 from {server.url}" in shown
    assert f"bundle: revision team-r1 from {server.url}, signed by key " in shown
    starts = [r for r in audit_records(home) if r["event"] == "policy"]
    assert starts[-1]["origin"] == f"bundle team-r1 from {server.url}" and starts[-1]["why"] == "start"


def test_a_new_host_with_the_server_down_blocks_every_call_until_a_bundle_arrives(tmp_path, server, keys, home, monkeypatch):
    server.stop()
    plugin = start_plugin(monkeypatch)
    # No bundle: nothing weaker stands in; every call is blocked and says why.
    assert "no good policy bundle has been fetched" in plugin.policy.error
    user_turn()
    assert "no good policy bundle has been fetched" in read_call()["error"]
    server.start()
    server.served.body = signed(tmp_path, keys, "team-r1")
    assert plugin.policy.files.poll() == "fetched"  # the poller's next fetch, run here
    user_turn()
    assert plugin.fence.policy_name == "team-r1" and plugin.policy.error is None
    assert "launch in October" in read_call()["content"]


def test_a_bundle_refused_at_start_is_recorded_once_the_audit_log_is_there(tmp_path, server, keys, home, monkeypatch):
    server.served.body = signed(tmp_path, keys, "team-r1", signer="stranger")
    plugin = start_plugin(monkeypatch)
    assert "no good policy bundle has been fetched" in plugin.policy.error
    [refused] = [r for r in audit_records(home) if r["event"] == "bundle_refused"]
    assert "no signature of the bundle verifies under a trusted key" in refused["why"]


def test_an_unchanged_bundle_is_a_304_and_costs_no_body(tmp_path, server, keys, home, monkeypatch):
    server.served.body = signed(tmp_path, keys, "team-r1")
    source = start_plugin(monkeypatch).policy.files
    assert source.poll() == "unchanged"
    assert server.served.requests == [(200, ""), (304, server.served.etag)]


def refuses(tmp_path, server, keys, home, monkeypatch, make: Callable[[], bytes], why: str) -> None:
    """Serves r1, then the bundle `make` makes (after r1, so not older): refused with an audit record and the reason, r1 stays in force,
    and the refused bundle is not fetched and refused again."""
    server.served.body = signed(tmp_path, keys, "team-r1")
    plugin = start_plugin(monkeypatch)
    user_turn()
    server.served.body = make()
    assert plugin.policy.files.poll() == "refused"
    assert not plugin.policy.files.changed()
    user_turn()
    assert plugin.fence.policy_name == "team-r1" and plugin.policy.error is None
    refused = [r for r in audit_records(home) if r["event"] == "bundle_refused"]
    assert len(refused) == 1 and why in refused[0]["why"] and refused[0]["url"] == server.url
    assert plugin.policy.files.poll() == "unchanged"  # a 304 for the refused one: no second record
    assert len([r for r in audit_records(home) if r["event"] == "bundle_refused"]) == 1


def test_a_bundle_signed_by_an_untrusted_key_is_refused_and_the_last_good_stays(tmp_path, server, keys, home, monkeypatch):
    refuses(tmp_path, server, keys, home, monkeypatch, lambda: signed(tmp_path, keys, "team-r2", signer="stranger"),
            "no signature of the bundle verifies under a trusted key")


def test_a_bundle_changed_after_signing_is_refused(tmp_path, server, keys, home, monkeypatch):
    good = signed(tmp_path, keys, "team-r2")
    members = {}
    with tarfile.open(fileobj=io.BytesIO(good), mode="r:gz") as tar:
        for info in tar:
            members[info.name] = tar.extractfile(info).read()
    members[SOURCES + "policy.yaml"] = members[SOURCES + "policy.yaml"].replace(b"team-r2", b"evil-r2")
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    refuses(tmp_path, server, keys, home, monkeypatch, out.getvalue, "does not have the hash its signed manifest names")


def test_a_signed_bundle_whose_sources_do_not_compile_is_refused(tmp_path, server, keys, home, monkeypatch):
    def broken() -> bytes:
        return pack({SOURCES + "policy.yaml": b"version: 1\nname: broken\ndefaults: {read: perhaps}\n"},
                    [load_private_key(keys / "team.pem")], "broken")
    refuses(tmp_path, server, keys, home, monkeypatch, broken, "the bundle's policy does not compile")


def test_a_signed_bundle_whose_bytecode_the_evaluator_rejects_is_refused(tmp_path, server, keys, home, monkeypatch):
    def rejected() -> bytes:
        return pack({SOURCES + "policy.yaml": POLICY.format(name="r2").encode(), BYTECODE: b"AFB\x00not bytecode"},
                    [load_private_key(keys / "team.pem")], "r2", compiler_digest())
    refuses(tmp_path, server, keys, home, monkeypatch, rejected, "the evaluator rejects the bundle's policy")


def test_an_older_bundle_is_not_put_back(tmp_path, server, keys, home, monkeypatch):
    def older() -> bytes:
        return pack({SOURCES + "policy.yaml": POLICY.format(name="team-r0").encode()}, [load_private_key(keys / "team.pem")],
                    "team-r0", created=time.time() - 3600)
    refuses(tmp_path, server, keys, home, monkeypatch, older, "was made before the newest one this host accepted")


def test_a_newer_good_bundle_replaces_the_one_in_force_at_the_next_turn(tmp_path, server, keys, home, monkeypatch):
    server.served.body = signed(tmp_path, keys, "team-r1")
    plugin = start_plugin(monkeypatch)
    user_turn()
    server.served.body = signed(tmp_path, keys, "team-r2")
    assert plugin.policy.files.poll() == "fetched"
    assert plugin.fence.policy_name == "team-r1"  # not before the turn: no swap on the decision path
    user_turn()
    assert plugin.fence.policy_name == "team-r2"
    assert f"from bundle team-r2 from {server.url})" in plugin.describe_session("s1").splitlines()[0]  # /fence
    changed = [r for r in audit_records(home) if r["event"] == "policy_changed"]
    assert changed[-1]["origin"] == f"bundle team-r2 from {server.url}"


def test_a_restart_with_the_server_down_uses_the_last_good_bundle(tmp_path, server, keys, home, monkeypatch, capsys):
    server.served.body = signed(tmp_path, keys, "team-r1")
    first = start_plugin(monkeypatch)
    assert first.fence.policy_name == "team-r1"
    user_turn()
    server.stop()
    restarted = start_plugin(monkeypatch)
    assert restarted.fence.policy_name == "team-r1" and restarted.policy.error is None
    assert restarted.policy.files.poll() == "unreachable"
    user_turn()
    assert "launch in October" in read_call()["content"]
    assert "bundle: revision team-r1" in status(capsys)


def test_a_kept_bundle_whose_key_is_no_longer_trusted_blocks_every_call(tmp_path, server, keys, home, monkeypatch):
    """Rotation: the operator trusts another key now; the bundle on disk signed by the old one is
    not used, and no weaker policy stands in."""
    server.served.body = signed(tmp_path, keys, "team-r1")
    first = start_plugin(monkeypatch)
    assert first.fence.policy_name == "team-r1"
    user_turn()
    server.stop()
    config = home / "config.yaml"
    config.write_text(config.read_text().replace("team.pub.pem", "stranger.pub.pem"))
    restarted = start_plugin(monkeypatch)
    assert "is refused: no signature of the bundle verifies" in restarted.policy.error
    user_turn()
    assert "every call is blocked" in read_call()["error"]


def test_a_bundle_signed_by_the_old_and_the_new_key_is_good_under_either(tmp_path, keys):
    archive = build(policy_dir(tmp_path, "rotating"), [keys / "team.pem", keys / "stranger.pem"])
    for trusted in ("team", "stranger"):
        bundle = open_bundle(archive, load_public_keys([str(keys / f"{trusted}.pub.pem")]))
        assert bundle.keyid == key_id(load_private_key(keys / f"{trusted}.pem").public_key())


def test_a_policy_that_reads_a_file_outside_its_folder_is_not_bundled(tmp_path, keys):
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "shared.yaml").write_text("version: 1\nname: shared\n")
    folder = policy_dir(tmp_path, "team", "version: 1\nextends: [../shared.yaml]\nname: {name}\n")
    with pytest.raises(BundleError, match="outside"):
        build(folder, [keys / "team.pem"])


def test_the_bundle_commands(tmp_path, keys, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["bundle", "keygen", "ops"]) == 0
    assert (tmp_path / "ops.pem").stat().st_mode & 0o777 == 0o600
    assert main(["bundle", "keygen", "ops"]) == 1  # never overwritten
    folder = policy_dir(tmp_path, "team")
    (folder / "extra.yaml").write_text("version: 1\nname: extra\n")
    (folder / "policy.yaml").write_text("version: 1\nextends: [defaults, extra.yaml]\nname: team\n")
    assert main(["bundle", "build", "--key", "ops.pem", str(folder), "-o", "b.tar.gz", "--revision", "v7"]) == 0
    capsys.readouterr()
    assert main(["bundle", "verify", "--key", "ops.pub.pem", "b.tar.gz"]) == 0
    out = capsys.readouterr().out
    assert "ok: revision v7" in out and "src/extra.yaml" in out and "policy.afb" in out
    assert main(["bundle", "verify", "--key", str(keys / "team.pub.pem"), "b.tar.gz"]) == 1
    assert "no signature of the bundle verifies" in capsys.readouterr().err


def test_the_settings_docs_operators_md_gives_are_read_as_written(tmp_path):
    import re

    from agentsfence.settings import load_settings

    from .conftest import REPO

    blocks = re.findall(r"```yaml\n(agentsfence:\n.*?)```", (REPO / "docs" / "operators.md").read_text(), re.S)
    read = []
    for block in blocks:  # every settings block of the page loads as written
        (tmp_path / "config.yaml").write_text(block)
        read.append(load_settings(tmp_path))
    bundles = next(settings for settings in read if settings.bundle_url)
    assert bundles.bundle_url.startswith("https://") and bundles.bundle_keys == (str(tmp_path / "keys/team.pub.pem"),)
    assert any(settings.audit_syslog == "tls://logs.example.com:6514" for settings in read)


def test_audit_tail_says_why_a_bundle_was_refused(tmp_path, capsys):
    from agentsfence.audit import AuditLog

    log = AuditLog(tmp_path / "audit.jsonl")
    log.event("bundle_refused", "", "", url="https://p.example.com/b", sha256="0" * 64, why="no signature verifies")
    assert main(["audit", "tail", str(tmp_path / "audit.jsonl")]) == 0
    assert "bundle_refused" in (out := capsys.readouterr().out) and "no signature verifies" in out


# ---- the newest accepted bundle: not lowered by a lost kept bundle or a key no longer trusted ----

def restart(monkeypatch: pytest.MonkeyPatch) -> HermesFence:
    """A new Hermes process on the same home (the last one's poller stopped)."""
    started.pop().policy.files.stop()
    return start_plugin(monkeypatch)


def test_a_truncated_kept_bundle_does_not_let_an_older_one_in(tmp_path, server, keys, home, monkeypatch):
    weak = signed(tmp_path, keys, "weak")
    server.served.body = signed(tmp_path, keys, "strict")  # made after weak
    first = start_plugin(monkeypatch)
    assert first.fence.policy_name == "strict"
    server.served.body = weak
    assert first.policy.files.poll() == "refused"
    kept = home / "agentsfence" / "bundle" / "bundle.tar.gz"
    kept.write_bytes(kept.read_bytes()[:1000])
    restarted = restart(monkeypatch)
    # The kept bundle is gone, the server replays weak: refused all the same, and every call blocks.
    assert restarted.policy.files.poll() == "unchanged"
    assert not restarted.policy.files.changed()
    user_turn()
    answer = read_call()
    assert "error" in answer, answer
    error = answer["error"]
    assert "is refused: the bundle is not a gzipped tar archive" in error
    assert "The newest bundle this host accepted is revision strict" in error and "agentsfence bundle reset" in error
    refused = [r for r in audit_records(home) if r["event"] == "bundle_refused"]
    assert all("made before the newest one this host accepted (revision strict" in r["why"] for r in refused)
    # A good bundle newer than strict ends the block.
    server.served.body = signed(tmp_path, keys, "strict2")
    assert restarted.policy.files.poll() == "fetched"
    user_turn()
    assert restarted.fence.policy_name == "strict2"
    answer = read_call()
    assert "launch in October" in answer.get("content", ""), answer


def test_a_key_rotation_does_not_let_an_older_bundle_signed_by_both_keys_in(tmp_path, server, keys, home, monkeypatch):
    config = home / "config.yaml"
    config.write_text(config.read_text().replace(f"[{keys / 'team.pub.pem'}]",
                                                 f"[{keys / 'team.pub.pem'}, {keys / 'stranger.pub.pem'}]"))
    weakdual = build(policy_dir(tmp_path, "weakdual"), [keys / "team.pem", keys / "stranger.pem"], "weakdual")
    server.served.body = signed(tmp_path, keys, "strict3")  # team's key only, made after weakdual
    first = start_plugin(monkeypatch)
    assert first.fence.policy_name == "strict3"
    server.served.body = weakdual
    assert first.policy.files.poll() == "refused"
    config.write_text(config.read_text().replace(f"{keys / 'team.pub.pem'}, ", ""))  # team's key retired
    restarted = restart(monkeypatch)
    assert "no signature of the bundle verifies" in restarted.policy.error
    assert restarted.policy.files.poll() in ("unchanged", "refused")
    assert not restarted.policy.files.changed()
    user_turn()
    assert "The newest bundle this host accepted is revision strict3" in read_call()["error"]
    [*_, last] = [r for r in audit_records(home) if r["event"] == "bundle_refused"]
    assert "(revision weakdual) was made before the newest one this host accepted (revision strict3" in last["why"]


def test_bundle_reset_lets_an_older_bundle_in_and_is_recorded(tmp_path, server, keys, home, monkeypatch, capsys):
    weak = signed(tmp_path, keys, "weak")
    server.served.body = signed(tmp_path, keys, "strict")
    start_plugin(monkeypatch)
    server.served.body = weak
    (home / "agentsfence" / "bundle" / "bundle.tar.gz").write_bytes(b"truncated")
    assert "agentsfence bundle reset" in restart(monkeypatch).policy.error
    assert main(["bundle", "reset"]) == 0
    assert "revision" in capsys.readouterr().out
    [reset] = [r for r in audit_records(home) if r["event"] == "bundle_reset"]
    assert json.loads(reset["mark"])["revision"] == "strict"
    restarted = restart(monkeypatch)  # the refused weak is forgotten too: fetched and taken
    assert restarted.fence.policy_name == "weak" and restarted.policy.error is None


def test_an_unreadable_record_of_the_newest_bundle_blocks_every_call(tmp_path, server, keys, home, monkeypatch):
    server.served.body = signed(tmp_path, keys, "team-r1")
    start_plugin(monkeypatch)
    (home / "agentsfence" / "bundle.mark").write_text("{not json")
    restarted = restart(monkeypatch)
    assert "is unreadable" in restarted.policy.error and "agentsfence bundle reset" in restarted.policy.error
    server.served.body = signed(tmp_path, keys, "team-r2")
    assert restarted.policy.files.poll() == "refused"  # nothing can be shown new enough
    user_turn()
    assert "every call is blocked" in read_call()["error"]


def test_a_refused_bundle_is_not_refused_again_after_a_restart(tmp_path, server, keys, home, monkeypatch):
    server.served.body = signed(tmp_path, keys, "team-r1")
    first = start_plugin(monkeypatch)
    server.served.body = signed(tmp_path, keys, "team-r2", signer="stranger")
    assert first.policy.files.poll() == "refused"
    restarted = restart(monkeypatch)
    assert restarted.fence.policy_name == "team-r1"
    assert restarted.policy.files.poll() == "unchanged"
    assert server.served.requests[-1] == (304, server.served.etag)
    assert len([r for r in audit_records(home) if r["event"] == "bundle_refused"]) == 1


def test_a_bundle_refused_at_the_first_start_is_not_refused_again_at_the_next(tmp_path, server, keys, home, monkeypatch):
    server.served.body = signed(tmp_path, keys, "team-r1", signer="stranger")
    start_plugin(monkeypatch)
    assert "no good policy bundle has been fetched" in restart(monkeypatch).policy.error
    assert server.served.requests == [(200, ""), (304, server.served.etag)]
    assert len([r for r in audit_records(home) if r["event"] == "bundle_refused"]) == 1


# ---- a deadline for the whole fetch ----

TRICKLE_SECONDS = 40  # the trickling server gives up after this: a host without a deadline waits it out


class _TrickleHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = self.server.body  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        until = time.monotonic() + TRICKLE_SECONDS
        try:
            for byte in body:  # one byte every half second, for at most TRICKLE_SECONDS
                if time.monotonic() > until or self.server.stopping.is_set():  # type: ignore[attr-defined]
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.5)
        except (OSError, ssl.SSLError):
            pass  # the client cut it off

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def trickle(tmp_path: Path, server: BundleServer):
    """An HTTPS server on the bundle server's address that sends its bundle one byte at a time."""
    port = server.port
    server.stop()
    trickling = http.server.ThreadingHTTPServer(("127.0.0.1", port), _TrickleHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(server.certificates.cert, server.certificates.key)
    trickling.socket = context.wrap_socket(trickling.socket, server_side=True)
    trickling.daemon_threads = True
    trickling.stopping = threading.Event()  # type: ignore[attr-defined]
    threading.Thread(target=trickling.serve_forever, daemon=True).start()
    yield trickling
    trickling.stopping.set()  # type: ignore[attr-defined]
    trickling.shutdown()
    trickling.server_close()


def test_a_trickling_server_does_not_stall_the_start(tmp_path, keys, home, trickle, monkeypatch, caplog):
    trickle.body = signed(tmp_path, keys, "team-r1")
    monkeypatch.setattr(bundle_module, "FETCH_DEADLINE", 2.0)
    began = time.monotonic()
    plugin = start_plugin(monkeypatch)
    assert time.monotonic() - began < 2.0 + 20  # the deadline, and a generous margin: it does not hang
    assert "the fetch did not finish within 2 seconds" in plugin.policy.error
    assert "the fetch did not finish within 2 seconds" in caplog.text  # Hermes' log says it too
    user_turn()
    assert "no good policy bundle has been fetched" in (error := read_call()["error"]) and "did not finish" in error
    began = time.monotonic()
    assert plugin.policy.files.poll() == "unreachable"  # the poller's fetches have the same deadline
    assert time.monotonic() - began < 2.0 + 20
