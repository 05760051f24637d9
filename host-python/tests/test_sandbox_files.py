"""What a confined command can write and read, with the real bwrap; the oracle is the kernel
(the host's filesystem afterwards, the errno strace saw), never the plan's own argv."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agentsfence.sandbox import run

from .sandbox_support import World, world  # noqa: F401  (fixture)

SECRETS = ("SSH-PRIVATE-KEY-BYTES", "HERMES-TOKEN", "NETRC-PASSWORD", "AWS-SECRET-KEY", "DOTENV-SECRET")


def confined(w: World, command: str, **changes):
    return run(w.profile(**changes), command, timeout=30)


def test_the_tree_is_writable_and_the_host_sees_the_write(world: World):
    done = confined(world, "echo made > new.txt && mkdir -p deep/er && echo x > deep/er/f && cat README")
    assert done.returncode == 0, done.stderr
    assert (world.tree / "new.txt").read_text() == "made\n" and (world.tree / "deep/er/f").exists()
    assert done.stdout == "readme\n"


@pytest.mark.parametrize("how", [
    "echo x > {home}/notes.txt",                      # the home
    "echo x > {outside}/target.txt",                  # elsewhere
    "echo x > ../outside/target.txt",                 # ../ from the tree
    "ln -s {outside}/target.txt link && echo x > link",   # a symlink made in the tree
    "echo x > /proc/self/root{outside}/target.txt",   # /proc/self/root
    "echo x > /proc/1/root{outside}/target.txt",      # the sandbox's pid 1
    "ln {outside}/target.txt hard && echo x >> hard",  # a hardlink: EXDEV across the mounts
    "mv {outside}/target.txt moved",                  # moving it into the tree
    "rm -f {outside}/target.txt",
])
def test_nothing_outside_the_tree_can_be_changed(world: World, how: str):
    command = how.format(home=world.home, outside=world.outside)
    done = confined(world, command)
    assert (world.outside / "target.txt").read_text() == "original\n", (command, done.stderr)
    assert (world.home / "notes.txt").read_text() == "home notes\n"
    assert done.returncode != 0


def test_etc_through_a_symlink_in_the_tree_is_read_only_and_strace_sees_the_kernel_say_so(world: World):
    probe_file = "/etc/agentsfence-sandbox-test-should-not-exist"
    assert not os.path.exists(probe_file)
    done = confined(world, f"ln -s /etc etc && strace -f -e trace=%file -o /tmp/trace sh -c 'echo x > etc/{os.path.basename(probe_file)}'; "
                           "cat /tmp/trace")
    assert not os.path.exists(probe_file)
    assert "EROFS" in done.stdout, done.stdout + done.stderr


def test_hidden_paths_cannot_be_read_by_any_route(world: World):
    ssh = world.home / ".ssh"
    command = textwrap.dedent(f"""
        cat {ssh}/id_ed25519; cat {world.home}/.netrc; cat {world.home}/.hermes/auth.json
        ls -a {ssh}; ln -s {ssh} sshlink; cat sshlink/id_ed25519
        cat /proc/self/root{ssh}/id_ed25519
        ln {ssh}/id_ed25519 hard && cat hard
        cat .env; cat {world.home}/.aws/credentials
        echo planted > {ssh}/new; echo planted > {world.home}/.aws/new
        true""")
    done = confined(world, command)
    for secret in SECRETS:
        assert secret not in done.stdout + done.stderr
    assert not (ssh / "new").exists() and not (world.home / ".aws" / "new").exists()
    assert (world.tree / ".env").read_text() == "API_KEY=DOTENV-SECRET\n"  # hidden, not touched


def test_the_hosts_tmp_and_run_are_not_visible(world: World, tmp_path):
    (tmp_path / "host-tmp-file").write_text("host\n")
    done = confined(world, f"ls {tmp_path} 2>&1; ls /tmp; ls /run")
    assert "host-tmp-file" not in done.stdout
    assert done.stdout.split() [-1:] == ["agentsfence"] or "agentsfence" in done.stdout


def test_a_named_output_is_writable_without_its_folder(world: World):
    out = world.outside / "report.md"
    done = confined(world, f"echo result > {out}; echo x > {world.outside}/sibling", write=(world.tree, out))
    assert out.read_text() == "result\n"
    assert not (world.outside / "sibling").exists() and done.returncode != 0


def test_an_output_left_empty_is_removed_after_the_run(world: World):
    out = world.outside / "never-written.md"
    done = confined(world, "true", write=(world.tree, out))
    assert done.returncode == 0 and not out.exists()


def test_a_writable_path_that_is_a_symlink_does_not_widen_writing(world: World):
    link = world.base / "tree-link"
    link.symlink_to(world.outside)
    done = confined(world, f"echo x > {link}/target.txt", write=(world.tree, link))
    assert (world.outside / "target.txt").read_text() == "original\n"
    assert any("symlink" in note for note in done.notes)


def test_what_must_stay_read_only_can_be_neither_replaced_nor_left_behind(world: World, monkeypatch):
    """An existing read-only path cannot be written, removed or moved aside with its folder (the
    folders above it are mount points); one the run creates is moved out of the tree after it."""
    monkeypatch.setenv("XDG_STATE_HOME", str(world.base / "state"))
    (world.tree / "sub" / "deep" / ".git").mkdir(parents=True)
    (world.tree / "sub" / "deep" / ".git" / "HEAD").write_text("ref\n")
    done = confined(world, "mv sub subx; mv sub/deep sub/d2; rm -rf sub/deep/.git; echo x > sub/deep/.git/HEAD; "
                           "mkdir -p new/.git && echo x > new/.git/config; echo ok > made.txt")
    assert done.stderr.count("Device or resource busy") >= 2, done.stderr
    assert (world.tree / "sub" / "deep" / ".git" / "HEAD").read_text() == "ref\n"
    assert not (world.tree / "new" / ".git").exists() and (world.tree / "made.txt").exists()
    assert any("new/.git" in note and "moved to" in note for note in done.notes), done.notes
    assert list((world.base / "state" / "agentsfence" / "quarantine").glob("*/new/.git/config"))


def test_an_existing_git_dir_is_read_only_and_hidden_names_below_the_tree_stay_hidden(world: World):
    (world.tree / ".git").mkdir()
    (world.tree / ".git" / "config").write_text("[core]\n")
    (world.tree / "sub" / "secrets.txt").write_text("DOTENV-SECRET\n")
    done = confined(world, "echo x >> .git/config; cat sub/secrets.txt; echo ok > sub/fine")
    assert (world.tree / ".git" / "config").read_text() == "[core]\n"
    assert "DOTENV-SECRET" not in done.stdout and (world.tree / "sub" / "fine").exists()


def test_secrets_leave_the_environment_and_caches_move_to_the_private_tmp(world: World, monkeypatch):
    monkeypatch.setenv("MY_API_TOKEN", "TOKEN-VALUE")
    monkeypatch.setenv("HARMLESS", "kept")
    done = confined(world, "env")
    assert "TOKEN-VALUE" not in done.stdout and "HARMLESS=kept" in done.stdout
    assert "XDG_CACHE_HOME=/tmp/.cache" in done.stdout and "PIP_CACHE_DIR=/tmp/.cache/pip" in done.stdout
    assert confined(world, "mkdir -p $XDG_CACHE_HOME/x && pip --version >/dev/null").returncode == 0


def test_no_privilege_can_be_gained(world: World):
    done = confined(world, "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status; "
                           "su -c 'id' root </dev/null; echo su=$?; unshare -U true; echo unshare=$?; "
                           "mount -t tmpfs none /etc; echo mount=$?")
    lines = dict(line.split(":\t") for line in done.stdout.splitlines() if ":\t" in line)
    assert lines == {"CapPrm": "0000000000000000", "CapEff": "0000000000000000", "CapBnd": "0000000000000000",
                     "NoNewPrivs": "1"}
    assert "su=1" in done.stdout and "unshare=1" in done.stdout and "mount=32" in done.stdout


TIOCSTI_SCRIPT = """
import fcntl, sys, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x")
    print("injected")
except OSError as error:
    print("refused", error.errno)
"""


def _on_a_terminal(command: list[str], cwd) -> str:
    """`command` in a new session whose controlling terminal is a fresh pty: what the caller of
    Hermes' terminal has, and what TIOCSTI would push keystrokes into."""
    import fcntl
    import pty
    import termios
    controller, terminal = pty.openpty()

    def take_terminal():
        os.setsid()
        fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)

    try:
        done = subprocess.run(command, stdin=terminal, capture_output=True, text=True, timeout=30, cwd=cwd,
                              preexec_fn=take_terminal)
    finally:
        os.close(controller)
        os.close(terminal)
    return done.stdout + done.stderr


def test_tiocsti_cannot_push_input_into_the_callers_terminal(world: World):
    import shlex
    from agentsfence.sandbox import confine
    # The interpreter itself, not a virtualenv's link to it: a checkout under /tmp is not in the
    # sandbox, whose /tmp is its own.
    script = f"{os.path.realpath(sys.executable)} -c {shlex.quote(TIOCSTI_SCRIPT)}"
    unconfined = _on_a_terminal(["bash", "-c", script], world.tree)
    with confine(world.profile()) as handle:
        confined_out = _on_a_terminal(["bash", "-c", handle.shell_text(script)], world.tree)
    assert "refused" in confined_out and "injected" not in confined_out, confined_out
    if Path("/proc/sys/dev/tty/legacy_tiocsti").read_text().strip() == "1":
        assert "injected" in unconfined  # the control: outside, the same call works on this kernel


def test_the_sandbox_dies_with_its_parent(world: World):
    marker = world.tree / "survived"
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = {sys.path!r}
        from tests.sandbox_support import make_profile
        from agentsfence.sandbox import run
        run(make_profile({str(world.tree)!r}, {str(world.home)!r}, write=({str(world.tree)!r},)),
            "echo started > started; sleep 2; echo x > survived", timeout=30)
        """)
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=str(world.base))
    deadline = time.time() + 20
    while not (world.tree / "started").exists() and time.time() < deadline:
        time.sleep(0.05)
    parent.kill()
    parent.wait()
    time.sleep(3)
    assert (world.tree / "started").exists() and not marker.exists()


def test_a_timeout_kills_the_whole_sandbox(world: World):
    start = time.time()
    done = run(world.profile(), "sleep 2 & sleep 20; echo x > late", timeout=1)
    time.sleep(1.5)
    assert done.timed_out and time.time() - start < 10 and not (world.tree / "late").exists()


def test_a_secret_the_request_named_is_read_where_it_lies(world: World):
    """The profile's `show`: a path inside a hidden folder that the request named itself."""
    named = world.home / ".ssh" / "id_ed25519"
    done = run(world.profile(show=(str(named),)), f"cat {named}; ls {world.home / '.ssh'}; echo x >> {named}", timeout=30)
    assert "SSH-PRIVATE-KEY-BYTES" in done.stdout
    assert named.read_text() == "SSH-PRIVATE-KEY-BYTES\n"  # shown read-only
