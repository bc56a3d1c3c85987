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
. tools/screenshot-lib.sh
build=$shot_build
work=$shot_work
out=${OUT:-docs/screenshots/install-permissions.png}

export HOME="$work/home" XDG_CONFIG_HOME="$work/config"
export ZOT_HOME="$work/zot" GTK_A11Y=none NO_AT_BRIDGE=1
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

SHOT_HEIGHT=760 shot_start "$project" --provider demo
sleep 1
(cd "$project" && GSETTINGS_SCHEMA_DIR="$OLDPWD/$build/data" GSETTINGS_BACKEND=memory GDK_BACKEND=x11 \
   "$OLDPWD/$build/src/zot" "file://$work/word-count")
dialog=$(shot_find_window 'Install')
sleep 1
import -window "$dialog" "$work/raw.png"
convert "$work/raw.png" -trim +repage "$out"
