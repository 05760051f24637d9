#!/usr/bin/env bash
# Installs what only the benchmark needs: the peer packages (the `bench` extra) and the opa
# binary, built from the Go module proxy into bench/.bin (ignored by git). Without Go, or if
# the build fails, the benchmark runs without the OPA row and says so.
set -uo pipefail
cd "$(dirname "$0")/.."
OPA_VERSION=v1.4.2

.venv/bin/python -m pip install --quiet -e 'host-python[test,bench]'
if [ ! -x bench/.bin/opa ]; then
  if command -v go >/dev/null; then
    GOBIN="$PWD/bench/.bin" go install "github.com/open-policy-agent/opa@${OPA_VERSION}" \
      || echo "bench/setup.sh: building opa ${OPA_VERSION} failed; the OPA row will be missing" >&2
  else
    echo "bench/setup.sh: no Go toolchain; the OPA row will be missing" >&2
  fi
fi
