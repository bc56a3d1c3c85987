#!/usr/bin/env bash
# Takes docs/screenshots/extension-meter.png, the extensions page with
# each extension's meter, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-extension-meter.sh
# The examples run from a copy, so the tree stays clean; the demo model
# calls the to-do tools a few times so that the latency shows.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work

cp -r examples/extensions/todo examples/extensions/clock examples/extensions/hello-sh "$work/"
printf '{"items": []}\n' > "$work/todo/todo.json"

shot_start "$PWD" --no-session --no-ext --provider demo --yolo \
  --ext "$work/todo" --ext "$work/clock" --ext "$work/hello-sh"
sleep 4   # the keyring wait and the extensions' start

for call in 'tool: todo_add {"text": "read the protocol"}' \
            'tool: todo_add {"text": "water the plants"}' 'tool: todo_list {}'; do
  shot_say "$call"
  sleep 1.5
done

xdotool key --window "$shot_window" alt+4
sleep 3   # the meter's next refresh
# Open the last row (a click on its title) to show the figures in full.
xdotool mousemove --window "$shot_window" 800 ${ROW_Y:-450} click 1
sleep 1.5
shot_take extension-meter.png
