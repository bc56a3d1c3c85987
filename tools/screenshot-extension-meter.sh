#!/usr/bin/env bash
# Takes docs/screenshots/extension-meter.png, the extensions page with
# each extension's meter, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-extension-meter.sh [BUILD_DIR]
# It needs xdotool and ImageMagick's import and convert. The examples run
# from a copy, so the tree stays clean; the demo model calls the to-do
# tools a few times so that the latency shows.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=docs/screenshots
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

cp -r examples/extensions/todo examples/extensions/clock examples/extensions/hello-sh "$work/"
printf '{"items": []}\n' > "$work/todo/todo.json"

export GSETTINGS_SCHEMA_DIR="$PWD/$build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo
export ZOT_HOME="$work/home" GDK_BACKEND=x11
"$build/src/zot" --no-session --no-ext --provider demo --yolo \
  --ext "$work/todo" --ext "$work/clock" --ext "$work/hello-sh" &
pid=$!

window=""
for _ in $(seq 50); do
  window=$(xdotool search --onlyvisible --name 'Zot' 2>/dev/null | head -n1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "no window" >&2; exit 1; }
xdotool windowsize "$window" 1280 800
sleep 4   # the keyring wait and the extensions' start

say () {
  xdotool type --window "$window" --delay 5 "$1"
  sleep 0.5
  xdotool key --window "$window" Escape Return
  sleep 1.5
}

say 'tool: todo_add {"text": "read the protocol"}'
say 'tool: todo_add {"text": "water the plants"}'
say 'tool: todo_list {}'

xdotool key --window "$window" alt+4
sleep 3   # the meter's next refresh
# Open the last row (a click on its title) to show the figures in full.
xdotool mousemove --window "$window" 800 ${ROW_Y:-450} click 1
sleep 1.5
import -window "$window" "$work/raw.png"
convert "$work/raw.png" -trim +repage "$out/extension-meter.png"
