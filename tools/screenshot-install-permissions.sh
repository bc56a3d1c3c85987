#!/usr/bin/env bash
# Takes docs/screenshots/install-permissions.png, the install dialog showing
# what a confined extension asks for, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-install-permissions.sh
# The extension folder is handed to the running window as the desktop does
# (a second `zot file://…`), so it runs on a D-Bus session bus of its own.
# BUILD names the build folder (default build). It needs xdotool,
# dbus-run-session and ImageMagick's import and convert.
set -euo pipefail
[ -n "${ZOT_SHOT_BUS:-}" ] || exec env ZOT_SHOT_BUS=1 dbus-run-session -- "$0" "$@"
cd "$(dirname "$0")/.."
build=${BUILD:-build}
out=${OUT:-docs/screenshots/install-permissions.png}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

export HOME="$work/home" XDG_CONFIG_HOME="$work/config"
export GSETTINGS_SCHEMA_DIR="$PWD/$build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo
export ZOT_HOME="$work/zot" GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1
project="$HOME/src/notes-app"
mkdir -p "$project" "$XDG_CONFIG_HOME"
"$build/src/zot" ext new word-count --lang sh --dir "$work" >/dev/null
# What it asks for: the project read-only, no network, one variable and a
# memory limit.
python3 - "$work/word-count/extension.json" <<'PY'
import json, sys
path = sys.argv[1]
manifest = json.load(open(path))
manifest["description"] = "Counts the words in the project's notes."
manifest["permissions"] = {"filesystem": "project:ro", "network": False, "env": ["LANG"]}
manifest["limits"] = {"memory_mb": 256}
json.dump(manifest, open(path, "w"), indent=2)
PY

(cd "$project" && exec "$OLDPWD/$build/src/zot" --provider demo) &
pid=$!

find_window () {
  local found=""
  for _ in $(seq 50); do
    found=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n1 || true)
    [ -n "$found" ] && break
    sleep 0.2
  done
  [ -n "$found" ] || { echo "no window named $1" >&2; exit 1; }
  echo "$found"
}

window=$(find_window 'Zot')
xdotool windowsize "$window" 1280 760
sleep 1
(cd "$project" && "$OLDPWD/$build/src/zot" "file://$work/word-count")
dialog=$(find_window 'Install')
sleep 1
import -window "$dialog" "$work/raw.png"
convert "$work/raw.png" -trim +repage "$out"
