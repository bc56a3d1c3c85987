#!/usr/bin/env bash
# Takes docs/screenshots/extension-restart.png: an extensions page row
# whose extension crashed five times, given up, with its Restart button.
# The GUI test that drives it saves the window; run it under Xvfb from a
# debug build in build-tests:
#   xvfb-run -a tools/screenshot-extension-restart.sh
# It needs ImageMagick's convert.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-tests}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export G_TEST_SRCDIR="$PWD/tests" G_TEST_BUILDDIR="$PWD/$build/tests"
export ZOT_BIN="$PWD/$build/src/zot" ZOT_FAKE_EXTENSION="$PWD/$build/tests/fake-extension"
export GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR="$PWD/$build/data"
export GDK_BACKEND=x11 GTK_A11Y=none GSK_RENDERER=cairo NO_AT_BRIDGE=1
export ZOT_TEST_SCREENSHOT="$work/raw.png"
"$build/tests/test-gui-extensions" -p /zot/gui/extensions/gave-up
convert "$work/raw.png" -crop 700x420+0+0 +repage docs/screenshots/extension-restart.png
