#!/usr/bin/env bash
# Installs the Debian 12 packages zot needs to build, run and test, and to
# fuzz (clang with its libFuzzer runtime, for tools/fuzz.sh).
# Idempotent, and silent when everything is already there.
set -euo pipefail

packages=(
  build-essential meson ninja-build pkg-config gettext
  libglib2.0-dev libglib2.0-bin libjson-glib-dev libsoup-3.0-dev
  libgtk-4-dev libadwaita-1-dev libgtksourceview-5-dev libcmark-dev libsecret-1-dev
  libarchive-dev desktop-file-utils appstream
  xvfb xauth dbus-x11 gnome-keyring
  python3 git ca-certificates
  python3-gi gir1.2-atspi-2.0 at-spi2-core dbus-daemon
  gjs bubblewrap
  node-typescript
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
