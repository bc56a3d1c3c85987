#!/usr/bin/env bash
# Takes docs/screenshots/reload-note.png for docs/writing-extensions.md
# under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-reload-note.sh
# It needs tsc. The guide's
# hello-ts runs from a copy under `--watch`: one edit that builds reloads
# it (the inspector lists extension_reloaded, /hello answers the new way),
# then one that does not build leaves that process running and posts the
# note.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work

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

shot_start "$work/project" --no-session --provider demo --ext hello-ts --watch
sleep 4   # the keyring wait and the extension's start

say () {
  shot_say "$1"
  sleep 1
}

say "/hello Ada"
xdotool key --window "$shot_window" alt+3   # the inspector

sed -i 's/Hello, \${args/Hi, ${args/' "$ext/hello.mts"
sleep 6   # the build and the restart
xdotool mousemove --window "$shot_window" 460 760 click 1   # back to the editor
say "/hello Ada"
sed -i 's/async (args: string)/async (args: number)/' "$ext/hello.mts"
sleep 12  # the failed build, its note, and the toast gone again

shot_take reload-note.png
