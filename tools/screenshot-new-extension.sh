#!/usr/bin/env bash
# Takes docs/screenshots/new-extension.png, the New Extension… dialog
# over the window's extensions page, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-new-extension.sh [WIDTH]
# WIDTH (default 1280) is the window's, DIALOG_WIDTH the dialog's; the dialog is shot alone unless
# WHOLE=1, which shoots the window with the dialog over it. BUILD names the
# build folder (default build). It needs xdotool and ImageMagick's import
# and convert.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
build=$shot_build
work=$shot_work
width=${1:-1280}
out=${OUT:-docs/screenshots/new-extension.png}

export HOME="$work/home" XDG_CONFIG_HOME="$work/config"
export ZOT_HOME="$work/zot" GTK_A11Y=none NO_AT_BRIDGE=1
project="$HOME/src/notes-app"
mkdir -p "$project" "$XDG_CONFIG_HOME"
"$build/src/zot" ext new hello-sh --lang sh --dir "$work" >/dev/null

SHOT_WIDTH=$width SHOT_HEIGHT=760 shot_start "$project" --provider demo --ext "$work/hello-sh"
sleep 1
xdotool windowfocus --sync "$shot_window" key alt+4
sleep 1
xdotool key alt+n
sleep 1
dialog=$(shot_find_window 'New Extension')
xdotool windowfocus --sync "$dialog" type --delay 20 'word counter'
[ -z "${DIALOG_WIDTH:-}" ] || xdotool windowsize "$dialog" "$DIALOG_WIDTH" 300
sleep 1
if [ "${WHOLE:-0}" = 1 ]; then
  import -window root "$work/raw.png"
else
  import -window "$dialog" "$work/raw.png"
fi
convert "$work/raw.png" -trim +repage "$out"
