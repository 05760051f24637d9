#!/usr/bin/env bash
# Installs what the bash differential test (tests/bashdiff) runs commands with: strace, to see
# every program, file and connection a command touches, bubblewrap and iproute2, the throwaway
# sandbox and its loopback-only network, and ripgrep, one of the programs the generated commands
# call; and for the sandbox's tests (host-python/tests/test_sandbox_*.py) socat, the bridge to its
# proxy, curl and git. Debian's packages, with sudo when not root; nothing happens when all are present.
set -euo pipefail
missing=()
command -v strace >/dev/null || missing+=(strace)
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v rg >/dev/null || missing+=(ripgrep)
PATH="$PATH:/usr/sbin:/sbin" command -v ip >/dev/null || missing+=(iproute2)
command -v unshare >/dev/null || missing+=(util-linux)
command -v socat >/dev/null || missing+=(socat)
command -v curl >/dev/null || missing+=(curl)
command -v git >/dev/null || missing+=(git)
[ ${#missing[@]} -eq 0 ] && exit 0
. "$(dirname "$0")/apt-install.sh"
apt_install "${missing[@]}"
strace -V | sed -n 1p  # sed reads it all: head would close the pipe early, a failure under pipefail
bwrap --version
rg --version | sed -n 1p

