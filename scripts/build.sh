#!/usr/bin/env bash
# Builds every artefact from source: the Python package's ABI constants, fence.wasm, the compiler
# bundle, the compiled policies, the JSON Schemas for editors, the playground page, and the copies
# the Python package ships, with fence.wasm precompiled for x86_64 Linux by the package's
# wasmtime (the venv of `make setup`).
# Cheap enough to run before every demo and test.
set -euo pipefail
cd "$(dirname "$0")/.."
python=.venv/bin/python
[ -x "$python" ] || { echo "scripts/build.sh: no $python to precompile fence.wasm with: run make setup" >&2; exit 1; }

# The ABI constants of the Python package, from assembly/format.ts and assembly/index.ts (not
# committed): first, since precompiling below imports the package.
node scripts/gen-abi.mjs host-python/agentsfence/_abi.py

# An absolute --config: asc resolves the transform in it from the config's directory, and a
# relative one loses its "./" and is looked up as a package.
npx asc assembly/index.ts --config "$PWD/asconfig.json" --target release
npm run --silent bundle
node dist/write-schemas.cjs build/schema   # policies/schema is committed: `npm run schemas` writes it
node web/bundle.mjs build/playground

mkdir -p build/policies
compile() { node dist/agentsfence-compile.cjs "$1" -o "build/policies/$(basename "${1%.yaml}").afb"; }
compile policies/defaults.yaml
compile policies/claude-code.yaml
for policy in tests/vectors/policies/*.yaml; do
  [ -e "$policy" ] && compile "$policy"
done

data=host-python/agentsfence/_data
mkdir -p "$data"
cp build/fence.wasm "$data/fence.wasm"
cp build/policies/defaults.afb "$data/default.afb"
cp dist/agentsfence-compile.cjs "$data/compile.cjs"
# What the bundle asks of Node, for QuickJS in the Python package (agentsfence/jsengine.py).
npx esbuild host-python/js/node-shim.js --bundle --format=iife --target=es2022 --log-level=warning --outfile="$data/node-shim.js"
cp build/policies/claude-code.afb "$data/claude-code.afb"
"$python" -m agentsfence.precompile "$data/fence.wasm" "$data"
cp policies/defaults.yaml "$data/defaults.yaml"
mkdir -p "$data/schema"
cp build/schema/*.json "$data/schema/"
echo "built: fence.wasm $(stat -c %s build/fence.wasm) B, default policy $(stat -c %s build/policies/defaults.afb) B"
