#!/usr/bin/env bash
# Takes the README's screenshot of the window (window.png) and its dark,
# narrow (600 px) and narrow dark variants, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1600x1000x24" tools/screenshot-window.sh
# A resumed conversation shows a reply's folded reasoning, a bash call in
# its terminal block, a Markdown table and an edit as a diff; the to-do
# example's panel is open beside it. Everything lives in a temporary
# $ZOT_HOME and a copy of the example, so the tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work

cp -r examples/extensions/todo "$work/"
cat > "$work/todo/todo.json" <<'JSON'
{"items": [{"text": "reproduce the empty-file error", "done": true},
           {"text": "accept an empty document", "done": true},
           {"text": "add test_empty_file", "done": false}]}
JSON

project="$work/parser"
mkdir -p "$project"
project=$(cd "$project" && pwd -P)
sessions="$work/home/sessions/${project//\//-}"
mkdir -p "$sessions"
python3 - "$sessions/2024-05-03-parser.jsonl" "$project" <<'PY'
import json, sys
path, cwd = sys.argv[1], sys.argv[2]
def text(t): return {"type": "text", "text": t}
def msg(role, *content): return {"type": "message", "message": {"role": role, "content": list(content)}}
def call(id, name, args): return {"type": "tool_use", "id": id, "name": name, "input": args}
def result(id, out): return {"type": "tool_result", "tool_use_id": id, "is_error": False, "content": [text(out)]}
lines = [
  {"type": "session", "version": 1, "id": "parser", "cwd": cwd, "created": "2024-05-03T10:00:00Z"},
  msg("user", text("Why does the parser reject an empty file?")),
  msg("assistant",
      {"type": "thinking", "thinking": "The error is \"missing header\". The header is read before anything else, so look at where parse_file starts and what it does with a length of zero."},
      text("Let me look at where the file is read."),
      call("c1", "bash", {"command": "grep -n 'missing header' src/*.c"})),
  msg("tool", result("c1", "src/parser.c:91:    return set_error (error, \"missing header\");\n\nexit code: 0")),
  msg("assistant", text(
      "`parse_file` reads the header before anything else, so an **empty file** fails at once. "
      "What each input does today:\n\n"
      "| input | today | after the fix |\n|---|---|---|\n"
      "| empty file | error: missing header | empty document |\n"
      "| header only | empty document | empty document |\n"
      "| header and body | parsed | parsed |\n\n"
      "Treating a length of zero as an empty document keeps the rest unchanged."),
      call("c2", "edit", {"path": "src/parser.c",
                          "old_text": "  if (length == 0)\n    return set_error (error, \"missing header\");\n",
                          "new_text": "  /* An empty file is an empty document. */\n  if (length == 0)\n    return document_new_empty ();\n"})),
  msg("tool", result("c2", "edited src/parser.c")),
  msg("assistant", text("Done: an empty file now gives an empty document. Next I will add `test_empty_file`.")),
]
with open(path, "w") as f:
    for line in lines:
        f.write(json.dumps(line) + "\n")
PY

shoot () {
  SHOT_SCHEME=$1 SHOT_WIDTH=$2 SHOT_HEIGHT=860 shot_start "$project" --provider demo --no-ext \
    --ext "$work/todo" --session "$sessions/2024-05-03-parser.jsonl"
  sleep 4   # the keyring wait and the extension's start
  shot_say "/todo"
  sleep 2
  # Open the bash and edit calls' rows: a click on each header.
  for y in ${OPEN_ROWS:-}; do
    xdotool mousemove --window "$shot_window" 300 "$y" click 1
    sleep 0.5
  done
  xdotool mousemove --window "$shot_window" 5 5
  sleep 1.5
  shot_take "$3"
  shot_stop
}

shoot prefer-light 1280 window.png
shoot prefer-dark 1280 window-dark.png
shoot prefer-light 600 window-narrow.png
shoot prefer-dark 600 window-narrow-dark.png
