#!/usr/bin/env bash
# Takes docs/screenshots/reload-note.png for docs/writing-extensions.md
# under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-reload-note.sh
# It needs tsc, xdotool and ImageMagick's import and convert. The guide's
# hello-ts runs from a copy under `--watch`: one edit that builds reloads
# it (the inspector lists extension_reloaded, /hello answers the new way),
# then one that does not build leaves that process running and posts the
# note.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/screenshots
build=${BUILD:-build}   # the build directory, relative to the top of the tree
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

ext="$work/project/hello-ts"
mkdir -p "$ext"
cp sdk/node/zotext.mjs sdk/node/zotext.d.ts sdk/node/zotext.d.mts "$ext/"
# The guide's own files, by their file= markers.
python3 - docs/writing-extensions.md "$work/project" <<'PY'
import re, sys
text = open(sys.argv[1], encoding='utf-8').read()
for path, body in re.findall(r'^```\w+ file=(hello-ts/\S+)\n(.*?)^```$', text, re.S | re.M):
    open(sys.argv[2] + '/' + path, 'w', encoding='utf-8').write(body)
PY
(cd "$ext" && tsc -p .)

export GSETTINGS_SCHEMA_DIR="$PWD/$build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo
export ZOT_HOME="$work/home" GDK_BACKEND=x11
(cd "$work/project" && exec "$OLDPWD/$build/src/zot" --no-session --provider demo --ext hello-ts --watch) &
pid=$!

window=""
for _ in $(seq 50); do
  window=$(xdotool search --onlyvisible --name 'Zot' 2>/dev/null | head -n1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "no window" >&2; exit 1; }
xdotool windowsize "$window" 1280 800
sleep 4   # the keyring wait and the extension's start

say () {
  xdotool type --window "$window" --delay 5 "$1"
  sleep 0.5
  # A slash command's first Return may only close the completions.
  xdotool key --window "$window" Escape Return
  sleep 1
}

say "/hello Ada"
xdotool key --window "$window" alt+3   # the inspector

sed -i 's/Hello, \${args/Hi, ${args/' "$ext/hello.mts"
sleep 6   # the build and the restart
xdotool mousemove --window "$window" 460 760 click 1   # back to the editor
say "/hello Ada"
sed -i 's/async (args: string)/async (args: number)/' "$ext/hello.mts"
sleep 12  # the failed build, its note, and the toast gone again

import -window "$window" "$work/raw.png"
convert "$work/raw.png" -trim +repage "$out/reload-note.png"
