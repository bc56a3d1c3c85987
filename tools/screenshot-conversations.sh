#!/usr/bin/env bash
# Takes the README's screenshot of the window with the conversations
# sidebar and a resumed conversation, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1600x1000x24" tools/screenshot-conversations.sh
# The conversations are written into a temporary $ZOT_HOME, so the tree
# stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work

project="$work/parser"
mkdir -p "$project"
project=$(cd "$project" && pwd -P)
# The sessions directory's key: the path with '/' as '-' (no other
# characters to escape in a mktemp path).
sessions="$work/home/sessions/${project//\//-}"
mkdir -p "$sessions"

header () {
  printf '{"type":"session","version":1,"id":"%s","cwd":"%s","created":"2024-05-01T10:00:00Z"}\n' "$1" "$project"
}
user () {
  printf '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"%s"}]}}\n' "$1"
}
assistant () {
  printf '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"%s"}]}}\n' "$1"
}

{
  header resumed
  user "Why does the parser reject an empty file?"
  printf '%s\n' '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"Let me look at the entry point."},{"type":"tool_use","id":"c1","name":"bash","input":{"command":"grep -n \"parse_file\" src/*.c"}}]}}'
  printf '%s\n' '{"type":"message","message":{"role":"tool","content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":[{"type":"text","text":"src/main.c:41:  if (!parse_file (path, &error))\nsrc/parser.c:88:parse_file (const char *path,"}]}]}}'
  printf '%s\n' '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"`parse_file` reads the header before anything else, so an **empty file** fails at once:\n\n```c\nif (length == 0)\n  return set_error (error, \"missing header\");\n```\n\nTreating an empty file as an empty document would keep the rest unchanged."}]}}'
  user "Do that, and add a test."
  printf '%s\n' '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"Done: the parser returns an empty document, and `test_empty_file` covers it."},{"type":"tool_use","id":"c2","name":"edit","input":{"path":"src/parser.c"}}]}}'
  printf '%s\n' '{"type":"message","message":{"role":"tool","content":[{"type":"tool_result","tool_use_id":"c2","is_error":false,"content":[{"type":"text","text":"edited src/parser.c"}]}]}}'
} > "$sessions/2024-05-03-resumed.jsonl"
{ header docs; user "Write the README section on configuration"; assistant "Here is a draft."; } > "$sessions/2024-05-02-docs.jsonl"
{ header ci; user "Set up CI for the test suite"; assistant "A workflow file."; } > "$sessions/2024-05-01-ci.jsonl"
{ header bench; user "Benchmark the tokenizer on large inputs"; assistant "Figures below."; } > "$sessions/2024-04-28-bench.jsonl"
printf 'Release checklist\n' > "$sessions/2024-04-20-release.title"
{ header release; user "What is left before the release?"; assistant "Three things."; } > "$sessions/2024-04-20-release.jsonl"
touch -d '2024-05-03 16:20' "$sessions/2024-05-03-resumed.jsonl"
touch -d '2024-05-02 11:05' "$sessions/2024-05-02-docs.jsonl"
touch -d '2024-05-01 09:40' "$sessions/2024-05-01-ci.jsonl"
touch -d '2024-04-28 18:12' "$sessions/2024-04-28-bench.jsonl"
touch -d '2024-04-20 14:30' "$sessions/2024-04-20-release.jsonl"

SHOT_WIDTH=1500 SHOT_HEIGHT=900 shot_start "$project" --provider demo --no-ext \
  --session "$sessions/2024-05-03-resumed.jsonl"
sleep 4   # the keyring wait, and the list of conversations
shot_take conversations.png
