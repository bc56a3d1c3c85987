#!/usr/bin/env bash
# Installs the Debian 12 packages zot needs to build, run and test, and to
# fuzz (clang with its libFuzzer runtime, for tools/fuzz.sh), and the
# extension SDKs' toolchains (Go, Node and TypeScript, GObject
# Introspection and gi-docgen for the C SDK), and the MCP servers the
# tests run (tests/node_modules, from npm; never fetched at test time).
# Idempotent, and silent when everything is already there.
set -euo pipefail

packages=(
  build-essential meson ninja-build pkg-config gettext
  libglib2.0-dev libglib2.0-bin libjson-glib-dev libsoup-3.0-dev
  libgtk-4-dev libadwaita-1-dev libgtksourceview-5-dev libcmark-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libsecret-1-dev
  libarchive-dev desktop-file-utils appstream
  xvfb xauth dbus-x11 gnome-keyring
  python3 git ca-certificates
  python3-gi gir1.2-atspi-2.0 at-spi2-core dbus-daemon
  gjs bubblewrap
  golang-go nodejs node-typescript
  gobject-introspection libgirepository1.0-dev gi-docgen
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

# Real MCP servers for tests/test-mcp.c, pinned, in the tree's own folder.
mcp_servers=(
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/server-everything@2026.8.31
)
tests_dir="$(cd "$(dirname "$0")/.." && pwd)/tests"
# npm comes with nodejs from NodeSource, or as Debian's npm package.
command -v npm >/dev/null || { echo "tools/deps.sh: npm is missing: install Debian's npm package" >&2; exit 1; }
for spec in "${mcp_servers[@]}"; do
  name="${spec%@*}"
  version="${spec##*@}"
  manifest="$tests_dir/node_modules/$name/package.json"
  if [ ! -f "$manifest" ] || ! grep -q "\"version\": \"$version\"" "$manifest"; then
    echo "Installing $spec into tests/node_modules"
    npm install --prefix "$tests_dir" --no-save --no-audit --no-fund --loglevel=error "${mcp_servers[@]}" >/dev/null
    break
  fi
done
