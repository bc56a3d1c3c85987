#!/bin/sh
# Installs the build into a temporary DESTDIR, as a package build does, and
# checks the installed files with the tools a distribution or Flathub runs:
# desktop-file-validate, appstreamcli and glib-compile-schemas --strict. The
# man page, the shell completions and a catalogue per language in po/LINGUAS
# must be there too.
#
# Usage: test-install.sh BUILD_DIR SOURCE_DIR APP_ID
set -eu

build=$1
source=$2
app_id=$3
destdir=$(mktemp -d)
trap 'rm -rf "$destdir"' EXIT INT TERM

fail() {
  echo "not ok: $*" >&2
  exit 1
}

meson install -C "$build" --destdir "$destdir" --no-rebuild --quiet >/dev/null ||
  fail "meson install --destdir failed"

prefix=$(meson introspect "$build" --buildoptions |
         python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
share="$destdir$prefix/share"

desktop-file-validate "$share/applications/$app_id.desktop" ||
  fail "the installed desktop file does not validate"
appstreamcli validate --no-net --explain "$share/metainfo/$app_id.metainfo.xml" ||
  fail "the installed metainfo does not validate"
schemas=$(mktemp -d)
glib-compile-schemas --strict --targetdir "$schemas" "$share/glib-2.0/schemas" ||
  { rm -rf "$schemas"; fail "the installed schema does not compile with --strict"; }
rm -rf "$schemas"

for file in \
  "$destdir$prefix/bin/zot" \
  "$share/man/man1/zot.1" \
  "$share/bash-completion/completions/zot" \
  "$share/zsh/site-functions/_zot" \
  "$share/fish/vendor_completions.d/zot.fish" \
  "$share/icons/hicolor/scalable/apps/$app_id.svg" \
  "$share/icons/hicolor/symbolic/apps/$app_id-symbolic.svg"
do
  [ -s "$file" ] || fail "${file#"$destdir"} is not installed"
done

for lang in $(sed 's/#.*//' "$source/po/LINGUAS"); do
  [ -s "$share/locale/$lang/LC_MESSAGES/zot.mo" ] ||
    fail "the $lang catalogue (share/locale/$lang/LC_MESSAGES/zot.mo) is not installed"
done

echo "ok: installed files validate"
