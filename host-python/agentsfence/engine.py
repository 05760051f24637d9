"""Runs fence.wasm in-process with wasmtime (docs/bytecode.md §8 is the ABI).

One wasmtime Engine per process, one Module per wasm (compiled once, then cached as native
code), and one `WasmInstance` (Store + Instance) per Fence. The hot path calls an export
through a ctypes prototype of `wasmtime_func_call_unchecked`, reached through the C library
wasmtime-py has already loaded: one foreign call instead of the public API's type lookups and
value conversions (README.md's speed table times both). The public `Func.__call__` path stays
selectable so tests can check that both give the same answers.

The ABI's numbers (export names and parameter counts, fuel) come from `_abi.py`, which
scripts/gen-abi.mjs generates from assembly/format.ts and assembly/index.ts at build time.

A WasmInstance is not thread-safe: its owner serializes calls (api.Fence holds a lock).
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import os
import stat
import struct
from pathlib import Path

import wasmtime
from wasmtime import _ffi as ffi

from ._abi import EXPORT_PARAMS, FUEL_BASE, FUEL_PER_BYTE, FUEL_PER_TEXT_BYTE

# The fuel of one call: FUEL_BASE, and per input byte FUEL_PER_BYTE, or for the exports that read
# prose FUEL_PER_TEXT_BYTE (docs/bytecode.md §8).
TEXT_EXPORTS = frozenset({"intent", "derive"})

DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024
FIRST_INPUT_CAPACITY = 64 * 1024

# Every Config setting the runtime sets: it changes the native code compiled, so it is part of
# every compiled module's identity (wasmtime refuses a module compiled under other settings).
ENGINE_SETTINGS: dict[str, bool] = {"consume_fuel": True}

# The precompiled module the package ships (scripts/build.sh), for a baseline x86_64 CPU: the
# only target that build can test. Elsewhere fence.wasm is compiled at first start and cached.
SHIPPED_TARGET = "x86_64-unknown-linux-gnu"
PRECOMPILED_MODULE = "fence.cwasm"
PRECOMPILED_MANIFEST = "fence.cwasm.json"

# Every export takes and returns i32s (EXPORT_PARAMS): a call passes at most this many.
MAX_PARAMS = max(EXPORT_PARAMS.values())

_U32 = struct.Struct("<I")
_SLOTS_PER_VALUE = ctypes.sizeof(ffi.wasmtime_val_raw_t) // ctypes.sizeof(ctypes.c_int32)
# decide's three i32 arguments, each at the start of its wasmtime_val_raw_t: one pack instead of three stores.
_DECIDE_ARGS = struct.Struct("<" + f"i{ctypes.sizeof(ffi.wasmtime_val_raw_t) - 4}x" * 2 + "i")


class EngineFault(Exception):
    """A call trapped (fuel, memory, unreachable) or broke the ABI; the instance is unusable.
    out_of_fuel: the call ran out of the fuel its input bought. Input can be built to do that,
    so such a fault never fails open (the policy's fail_open is for faults input cannot cause)."""

    def __init__(self, message: str, out_of_fuel: bool = False):
        super().__init__(message)
        self.out_of_fuel = out_of_fuel


class InputTooLarge(Exception):
    """The evaluator refused an input buffer of this size (over every limit it has)."""


# ---- Engine, precompiled module and module cache -----------------------------------------

logger = logging.getLogger("agentsfence")

# Where a module came from (Fence.module_source).
FROM_PACKAGE = "the package's precompiled module"
FROM_CACHE = "the module cache"
COMPILED = "compiled at start"

_engine: wasmtime.Engine | None = None


def make_engine(target: str | None = None) -> wasmtime.Engine:
    """An Engine with ENGINE_SETTINGS, compiling for `target` (None: this host, with every CPU
    feature it has; a triple: that target's baseline CPU, no features inferred from the host)."""
    config = wasmtime.Config()
    for name, value in ENGINE_SETTINGS.items():
        setattr(config, name, value)
    if target is not None:
        config.target = target
    return wasmtime.Engine(config)


def shared_engine() -> wasmtime.Engine:
    global _engine
    if _engine is None:
        _engine = make_engine()
    return _engine


def default_cache_dir() -> Path:
    explicit = os.environ.get("AGENTSFENCE_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "agentsfence"


def wasmtime_version() -> str:
    """The installed wasmtime's version, read from the name of its dist-info beside the package:
    one directory listing, where importlib.metadata searches every sys.path entry (about 30 ms
    in a Hermes process). That search only when the listing does not name exactly one."""
    site = os.path.dirname(os.path.dirname(wasmtime.__file__))
    versions = [name[len("wasmtime-"):-len(".dist-info")] for name in os.listdir(site)
                if name.startswith("wasmtime-") and name.endswith(".dist-info")]
    if len(versions) == 1:
        return versions[0]
    from importlib import metadata

    try:
        return metadata.version("wasmtime")
    except metadata.PackageNotFoundError:
        return "unknown"


# The target triple of the libwasmtime wasmtime-py loaded (wasmtime/_ffi.py picks it by platform).
_HOST_TRIPLES = {"linux": "unknown-linux-gnu", "android": "linux-android", "darwin": "apple-darwin", "win32": "pc-windows-msvc"}


def host_target() -> str:
    return f"{ffi.machine}-{_HOST_TRIPLES.get(ffi.sys_platform, ffi.sys_platform)}"


def module_identity(wasm_sha256: str, target: str) -> dict[str, str]:
    """What a compiled module depends on: the shipped module's manifest records it when built,
    the loader compares it with this process's, and the module cache is keyed by it."""
    settings = ",".join(f"{name}={value}" for name, value in ENGINE_SETTINGS.items())
    return {"wasmtime": wasmtime_version(), "target": target, "engine": settings, "fence_wasm_sha256": wasm_sha256}


def cache_key(wasm: bytes) -> str:
    """The module cache holds code compiled for this host's CPU (every feature it has)."""
    identity = module_identity(hashlib.sha256(wasm).hexdigest(), host_target() + "+native")
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def write_precompiled(wasm: bytes, directory: Path) -> dict[str, str]:
    """Build step: compiles `wasm` for SHIPPED_TARGET into directory/PRECOMPILED_MODULE and writes
    its manifest; returns the manifest. Only on a host of that target: wasmtime-py's library
    cannot compile for others, and a module it could not run here would ship untested."""
    if host_target() != SHIPPED_TARGET:
        raise EngineFault(f"a precompiled module is built for {SHIPPED_TARGET} only, and this host is {host_target()}")
    serialized = bytes(wasmtime.Module(make_engine(SHIPPED_TARGET), wasm).serialize())
    manifest = module_identity(hashlib.sha256(wasm).hexdigest(), SHIPPED_TARGET)
    manifest["module_sha256"] = hashlib.sha256(serialized).hexdigest()
    (directory / PRECOMPILED_MODULE).write_bytes(serialized)
    (directory / PRECOMPILED_MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def load_module(wasm: bytes, cache_dir: Path | None, precompiled: Path | None = None) -> tuple[wasmtime.Module, str]:
    """The compiled module for `wasm` and where it came from (FROM_PACKAGE, FROM_CACHE, COMPILED).

    precompiled: the directory of a shipped module built from this very wasm (the package's
    data for the package's fence.wasm), used when its manifest matches this process and both
    digests check out. Else the module cache, when a trusted entry exists: an entry is named
    `<key>-<sha256 of its content>.cwasm`, only files named for this wasm, engine and wasmtime
    version are read, and only when their content still has the digest their name gives, so a
    torn or altered file is compiled anew instead of run as native code.
    """
    engine = shared_engine()
    if precompiled is not None:
        module = _read_precompiled(engine, precompiled, wasm)
        if module is not None:
            return module, FROM_PACKAGE
    directory = _private_dir(cache_dir) if cache_dir is not None else None
    if directory is None:
        return _compile(engine, wasm), COMPILED
    key = cache_key(wasm)
    module = _read_cached(engine, directory, key)
    if module is not None:
        return module, FROM_CACHE
    module = _compile(engine, wasm)
    _write_cached(directory, key, bytes(module.serialize()))
    return module, COMPILED


def _read_precompiled(engine: wasmtime.Engine, directory: Path, wasm: bytes) -> wasmtime.Module | None:
    """The shipped module, or None with the reason logged (a warning when the package is not
    as it was built; a host of another target is expected to compile). The package directory is
    trusted as its Python code is: the digests catch a torn, stale or mismatched file."""
    manifest_path = directory / PRECOMPILED_MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        logger.debug("AgentsFence: no precompiled module in %s; fence.wasm is compiled or read from the module cache",
                     directory)
        return None
    except (OSError, ValueError) as error:
        return _not_precompiled(f"its manifest {manifest_path} cannot be read ({error})")
    if not isinstance(manifest, dict):
        return _not_precompiled(f"its manifest {manifest_path} is not a JSON object")
    if manifest.get("target") != host_target():
        logger.debug("AgentsFence: the precompiled module is for %s, this host is %s; fence.wasm is compiled or read "
                     "from the module cache", manifest.get("target"), host_target())
        return None
    expected = module_identity(hashlib.sha256(wasm).hexdigest(), host_target())
    for name, value in expected.items():
        if manifest.get(name) != value:
            return _not_precompiled(f"its manifest gives {name} {manifest.get(name)!r}, where this process has {value!r}")
    path = directory / PRECOMPILED_MODULE
    try:
        serialized = path.read_bytes()
    except OSError as error:
        return _not_precompiled(f"{path} cannot be read ({error.strerror or error})")
    if hashlib.sha256(serialized).hexdigest() != manifest.get("module_sha256"):
        return _not_precompiled(f"{path} does not have the digest its manifest gives")
    try:
        return wasmtime.Module.deserialize(engine, serialized)
    except wasmtime.WasmtimeError as error:
        return _not_precompiled(f"wasmtime refused it ({str(error).splitlines()[0]})")


def _not_precompiled(reason: str) -> None:
    logger.warning("AgentsFence: not using the precompiled fence module: %s; fence.wasm is compiled "
                   "(or read from the module cache) instead", reason)
    return None


def _compile(engine: wasmtime.Engine, wasm: bytes) -> wasmtime.Module:
    return wasmtime.Module(engine, wasm)


def _private_dir(path: Path) -> Path | None:
    """The cache directory when only this user can write it (created 0700), else None."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        return None
    return path


def _read_cached(engine: wasmtime.Engine, directory: Path, key: str) -> wasmtime.Module | None:
    prefix = key + "-"
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and n.endswith(".cwasm")]
    except OSError:
        return None
    for name in names:
        path = directory / name
        digest = name[len(prefix):-len(".cwasm")]
        try:
            info = os.lstat(path)
            trusted = stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022
            if trusted and hashlib.sha256(path.read_bytes()).hexdigest() == digest:
                return wasmtime.Module.deserialize_file(engine, str(path))
        except (OSError, wasmtime.WasmtimeError):
            pass
        try:
            path.unlink()  # ours (the directory is private) and unusable
        except OSError:
            pass
    return None


def _write_cached(directory: Path, key: str, serialized: bytes) -> None:
    """Writes atomically (a private temporary file renamed into place); failures only cost speed."""
    digest = hashlib.sha256(serialized).hexdigest()
    temporary = directory / f".{key}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(serialized)
        os.replace(temporary, directory / f"{key}-{digest}.cwasm")
    except OSError:
        try:
            temporary.unlink()
        except OSError:
            pass


# ---- The raw call path --------------------------------------------------------------------

# Our own prototypes over wasmtime-py's loaded library (its bound functions keep their argtypes):
# plain addresses in, the error pointer out. The call is a CFUNCTYPE, which releases the GIL: a
# call on megabytes of arguments may run for a while. Setting fuel is a few stores, so it keeps
# the GIL (PYFUNCTYPE), which saves releasing and taking it again on every decision.
_call_unchecked = ctypes.CFUNCTYPE(
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p
)(("wasmtime_func_call_unchecked", ffi.dll))
_set_fuel = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)(
    ("wasmtime_context_set_fuel", ffi.dll)
)
_memory_data_size = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p)(
    ("wasmtime_memory_data_size", ffi.dll)
)


def _error_text(error_address: int) -> str:
    error = wasmtime.WasmtimeError._from_ptr(ctypes.cast(error_address, ctypes.POINTER(ffi.wasmtime_error_t)))
    return str(error)


class WasmInstance:
    """One Store + Instance of fence.wasm, its input buffer and a view of its linear memory."""

    def __init__(self, module: wasmtime.Module, *, memory_limit: int = DEFAULT_MEMORY_LIMIT, raw_calls: bool = True):
        _check_exports(module)
        self.raw_calls = raw_calls
        self._store = wasmtime.Store(shared_engine())
        self._store.set_limits(memory_size=memory_limit)
        self._store.set_fuel(FUEL_BASE)  # the start function runs at instantiation
        try:
            instance = wasmtime.Instance(self._store, module, [])
        except (wasmtime.Trap, wasmtime.WasmtimeError) as error:
            raise EngineFault(f"instantiation failed: {error}") from error
        exports = instance.exports(self._store)
        self._instance = instance  # keeps the Func structs below alive
        self._funcs: dict[str, wasmtime.Func] = {name: exports[name] for name in EXPORT_PARAMS}
        self._memory: wasmtime.Memory = exports["memory"]
        self._memory_address = ctypes.addressof(self._memory._memory)
        self._context = ctypes.cast(self._store._context(), ctypes.c_void_p).value
        self._func_addresses = {name: ctypes.addressof(f._func) for name, f in self._funcs.items()}
        self._decide_address = self._func_addresses["decide"]
        self._values = (ffi.wasmtime_val_raw_t * MAX_PARAMS)()
        self._values_address = ctypes.addressof(self._values)
        self._values_view = memoryview(self._values).cast("B")
        # The same cells as i32 slots: indexing a c_int32 array is far cheaper than building
        # a union object per value. Value i is slot i * _SLOTS_PER_VALUE.
        self._slots = (ctypes.c_int32 * (MAX_PARAMS * _SLOTS_PER_VALUE)).from_buffer(self._values)
        self._new_trap_slot()
        self._input_address = 0
        self._input_capacity = 0
        self._view = memoryview(b"")
        self.refresh_view()

    # -- memory --

    def refresh_view(self) -> None:
        """Re-reads where linear memory lives and how long it is (after it grew)."""
        size = self._memory.data_len(self._store)
        base = ctypes.addressof(self._memory.data_ptr(self._store).contents)
        self._view = memoryview((ctypes.c_ubyte * size).from_address(base)).cast("B")

    def _write_input(self, payload: bytes) -> None:
        size = len(payload)
        if size > self._input_capacity:
            want = max(FIRST_INPUT_CAPACITY, 1 << (size - 1).bit_length())
            address = self._call("input", (want,), FUEL_BASE)
            if address == 0:
                address = self._call("input", (size,), FUEL_BASE)
                want = size
                if address == 0:
                    raise InputTooLarge(size)
            if address & 1:
                self.refresh_view()
            self._input_address = address & ~1
            self._input_capacity = want
        start = self._input_address
        if start + size > len(self._view):
            self.refresh_view()
            if start + size > len(self._view):
                raise EngineFault(f"input buffer at {start} (+{size}) lies outside linear memory")
        self._view[start:start + size] = payload

    def _record(self, address: int) -> bytes:
        if address & 1:
            self.refresh_view()
            address &= ~1
        view = self._view
        if address + 4 <= len(view):
            end = address + 4 + _U32.unpack_from(view, address)[0]
            if end <= len(view):
                return bytes(view[address + 4:end])
        # The flag is a hint; the memory's length is the truth: look again before failing.
        self.refresh_view()
        view = self._view
        if address + 4 <= len(view):
            end = address + 4 + _U32.unpack_from(view, address)[0]
            if end <= len(view):
                return bytes(view[address + 4:end])
        raise EngineFault(f"record at {address} lies outside linear memory")

    # -- calls --

    def invoke(self, export: str, args: tuple[int, ...], payload: bytes = b"") -> bytes:
        """Writes `payload` to the input buffer, calls a record-returning export, returns the record."""
        if payload:
            self._write_input(payload)
        per_byte = FUEL_PER_TEXT_BYTE if export in TEXT_EXPORTS else FUEL_PER_BYTE
        return self._record(self._call(export, args, FUEL_BASE + per_byte * len(payload)))

    def call_plain(self, export: str, args: tuple[int, ...]) -> int:
        """Calls an export whose result is a number (a session handle), not a record."""
        result = self._call(export, args, FUEL_BASE)
        # Its result has no bit to say memory grew: compare the length (one foreign call; the
        # base only moves when memory grows).
        if _memory_data_size(self._context, self._memory_address) != len(self._view):
            self.refresh_view()
        return result

    def _call(self, export: str, args: tuple[int, ...], fuel: int) -> int:
        if self.raw_calls:
            return self._call_raw(export, args, fuel)
        return self._call_public(export, args, fuel)

    def _call_raw(self, export: str, args: tuple[int, ...], fuel: int) -> int:
        error = _set_fuel(self._context, fuel)
        if error:
            raise EngineFault(f"setting fuel failed: {_error_text(error)}")
        slots = self._slots
        for i, value in enumerate(args):
            slots[i * _SLOTS_PER_VALUE] = value
        error = _call_unchecked(self._context, self._func_addresses[export], self._values_address, MAX_PARAMS, self._trap_address)
        if error or self._trap:
            self._raise_failure(export, error)
        return slots[0] & 0xFFFFFFFF

    def decide(self, handle: int, name_length: int, args_length: int, payload: bytes) -> bytes:
        """invoke("decide", ...) in one frame: the call every tool call makes, so the raw path
        skips invoke's generic dispatch, argument loop and record method (the same steps)."""
        size = len(payload)
        start = self._input_address
        view = self._view
        if not self.raw_calls or size > self._input_capacity or start + size > len(view):
            return self.invoke("decide", (handle, name_length, args_length), payload)
        view[start:start + size] = payload
        call = self._decide_args
        error = _set_fuel(call[0], FUEL_BASE + FUEL_PER_BYTE * size)
        if error:
            raise EngineFault(f"setting fuel failed: {_error_text(error)}")
        _DECIDE_ARGS.pack_into(self._values_view, 0, handle, name_length, args_length)
        error = _call_unchecked(*call)
        if error or self._trap:
            self._raise_failure("decide", error)
        address = self._slots[0] & 0xFFFFFFFF
        if not address & 1 and address + 4 <= len(view):  # memory did not grow: the view still holds
            end = address + 4 + _U32.unpack_from(view, address)[0]
            if end <= len(view):
                return view[address + 4:end].tobytes()
        return self._record(address)

    def _new_trap_slot(self) -> None:
        """A fresh out-parameter for the next call's trap (a raised trap owns the old one), and
        decide's call arguments around it as ctypes values, made once: converting five Python
        ints on every decision costs more than the call's own checks."""
        self._trap = ctypes.POINTER(ffi.wasm_trap_t)()
        self._trap_address = ctypes.addressof(self._trap)
        self._decide_args = (ctypes.c_void_p(self._context), ctypes.c_void_p(self._decide_address),
                             ctypes.c_void_p(self._values_address), ctypes.c_size_t(MAX_PARAMS),
                             ctypes.c_void_p(self._trap_address))

    def _raise_failure(self, export: str, error: int | None) -> None:
        if error:
            raise EngineFault(f"{export} failed: {_error_text(error)}")
        trap = wasmtime.Trap._from_ptr(self._trap)  # takes ownership of the trap
        self._new_trap_slot()
        raise EngineFault(f"{export} trapped: {trap.message}", _out_of_fuel(trap))

    def _call_public(self, export: str, args: tuple[int, ...], fuel: int) -> int:
        self._store.set_fuel(fuel)
        try:
            result = self._funcs[export](self._store, *args)
        except (wasmtime.Trap, wasmtime.WasmtimeError) as error:
            raise EngineFault(f"{export} trapped: {error}", isinstance(error, wasmtime.Trap) and _out_of_fuel(error)) from error
        return 0 if result is None else result & 0xFFFFFFFF


def _out_of_fuel(trap: wasmtime.Trap) -> bool:
    return trap.trap_code == wasmtime.TrapCode.OUT_OF_FUEL


def _check_exports(module: wasmtime.Module) -> None:
    """The unchecked call path is only sound for exports of exactly the types the ABI gives."""
    i32 = wasmtime.ValType.i32()
    found = {e.name: e.type for e in module.exports}
    if not isinstance(found.get("memory"), wasmtime.MemoryType):
        raise EngineFault("fence.wasm does not export its memory")
    for name, count in EXPORT_PARAMS.items():
        ty = found.get(name)
        if not isinstance(ty, wasmtime.FuncType):
            raise EngineFault(f"fence.wasm does not export the function {name!r} (docs/bytecode.md §8)")
        results = ty.results
        if ty.params != [i32] * count or (results != [i32] and not (name == "session_close" and results == [])):
            raise EngineFault(f"fence.wasm exports {name!r} with the wrong type")
    if module.imports:
        raise EngineFault("fence.wasm has imports; the evaluator must have none")
