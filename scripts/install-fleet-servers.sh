#!/usr/bin/env bash
# Installs the collector the audit-shipping tests (host-python/tests/test_shipping.py) start on
# 127.0.0.1 with a config of their own: Debian's rsyslog, with its TLS drivers (GnuTLS and
# OpenSSL). The system's rsyslog service is not used or started. Debian's packages, with sudo
# when not root; nothing happens when all are present.
set -euo pipefail
missing=()
PATH="$PATH:/usr/sbin:/sbin" command -v rsyslogd >/dev/null || missing+=(rsyslog)
[ -e /usr/lib/x86_64-linux-gnu/rsyslog/lmnsd_gtls.so ] || [ -n "$(find /usr/lib -name lmnsd_gtls.so 2>/dev/null | head -1)" ] \
  || missing+=(rsyslog-gnutls)
[ ${#missing[@]} -eq 0 ] && exit 0
# policy-rc.d-free: the package's service is not started in a container without systemd, and the
# tests never use it.
. "$(dirname "$0")/apt-install.sh"
apt_install "${missing[@]}"
PATH="$PATH:/usr/sbin:/sbin" rsyslogd -v | sed -n 1p
