#!/usr/bin/env bash
# Takes the README's screenshots of the native panels (the todo and
# ask-user examples) under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-panels.sh
# The examples run from a copy, with a to-do list of its own, so the tree
# stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work

cp -r examples/extensions/todo examples/extensions/ask-user "$work/"
cat > "$work/todo/todo.json" <<'JSON'
{"items": [{"text": "water the plants", "done": true},
           {"text": "read the protocol", "done": false},
           {"text": "call the dentist", "done": false},
           {"text": "back up the laptop", "done": true}]}
JSON

shot_start "$PWD" --no-session --provider demo --ext "$work/todo" --ext "$work/ask-user"
sleep 4   # the keyring wait and the extensions' start

shoot () {
  sleep 1.5
  shot_take "$1"
}

shot_say "/todo"
shoot native-todo-panel.png

shot_say "/yolo"
sleep 6   # until the toast is gone

shot_say 'tool: ask_user {"question": "Which database should the project use?", "choices": ["PostgreSQL", "SQLite", "Keep both"]}'
shoot ask-user-panel.png
