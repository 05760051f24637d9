#!/usr/bin/env bash
# Installs Debian's Chromium for the playground's browser test (tests/playground.test.ts) when
# /usr/bin/chromium is missing. Test tools' own browser downloads do not work on the machines
# this project is built on; Debian's package does.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "install-chromium.sh: /usr/bin/chromium is missing and installing it needs root (no sudo here)" >&2
  exit 1
fi
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version
