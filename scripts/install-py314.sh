#!/usr/bin/env bash
# Debian's python3.14 for `make test-py314`: bookworm has none, so a minimal Debian sid root is
# made with debootstrap under $PY314_CACHE (default /var/cache/agentsfence-py314), with a venv
# holding the package's run-time and test dependencies (not Hermes, which the project's venv
# tests). Idempotent, in two steps each with its stamp: the root (about 90 s here), then the
# venv (its stamp names the requirements it holds; changed requirements remake only the venv).
# Needs root (debootstrap), as the other install scripts do.
set -euo pipefail
cache="${PY314_CACHE:-/var/cache/agentsfence-py314}"
root="$cache/root"
# What the package's own tests import: its dependencies and its test extra, read from
# host-python/pyproject.toml (one list, so a new dependency reaches this root too), without
# hermes-agent (it requires Python < 3.14; the project's venv tests it). Then hatchling and
# editables: `make test-py314` installs the package editable from the work tree,
# offline, so its console scripts and subprocesses run the code under test.
here="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$(python3 - "$here/host-python/pyproject.toml" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
wanted = project["dependencies"] + project["optional-dependencies"]["test"]
print(" ".join(r for r in wanted if not r.startswith("hermes-agent")) + " hatchling>=1.27 editables")
PY
)"
read -r -a requirement_args <<<"$requirements"  # one argument each: a bare pyyaml>=6 would be a redirection
# What the package's tests run besides Python: the sandbox (bubblewrap, socat, iproute2), the
# programs its tests run inside it (curl, git, strace, a python3 on the standard PATH) and the
# audit collector the shipping tests start (rsyslog, with GnuTLS for its TLS listener).
packages="python3.14,python3.14-venv,ca-certificates,bubblewrap,socat,iproute2,curl,git,strace,python3-minimal,rsyslog,rsyslog-gnutls"
root_stamp="$root/.agentsfence-debootstrap"
venv_stamp="$root/opt/py314/.agentsfence-requirements"
if [ "$(cat "$root_stamp" 2>/dev/null)" = "$packages" ] && [ "$(cat "$venv_stamp" 2>/dev/null)" = "$requirements" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-py314.sh: making the Debian sid root under $cache needs root" >&2
  exit 1
fi
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v bwrap >/dev/null || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
started=$(date +%s)
if [ "$(cat "$root_stamp" 2>/dev/null)" != "$packages" ]; then
  rm -rf "$root"
  mkdir -p "$cache"
  debootstrap --variant=minbase --include="$packages" \
    sid "$root" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 || {
    echo "install-py314.sh: debootstrap failed; see $cache/debootstrap.log" >&2
    tail -20 "$cache/debootstrap.log" >&2
    exit 1
  }
  echo "$packages" >"$root_stamp"
fi
# The venv is made inside the root, where its python3.14 and its libc live; pip there trusts
# what this machine trusts (its CA bundle), as the host's own pip does.
rm -rf "$root/opt/py314"
bwrap --bind "$root" / --proc /proc --dev /dev --ro-bind /etc/resolv.conf /etc/resolv.conf \
  --ro-bind /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt \
  --setenv HOME /root --setenv PATH /usr/bin:/bin --unsetenv PIP_FIND_LINKS \
  --setenv PIP_CERT /etc/ssl/certs/ca-certificates.crt \
  /bin/sh -c 'python3.14 -m venv /opt/py314 && /opt/py314/bin/pip install --quiet --disable-pip-version-check "$@"' \
  sh "${requirement_args[@]}"
echo "$requirements" >"$venv_stamp"
echo "install-py314.sh: $(bwrap --bind "$root" / --proc /proc --dev /dev /opt/py314/bin/python --version) in a Debian sid root under $cache, made in $(( $(date +%s) - started )) s"
