"""The plan's walk, without running anything: what classify is asked about (never below what it
called read-only or hidden, never through a symlink, within the limits), and what the plan leaves
on the host afterwards."""
from __future__ import annotations

import os

from agentsfence.sandbox import bwrap as bw
from agentsfence.sandbox.probe import probe

from .sandbox_support import World, classify, make_profile, world  # noqa: F401  (fixture)


def recorded_plan(w: World, **changes):
    asked: list[str] = []

    def recording(paths):
        asked.extend(paths)
        return classify(paths)

    profile = make_profile(**{**dict(cwd=w.tree, home=w.home, write=(w.tree,), hide=(w.home / ".ssh",)), **changes})
    profile = type(profile)(**{**profile.__dict__, "classify": recording})
    made = bw.plan(profile, bwrap=probe().bwrap or "bwrap", state_dir=str(w.base))
    return made, asked


def test_the_walk_asks_about_each_path_once_and_never_below_a_read_only_or_hidden_one(world: World):
    (world.tree / ".git" / "objects").mkdir(parents=True)
    (world.tree / ".aws" / "deep").mkdir(parents=True)
    (world.tree / "src" / "pkg").mkdir(parents=True)
    (world.tree / "src" / "pkg" / "m.py").write_text("")
    (world.tree / "to-home").symlink_to(world.home)
    made, asked = recorded_plan(world)
    try:
        assert len(asked) == len(set(asked))
        assert str(world.tree / "src" / "pkg" / "m.py") in asked and str(world.tree / "to-home") in asked
        assert not any(p.startswith(str(world.tree / ".git") + "/") or p.startswith(str(world.tree / ".aws") + "/")
                       or p.startswith(str(world.tree / "to-home") + "/") for p in asked)
        assert str(world.home / "notes.txt") in asked and str(world.home / ".ssh") not in asked  # hidden already
        argv = " ".join(made.argv)
        assert f"--ro-bind {world.tree}/.git {world.tree}/.git" in argv and f"--tmpfs {world.tree}/.aws" in argv
        assert f"--ro-bind /dev/null {world.tree}/.env" in argv
    finally:
        bw.undo(made)
    assert not (world.tree / ".github").exists() and (world.tree / ".git").exists()  # only what it made goes


def test_the_walk_stops_at_its_limits_and_says_so(world: World, monkeypatch):
    monkeypatch.setattr(bw, "WALK_ENTRIES", 10)
    for i in range(30):
        (world.tree / f"f{i:02}").write_text("")
    made, asked = recorded_plan(world)
    bw.undo(made)
    assert len([p for p in asked if p.startswith(str(world.tree))]) == 10
    assert any("only the first 10 entries" in note for note in made.notes)


def test_mounts_go_shallow_first_so_a_hidden_path_wins_over_the_writable_dir_around_it(world: World):
    made, _ = recorded_plan(world, write=(world.tree,), hide=(world.tree / "sub",))
    bw.undo(made)
    assert made.argv.index(str(world.tree)) < made.argv.index(str(world.tree / "sub"))
    assert made.argv[made.argv.index(str(world.tree / "sub")) - 1] == "--tmpfs"


def test_undo_is_idempotent_and_removes_only_an_output_file_left_empty(world: World):
    empty, filled = world.outside / "empty.txt", world.outside / "report.txt"
    made, _ = recorded_plan(world, write=(world.tree, empty, filled))
    assert empty.is_file() and filled.is_file() and {str(empty), str(filled)} <= set(made.created)
    filled.write_text("the run's report\n")
    bw.undo(made)
    bw.undo(made)
    assert not empty.exists() and filled.read_text() == "the run's report\n"


def test_probe_says_why_not_and_how_to_fix_when_bwrap_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    found = probe()
    assert not found.ok and found.why == "bubblewrap (bwrap) is not installed"
    assert found.fix == "install bubblewrap: apt-get install bubblewrap"


def test_stdin_reaches_the_confined_command(world: World):
    from agentsfence.sandbox import run
    done = run(world.profile(), "tr a-z A-Z", timeout=30, stdin="quiet\n")
    assert done.stdout == "QUIET\n"
