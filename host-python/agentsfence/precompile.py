"""Build step (scripts/build.sh): `python -m agentsfence.precompile FENCE_WASM DIRECTORY` writes
the precompiled module and its manifest that the package ships beside fence.wasm.

The module is compiled by this process's wasmtime (the version the package pins) under the
engine settings and for the target engine.py names, so the loader's check is the same code.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .engine import PRECOMPILED_MANIFEST, PRECOMPILED_MODULE, EngineFault, host_target, write_precompiled


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) != 2:
        print("usage: python -m agentsfence.precompile FENCE_WASM DIRECTORY", file=sys.stderr)
        return 2
    wasm, directory = Path(arguments[0]), Path(arguments[1])
    for stale in (PRECOMPILED_MODULE, PRECOMPILED_MANIFEST):  # a previous build's, for another fence.wasm
        (directory / stale).unlink(missing_ok=True)
    try:
        manifest = write_precompiled(wasm.read_bytes(), directory)
    except EngineFault as refusal:
        print(f"no precompiled module: {refusal}; on {host_target()} fence.wasm is compiled at first start and cached",
              file=sys.stderr)
        return 0
    print(f"precompiled: {directory / PRECOMPILED_MODULE} for {manifest['target']} with wasmtime {manifest['wasmtime']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
