#!/bin/sh
# Extracts the strings marked for translation (po/POTFILES.in lists where)
# into po/zot.pot and merges them into every po/LANG.po of po/LINGUAS. New
# and changed strings then show as untranslated or fuzzy: translate them
# and remove the fuzzy marks, and the `po` test passes again.
#
# Usage: tools/update-po.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ -d "$build" ] || meson setup "$build"
meson compile -C "$build" zot-pot zot-update-po
for po in po/*.po; do
  [ -e "$po" ] || continue
  printf '%s: ' "$po"
  msgfmt --check --statistics -o /dev/null "$po"
done
