#!/bin/sh
# Builds the Flatpak of this checkout (flatpak/dev.zot.Zot.json, the
# non-GUI tests included) and installs it for the current user.
#
#   flatpak/build.sh              build, test and install
#   flatpak/build.sh --no-install build and test only
#
# Needs flatpak, flatpak-builder and the GNOME runtime and SDK of the
# manifest's runtime-version; says which is missing and how to get it.
# BUILD_DIR (default: build-flatpak at the top of the checkout) holds the
# build; flatpak-builder keeps its cache in .flatpak-builder there too.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
manifest="$here/dev.zot.Zot.json"
build_dir=${BUILD_DIR:-"$top/build-flatpak"}
install=yes

for arg in "$@"; do
  case "$arg" in
    --no-install) install=no ;;
    *) echo "build.sh: unknown argument $arg; use --no-install or nothing" >&2; exit 2 ;;
  esac
done

missing=""
for program in flatpak flatpak-builder; do
  if ! command -v "$program" >/dev/null 2>&1; then
    missing="$missing $program"
  fi
done
if [ -n "$missing" ]; then
  echo "build.sh: not installed:$missing; install them (on Debian: sudo apt install flatpak flatpak-builder)" >&2
  exit 1
fi

version=$(sed -n 's/^ *"runtime-version": *"\([^"]*\)".*/\1/p' "$manifest")
missing=""
for ref in org.gnome.Platform org.gnome.Sdk; do
  if ! flatpak info "$ref//$version" >/dev/null 2>&1; then
    missing="$missing $ref//$version"
  fi
done
if [ -n "$missing" ]; then
  echo "build.sh: runtime not installed:$missing; install with: flatpak install --user flathub$missing" >&2
  echo "build.sh: (add Flathub first if needed: flatpak remote-add --user --if-not-exists flathub https://dl.flathub.org/repo/flathub.flatpakrepo)" >&2
  exit 1
fi

set -- --force-clean --state-dir="$build_dir/.flatpak-builder"
if [ "$install" = yes ]; then
  set -- "$@" --user --install
fi

cd "$top"
flatpak-builder "$@" "$build_dir/app" "$manifest"

if [ "$install" = yes ]; then
  echo "Installed dev.zot.Zot; run it with: flatpak run dev.zot.Zot"
fi
