#!/usr/bin/env bash
# Installs Debian's Chromium for the playground's browser test (tests/playground.test.ts) when
# /usr/bin/chromium is missing. Test tools' own browser downloads do not work on the machines
# this project is built on; Debian's package does.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
. "$(dirname "$0")/apt-install.sh"
apt_install chromium
/usr/bin/chromium --version
