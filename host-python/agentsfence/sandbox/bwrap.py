"""A profile -> the bwrap argv, with what must be made on the host before the run and undone after.

The sandbox's view of the machine, in the order bwrap mounts it (a later mount covers an earlier):

    /                 read-only (the host's root, so the task's tools are all there)
    /dev /proc        a minimal /dev and the sandbox's own /proc (its own pid namespace)
    /tmp /run         private and empty: the host's sockets (ssh-agent, X, docker.sock, dbus) and
                      temporary files are not there; /run/agentsfence holds the run's state dir and,
                      read-only, the proxy's socket
    write             each writable path bound read-write at its real location
    below write       what `profile.classify` says is read-only (--ro-bind) or hidden, found by a
                      bounded walk (their folders bound onto themselves, so none can be renamed);
                      what a run creates that must stay read-only is moved aside after it (settle)
    the home          what `classify` says to hide among its first levels
    hide              the profile's hidden paths: a directory becomes an empty read-only tmpfs, a
                      file /dev/null

Paths are bound at their real location (os.path.realpath). A writable path whose real path differs
from its absolute form (a symlink somewhere along it) is NOT made writable: the evaluator judged
the path it named, and binding the symlink's target would let a link decide what becomes
writable (a tree that is a symlink to /etc would make /etc writable). Such a path is reported in
`Plan.notes`. Symlinks met by the walk are never followed and need nothing: what one points to
is protected (or hidden) by the mounts at the target's real location, because the kernel resolves
the link inside the sandbox's mount namespace.

A named output file that does not exist yet and is not below a writable directory is created
empty on the host (O_EXCL, so never one that appeared meanwhile) and bound by itself, so the
command can write it without its folder becoming writable; after the run it is removed if it is
still empty. Its parent directory must exist (the plan does not create folders). A program that
writes by renaming a temporary file over the output fails on such a file (the bound file is a
mount point: EBUSY); `>` and in-place writes work.
"""
from __future__ import annotations

import os
import re
import stat
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .profile import HIDE, READ_ONLY, SandboxProfile

# The sandbox's own fixed places.
RUN_DIR = "/run/agentsfence"
STATE_DIR = RUN_DIR + "/state"          # the run's state dir (read-write): the inner shell's final cwd
PROXY_DIR = RUN_DIR + "/proxy"          # the proxy's socket dir (read-only: connect() needs no write on a socket)
PROXY_SOCKET = PROXY_DIR + "/proxy.sock"
PROXY_PORT = 3128                       # the bridge's port on the sandbox's own loopback

# The walk below the writable dirs and the home: breadth first, so the shallow names a policy
# cares most about (.git, .env, .ssh) are classified before the limits are met.
WALK_DEPTH = 4
WALK_ENTRIES = 2000
HOME_DEPTH = 2
HOME_ENTRIES = 2000

# Caches that a tool would otherwise write into the (read-only) home: moved into the private /tmp,
# so installs and builds work and nothing they cache outlives the run. Only pure caches whose
# content is verified or rebuilt on use are moved. Not moved, on purpose: CARGO_HOME (it also holds
# cargo's config, registry credentials and installed binaries: moving it changes which registries
# and settings apply), GOPATH (its bin/), RUSTUP_HOME (toolchains), XDG_CONFIG_HOME and
# XDG_DATA_HOME (settings and trust decisions, not caches).
CACHE_ENV = {
    "TMPDIR": "/tmp",                          # the host's TMPDIR may not exist or be writable inside
    "XDG_CACHE_HOME": "/tmp/.cache",
    "PIP_CACHE_DIR": "/tmp/.cache/pip",
    "UV_CACHE_DIR": "/tmp/.cache/uv",
    "npm_config_cache": "/tmp/.npm",
    "YARN_CACHE_FOLDER": "/tmp/.cache/yarn",
    "GOCACHE": "/tmp/.cache/go-build",         # build cache: rebuilt on a miss
    "GOMODCACHE": "/tmp/go/pkg/mod",           # modules: checked against go.sum and the checksum database
}

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class Plan:
    """One run's bwrap argv (up to, not including, the command) and what it changed on the host."""
    argv: list[str]
    created: list[str] = field(default_factory=list)       # empty output files made for the run
    notes: list[str] = field(default_factory=list)         # what could not be applied as the profile says, in words
    protected: set[str] = field(default_factory=set)       # the read-only and hidden paths the walk found at the start
    dirs: list[str] = field(default_factory=list)          # the writable dirs
    links: set[str] = field(default_factory=set)           # links at read-only names at the start


class _Made:
    """The output files this process made for named outputs, counted by the runs that use them: the
    last run to finish removes one (if still empty). A run's output must not be removed under it by
    another run that finished first: a removed mount point is detached in every namespace."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users: dict[str, int] = {}

    def take(self, path: str) -> None:
        with self.lock:
            self.users[path] = self.users.get(path, 0) + 1

    def join(self, path: str) -> bool:
        """Count one more user of `path` if a run of this process made it and still uses it."""
        with self.lock:
            if self.users.get(path, 0) > 0:
                self.users[path] += 1
                return True
            return False

    def give_back(self, path: str) -> bool:
        """True when the caller was the last user."""
        with self.lock:
            left = self.users.get(path, 0) - 1
            if left > 0:
                self.users[path] = left
                return False
            self.users.pop(path, None)
            return True


MADE = _Made()


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _depth(path: str) -> int:
    return path.rstrip("/").count("/")


def _lexists(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def plan(profile: SandboxProfile, *, bwrap: str, state_dir: str, proxy_dir: str | None = None,
         disable_userns: bool = True) -> Plan:
    """The argv for `profile`, preparing the host (empty output files) as it goes; undo()
    the returned plan after the run, whatever happened."""
    out = Plan(argv=[])
    hidden = _hidden(profile, out)
    writable_dirs, writable_files = _writable(profile, hidden, out)
    mounts: list[tuple[int, int, list[str]]] = []  # (depth, kind order, args): shallow first, then by kind

    def mount(path: str, order: int, *args: str) -> None:
        mounts.append((_depth(path), order, list(args)))

    for path in writable_dirs + writable_files:
        mount(path, 0, "--bind", path, path)
    links: set[str] = set()
    read_only, walk_hidden = _walk(profile, writable_dirs, hidden, out, links=links)
    out.protected = set(read_only) | walk_hidden  # what stood there before the run
    out.links = links
    out.dirs = list(writable_dirs)
    pinned: set[str] = set()
    for path in read_only:
        mount(path, 1, "--ro-bind", path, path)
        # Its folders up to the writable one are bound onto themselves (still writable): a mount
        # point cannot be renamed, so the read-only file cannot be moved aside and replaced.
        root = max((d for d in writable_dirs if _under(path, d)), key=len, default=None)
        parent = os.path.dirname(path)
        while root is not None and parent != root and _under(parent, root) and parent not in pinned:
            pinned.add(parent)
            mount(parent, 0, "--bind", parent, parent)
            parent = os.path.dirname(parent)
    remounts: list[str] = []
    for path in sorted(hidden | walk_hidden):
        info = _lexists(path)
        if info is None:
            continue
        if stat.S_ISDIR(info.st_mode):
            # Read-only once everything is mounted: a named secret inside is bound into it first.
            mount(path, 2, "--tmpfs", path)
            remounts += ["--remount-ro", path]
        else:
            mount(path, 2, "--ro-bind", "/dev/null", path)
    for path in profile.show:
        real = os.path.realpath(path)
        if os.path.isabs(path) and _lexists(real) is not None and not os.path.islink(path):
            mount(path, 3, "--ro-bind", real, path)
    mounts.sort(key=lambda m: (m[0], m[1]))

    argv = [bwrap, "--unshare-all", "--unshare-user"]
    if disable_userns:
        argv.append("--disable-userns")  # no nested user namespace: no way to a namespace with capabilities
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL",
             "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
             "--bind", state_dir, STATE_DIR]
    if proxy_dir is not None:
        argv += ["--ro-bind", proxy_dir, PROXY_DIR]
    for _, _, args in mounts:
        argv += args
    argv += remounts
    argv += ["--remount-ro", "/run", "--chdir", profile.cwd]
    out.argv = argv
    return out


def _hidden(profile: SandboxProfile, out: Plan) -> set[str]:
    """The profile's hidden paths at their real location (hiding a symlink's target hides what the
    link shows), and the link's own path when it is one."""
    hidden: set[str] = set()
    for path in profile.hide:
        if not os.path.isabs(path):
            out.notes.append(f"{path!r} is not absolute: not hidden")
            continue
        path = os.path.normpath(path)
        if _lexists(path) is None:
            continue
        real = os.path.realpath(path)
        hidden.add(real)
        if real != path and not stat.S_ISLNK(os.lstat(path).st_mode):
            hidden.add(path)  # a symlink along the way: the real path is hidden, which is what matters
    # A path below a hidden folder is hidden with it: a mount point inside the folder's empty,
    # read-only tmpfs could not even be made.
    return {path for path in hidden if not any(other != path and _under(path, other) for other in hidden)}


def _writable(profile: SandboxProfile, hidden: set[str], out: Plan) -> tuple[list[str], list[str]]:
    dirs: list[str] = []
    files: list[str] = []
    for path in profile.write:
        if not os.path.isabs(path):
            out.notes.append(f"{path!r} is not absolute: not writable")
            continue
        path = os.path.normpath(path)
        if any(_under(path, h) for h in hidden):
            out.notes.append(f"{path} is inside a hidden path: not writable")
            continue
        info = _lexists(path)
        if info is None:
            parent = os.path.dirname(path)
            if os.path.realpath(parent) != parent or not os.path.isdir(parent):
                out.notes.append(f"{path} does not exist and its folder {parent} is not a real folder: not writable")
                continue
            if any(_under(path, d) for d in dirs) or any(_under(path, os.path.normpath(w)) for w in profile.write
                                                          if os.path.normpath(w) != path and os.path.isdir(w)):
                continue  # made inside a writable dir anyway
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o644)
            except OSError as error:
                out.notes.append(f"{path} could not be created ({error.strerror}): not writable")
                continue
            os.close(fd)
            MADE.take(path)
            out.created.append(path)
            files.append(path)
            continue
        if os.path.realpath(path) != path:
            out.notes.append(f"{path} is reached through a symlink (to {os.path.realpath(path)}): not writable")
            continue
        (dirs if stat.S_ISDIR(info.st_mode) else files).append(path)
    dirs = [d for d in dirs if not any(_under(d, o) and d != o for o in dirs)]  # the outermost only
    files = [f for f in files if not any(_under(f, d) for d in dirs) or f in out.created]
    return sorted(set(dirs)), sorted(set(files))


def _walk(profile: SandboxProfile, writable_dirs: list[str], hidden: set[str], out: Plan,
          classify: Callable[[list[str]], list[str]] | None = None, links: set[str] | None = None) -> tuple[set[str], set[str]]:
    """Breadth first below each writable dir (and the home's first levels), one classify call per
    level; what is read-only or hidden is not descended into; symlinks are listed, never followed."""
    read_only: set[str] = set()
    walk_hidden: set[str] = set()
    roots = [(d, WALK_DEPTH, WALK_ENTRIES, True) for d in writable_dirs]
    home = os.path.realpath(profile.home) if profile.home else ""
    if home and os.path.isdir(home) and not any(_under(home, d) for d in writable_dirs) and home not in hidden:
        roots.append((home, HOME_DEPTH, HOME_ENTRIES, False))
    for root, max_depth, max_entries, in_writable in roots:
        level = [root]
        seen = 0
        for _ in range(max_depth):
            found: list[str] = []
            for directory in level:
                try:
                    with os.scandir(directory) as entries:
                        for entry in entries:
                            if seen >= max_entries:
                                break
                            seen += 1
                            if _is_socket(entry):
                                # A host socket (an ssh or 1Password agent, docker, a service): a
                                # socket in a read-only folder still connects, so none is visible.
                                walk_hidden.add(entry.path)
                                continue
                            found.append(entry.path)
                except OSError:
                    continue
            found = [p for p in found if p not in hidden
                     and (in_writable or not any(_under(p, d) for d in writable_dirs))]
            if not found:
                break
            answers = (classify or profile.classify)(found)
            if len(answers) != len(found):
                raise ValueError(f"classify answered {len(answers)} times for {len(found)} paths")
            level = []
            for path, answer in zip(found, answers):
                if answer == HIDE:
                    walk_hidden.add(path)
                elif answer == READ_ONLY and in_writable:
                    if not os.path.islink(path):
                        read_only.add(path)  # a link in a writable dir can be replaced anyway; its target is what counts
                    elif links is not None:
                        links.add(path)
                elif os.path.isdir(path) and not os.path.islink(path):
                    level.append(path)
            if seen >= max_entries:
                out.notes.append(f"{root}: only the first {max_entries} entries were classified")
                break
        else:
            if level and in_writable:  # the home is walked two levels by design: no news
                out.notes.append(f"{root}: classified {max_depth} levels deep, not below")
    return read_only, walk_hidden


def settle(profile: SandboxProfile, made: Plan, quarantine: str) -> list[str]:
    """After a run: what it created that the profile keeps read-only (a CI workflow, an editor's
    tasks, an agent's instructions where none existed: bind mounts guard only what exists) is
    moved out of the tree into `quarantine`. Returns a sentence for each."""
    notes: list[str] = []
    writable_dirs = made.dirs
    links: set[str] = set()
    # Asked as created paths: a run-later file that is a secret's name too (.npmrc, .envrc) is
    # moved out, not only hidden; and a link at such a name is moved out as a file is.
    read_only, _ = _walk(profile, writable_dirs, _hidden(profile, Plan(argv=[])), Plan(argv=[]),
                         classify=profile.classify_created, links=links)
    created = (read_only - made.protected) | (links - made.links)
    for path in sorted(created):
        if any(_under(path, other) and path != other for other in created):
            continue  # moved with the folder above it
        root = next((d for d in writable_dirs if _under(path, d)), os.path.dirname(path))
        target = os.path.join(quarantine, os.path.relpath(path, root))
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.replace(path, target)
            notes.append(f"{path} was created by the confined command, which may not write files other programs "
                         f"run later; it was moved to {target}")
        except OSError as error:
            notes.append(f"{path} was created by the confined command and could not be moved aside ({error.strerror})")
    return notes


def _is_socket(entry: os.DirEntry) -> bool:
    try:
        return not entry.is_dir(follow_symlinks=False) and not entry.is_file(follow_symlinks=False) \
            and stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return False


def undo(made: Plan) -> None:
    """Remove what the plan made on the host, if still empty and no other run still uses it. Safe
    to call more than once."""
    for path in made.created:
        if MADE.give_back(path):
            try:
                if os.lstat(path).st_size == 0 and stat.S_ISREG(os.lstat(path).st_mode):
                    os.unlink(path)
            except OSError:
                pass
    made.created = []


def kept_environment(profile: SandboxProfile, names: list[str], environ: Mapping[str, str]) -> list[str]:
    """The variable names passed into the sandbox: those the evaluator does not drop by name or by
    value (names that are not shell identifiers never pass: bash could not say them either; nor
    does a value of several lines, as a key's is)."""
    names = sorted({n for n in names if NAME.match(n)})
    several = {n for n in names if "\n" in environ.get(n, "")}
    entries = [n if n not in environ or n in several else f"{n}={environ[n]}" for n in names]
    dropped = set(profile.env_drop(entries)) if entries else set()
    return [n for n in names if n not in dropped and n not in several and n not in CACHE_ENV]
