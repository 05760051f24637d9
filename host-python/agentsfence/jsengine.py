"""The policy compiler, run inside this process: no Node.

The compiler is the TypeScript of compiler/, bundled by esbuild into one file
(`_data/compile.cjs`, the same bundle `node` runs in the repository's build). Here it runs on
QuickJS compiled to WebAssembly (the `quickjs-rs` wheel), in the wasmtime this package already
uses, so nothing native comes in. `_data/node-shim.js` (host-python/js/node-shim.js) stands in for
the Node modules the bundle imports; the functions below are what it reaches the host through:
reading and writing files, SHA-256, and, for `agentsfence test`, fence.wasm in wasmtime.

The same bundle gives the same bytes under Node and here (host-python/tests/test_jsengine.py
compiles every shipped and example policy both ways).
"""
from __future__ import annotations

import errno as errno_names
import hashlib
import os
import threading
from dataclasses import dataclass
from typing import Any

from . import data
from .errors import FenceError

# How long one run may take, and how much memory QuickJS may hold: a policy of 10,000 rules
# compiles in about 33 s here in about 380 MB (README: the compiler's cost).
TIMEOUT_SECONDS = 600.0
MEMORY_LIMIT = 2 << 30
STACK_LIMIT = 4 << 20
MEMORY_CHUNK = 4096  # fence.wasm's memory is sent back to the bundle in pieces this size that changed

# libuv's wording, which is what Node's fs errors say.
_UV_MESSAGES = {
    errno_names.ENOENT: "no such file or directory",
    errno_names.EACCES: "permission denied",
    errno_names.EISDIR: "illegal operation on a directory",
    errno_names.ENOTDIR: "not a directory",
    errno_names.ELOOP: "too many symbolic links encountered",
    errno_names.EPERM: "operation not permitted",
    errno_names.ENAMETOOLONG: "name too long",
    errno_names.EROFS: "read-only file system",
    errno_names.ENOSPC: "no space left on device",
}


def _fs_error(error: OSError, syscall: str, path: str) -> str:
    code = errno_names.errorcode.get(error.errno or 0, "EIO")
    message = _UV_MESSAGES.get(error.errno or 0, (error.strerror or str(error)).lower())
    if error.errno == errno_names.EISDIR and syscall == "open":
        return f"{code}: {message}, read"
    return f"{code}: {message}, {syscall} '{path}'"


@dataclass(frozen=True)
class Run:
    """What one run of the compiler's command line did. `files`: every path it read or looked
    at, absolute, with what it found: the SHA-256 of the bytes read, else `absent`,
    `directory` or `other` (so a cache of its output can tell when any of them changed)."""

    status: int
    stdout: str
    stderr: str
    files: tuple[tuple[str, str], ...] = ()


def fingerprint(path: str) -> str:
    """What the compiler would find at `path`, in the form of Run.files."""
    import stat

    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except IsADirectoryError:
        return "directory"
    except FileNotFoundError:
        return "absent"
    except OSError:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return "absent"
        return "directory" if stat.S_ISDIR(mode) else "other"


class _Files:
    """The host side of the shim: the files the bundle reads and writes, and what it found."""

    def __init__(self) -> None:
        self.touched: dict[str, str] = {}
        self.written: set[str] = set()

    def _note(self, path: str, found: str, read: bool) -> None:
        key = os.path.abspath(path)
        if key not in self.written and (read or key not in self.touched):
            self.touched[key] = found

    def read(self, path: str) -> Any:
        try:
            with open(path, "rb") as f:
                content = f.read()
        except OSError as error:
            self._note(path, "directory" if error.errno == errno_names.EISDIR else "absent", True)
            return [_fs_error(error, "open", path)]
        self._note(path, hashlib.sha256(content).hexdigest(), True)
        return content

    def read_text(self, path: str) -> Any:
        answer = self.read(path)
        return answer.decode("utf-8", "replace") if isinstance(answer, bytes) else answer

    def stat(self, path: str) -> Any:
        import stat

        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            self._note(path, "absent", False)
            return [_fs_error(error, "stat", path)]
        kind = 1 if stat.S_ISREG(mode) else 2 if stat.S_ISDIR(mode) else 3
        if kind != 1:
            self._note(path, "directory" if kind == 2 else "other", False)
        elif os.path.abspath(path) not in self.touched:
            self._note(path, fingerprint(path), False)
        return kind

    def write(self, path: str, content: bytes) -> str:
        try:
            with open(path, "wb") as f:
                f.write(bytes(content))
        except OSError as error:
            return _fs_error(error, "open", path)
        self.written.add(os.path.abspath(path))
        self.touched.pop(os.path.abspath(path), None)
        return ""

    @staticmethod
    def decode(content: bytes, fatal: bool) -> str | None:
        try:
            return bytes(content).decode("utf-8", "strict" if fatal else "replace")
        except UnicodeDecodeError:
            return None


class _Wasm:
    """fence.wasm for the bundle's `WebAssembly` (policy tests): modules and instances in wasmtime,
    each instance's memory kept in step with the bundle's mirror of it (node-shim.js)."""

    def __init__(self) -> None:
        import wasmtime

        self._wasmtime = wasmtime
        self._engine = wasmtime.Engine()
        self._modules: list[Any] = []
        self._instances: list[tuple[Any, Any, dict[str, Any], bytearray]] = []

    def compile(self, content: bytes) -> Any:
        try:
            self._modules.append(self._wasmtime.Module(self._engine, bytes(content)))
        except self._wasmtime.WasmtimeError as error:
            return [f"WebAssembly.Module(): {error}"]
        return len(self._modules) - 1

    def instantiate(self, module_id: int, import_count: int) -> list[Any]:
        store = self._wasmtime.Store(self._engine)
        instance = self._wasmtime.Instance(store, self._modules[module_id], [])
        exports = instance.exports(store)
        memory = exports["memory"]
        functions = {name: item for name, item in exports.items() if isinstance(item, self._wasmtime.Func)}
        shadow = bytearray(memory.read(store, 0, memory.data_len(store)))
        self._instances.append((store, memory, functions, shadow))
        return [len(self._instances) - 1, list(functions), bytes(shadow)]

    def call(self, instance_id: int, name: str, args: list[Any], writes: list[Any]) -> list[Any]:
        store, memory, functions, shadow = self._instances[instance_id]
        for i in range(0, len(writes), 2):
            start, content = int(writes[i]), bytes(writes[i + 1])
            memory.write(store, content, start)
            shadow[start:start + len(content)] = content
        error = None
        result: Any = None
        try:
            result = functions[name](store, *[int(a) for a in args])
        except self._wasmtime.Trap as trap:
            error = f"RuntimeError: {trap.message}"
        except self._wasmtime.WasmtimeError as fault:
            error = str(fault)
        now = memory.read(store, 0, memory.data_len(store))
        changes: list[Any] | None
        if len(now) != len(shadow):
            shadow[:] = now
            changes = [bytes(now)]
        else:
            changes = []
            view, old = memoryview(now), memoryview(shadow)
            for at in range(0, len(now), MEMORY_CHUNK):
                if view[at:at + MEMORY_CHUNK] != old[at:at + MEMORY_CHUNK]:
                    if changes and changes[-2] + len(changes[-1]) == at:  # join neighbouring chunks
                        changes[-1] += bytes(view[at:at + MEMORY_CHUNK])
                    else:
                        changes += [at, bytes(view[at:at + MEMORY_CHUNK])]
            shadow[:] = now
            if not changes:
                changes = None
        return [result, changes, error]


_bundle_lock = threading.Lock()
_sources: tuple[str, str] | None = None
_primed = False


def _prime_quickjs() -> None:
    """quickjs-rs compiles its 740 KB QuickJS module with Cranelift in every process (0.5 to 1.5
    s here); this keeps the compiled module in the package's module cache (engine.py: a private
    directory, entries named by their digest) and hands it to quickjs-rs, whose shared artifact
    it fills the way quickjs-rs itself would (quickjs-rs 0.2.6: `_wasmtime._SHARED_ARTIFACTS`).
    Anything unexpected leaves it to quickjs-rs to compile, as without the cache."""
    global _primed
    with _bundle_lock:
        if _primed:
            return
        _primed = True
    try:
        import json

        import wasmtime
        from quickjs_rs import _engine as qjs_engine
        from quickjs_rs import _wasmtime as qjs_shared

        from .engine import _private_dir, _read_cached, _write_cached, default_cache_dir, host_target, wasmtime_version

        if "quickjs" in qjs_shared._SHARED_ARTIFACTS:
            return
        guest = qjs_engine._read_guest_wasm()
        directory = _private_dir(default_cache_dir())
        if directory is None:
            return
        identity = {"wasmtime": wasmtime_version(), "target": host_target() + "+native", "engine": "quickjs-rs default",
                    "quickjs_wasm_sha256": hashlib.sha256(guest).hexdigest()}
        key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
        engine = qjs_shared.shared_wasmtime_engine()
        module = _read_cached(engine, directory, key)
        if module is None:
            module = wasmtime.Module(engine, guest)
            _write_cached(directory, key, bytes(module.serialize()))
        artifact = qjs_shared.SharedWasmArtifact(module=module, linker=qjs_engine._build_shared_linker(engine),
                                                 build_id=hashlib.sha256(guest).digest())
        with qjs_shared._SHARED_ARTIFACTS_LOCK:
            qjs_shared._SHARED_ARTIFACTS.setdefault("quickjs", artifact)
    except Exception as error:  # quickjs-rs compiles its module itself
        import logging

        logging.getLogger("agentsfence").debug("AgentsFence: QuickJS's module is not cached (%s)", error)


def _read_sources() -> tuple[str, str]:
    global _sources
    with _bundle_lock:
        if _sources is None:
            try:
                shim = data.path("node-shim.js").read_text(encoding="utf-8")
                bundle = data.path("compile.cjs").read_text(encoding="utf-8")
            except OSError as error:
                raise FenceError(f"the bundled policy compiler is missing ({error.filename}); reinstall agentsfence") from error
            if bundle.startswith("#!"):  # the bundle's `#!/usr/bin/env node` line, kept as a comment
                bundle = "//" + bundle
            _sources = shim, bundle
        return _sources


def run(argv: list[str], *, timeout: float = TIMEOUT_SECONDS) -> Run:
    """Runs the compiler's command line (compiler/cli.ts: compile, check, test) with `argv`, as
    `node compile.cjs ARGV...` would, and returns its exit status and output."""
    shim, bundle = _read_sources()
    try:
        from quickjs_rs import JSError, QuickJSError, Runtime
    except ImportError as error:
        raise FenceError(f"the policy compiler needs the quickjs-rs package ({error}); reinstall agentsfence") from error
    _prime_quickjs()
    wasm = _Wasm()
    files = _Files()
    directory = str(data.DATA_DIR)
    try:
        with Runtime(memory_limit=MEMORY_LIMIT, stack_limit=STACK_LIMIT) as runtime, runtime.new_context(timeout=timeout) as ctx:
            functions = {
                "__afRead": files.read, "__afReadText": files.read_text, "__afStat": files.stat,
                "__afWrite": files.write, "__afDecode": files.decode,
                "__afSha256": lambda content: hashlib.sha256(bytes(content)).digest(),
                "__afCwd": os.getcwd,
                "__afWasmCompile": wasm.compile, "__afWasmInstantiate": wasm.instantiate, "__afWasmCall": wasm.call,
            }
            for name, function in functions.items():
                ctx.register(name, function, is_async=False)
            ctx.eval(shim, filename="node-shim.js")
            ctx.globals["__afArgv"] = list(argv)
            ctx.eval("__afArgs(__afArgv)")
            try:
                ctx.eval(f"(function (module, exports, __filename, __dirname) {{{bundle}\n}})"
                         f"({{exports: {{}}}}, {{}}, {_js_string(directory + '/compile.cjs')}, {_js_string(directory)})",
                         filename="compile.cjs")
                crashed = ""
            except JSError as error:
                crashed = f"the policy compiler failed: {error.name}: {error.message}\n{error.stack or ''}"
            stdout = ctx.eval("__afOutput.stdout.join('')")
            stderr = ctx.eval("__afOutput.stderr.join('')")
            status = ctx.eval("process.exitCode === undefined ? 0 : Number(process.exitCode)")
    except QuickJSError as error:
        raise FenceError(f"the policy compiler could not run: {type(error).__name__}: {error}") from error
    touched = tuple(sorted(files.touched.items()))
    if crashed:
        return Run(1, stdout, stderr + crashed, touched)
    return Run(int(status), stdout, stderr, touched)


def compiler_digest() -> str:
    """The compiler bundle and its shim, as one digest: a cache of compiled policies is valid for these."""
    shim, bundle = _read_sources()
    return hashlib.sha256(hashlib.sha256(shim.encode()).digest() + hashlib.sha256(bundle.encode()).digest()).hexdigest()


def _js_string(text: str) -> str:
    import json

    return json.dumps(text)
