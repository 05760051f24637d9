#!/usr/bin/env bash
# Installs the database servers the state store's tests (tests/state) start for themselves:
# Debian's postgresql (initdb, postgres and pg_ctl under /usr/lib/postgresql/N/bin). The tests run
# their own server on 127.0.0.1 in a temporary folder; the cluster Debian's package may create is
# not used. With sudo when not root; nothing happens when it is present.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || command -v postgres >/dev/null; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "install-state-servers.sh: postgresql is missing and installing it needs root (no sudo here)" >&2
  exit 1
fi
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends postgresql util-linux >/dev/null
ls /usr/lib/postgresql/*/bin/postgres
