#!/usr/bin/env bash
# Takes the README's screenshots of the native panels (the todo and
# ask-user examples) under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-panels.sh
# It needs xdotool and ImageMagick's import and convert. The examples run
# from a copy, with a to-do list of its own, so the tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/screenshots
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

cp -r examples/extensions/todo examples/extensions/ask-user "$work/"
cat > "$work/todo/todo.json" <<'JSON'
{"items": [{"text": "water the plants", "done": true},
           {"text": "read the protocol", "done": false},
           {"text": "call the dentist", "done": false},
           {"text": "back up the laptop", "done": true}]}
JSON

export GSETTINGS_SCHEMA_DIR="$PWD/build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo
export ZOT_HOME="$work/home" GDK_BACKEND=x11
build/src/zot --no-session --provider demo --ext "$work/todo" --ext "$work/ask-user" &
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

shoot () {
  sleep 1.5
  import -window "$window" "$work/raw.png"
  convert "$work/raw.png" -trim +repage "$out/$1"
}

say () {
  xdotool type --window "$window" --delay 5 "$1"
  sleep 0.5
  # A slash command's first Return may only close the completions.
  xdotool key --window "$window" Escape Return
}

say "/todo"
shoot native-todo-panel.png

say "/yolo"
sleep 6   # until the toast is gone

say 'tool: ask_user {"question": "Which database should the project use?", "choices": ["PostgreSQL", "SQLite", "Keep both"]}'
shoot ask-user-panel.png
