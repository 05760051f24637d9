#!/usr/bin/env bash
# Installs the database servers the state store's tests (tests/state) start for themselves:
# Debian's postgresql (initdb, postgres and pg_ctl under /usr/lib/postgresql/N/bin). The tests run
# their own server on 127.0.0.1 in a temporary folder; the cluster Debian's package may create is
# not used. With sudo when not root; nothing happens when it is present.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || command -v postgres >/dev/null; then
  exit 0
fi
. "$(dirname "$0")/apt-install.sh"
apt_install postgresql util-linux
ls /usr/lib/postgresql/*/bin/postgres
