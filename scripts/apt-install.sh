# Sourced by the install scripts: apt_install PACKAGE... installs Debian packages as root, with
# sudo when this is not root, and fails naming the packages when neither can.
apt_install() {
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "$(basename "$0"): $* missing and installing them needs root (no sudo here)" >&2
      exit 1
    fi
    as_root=(sudo)
  fi
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
