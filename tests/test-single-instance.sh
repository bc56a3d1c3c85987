#!/bin/sh
# A second `zot` hands its extensions and prompt to the window already
# open: run under a private session bus (dbus-run-session) and a display.
set -eu

home=$(mktemp -d)
trap 'kill "$first" 2>/dev/null || true; rm -rf "$home"' EXIT
export ZOT_HOME="$home"

mkdir -p "$home/ext"
cat > "$home/ext/extension.json" <<JSON
{"name": "handed-over", "exec": "$ZOT_FAKE_EXTENSION",
 "args": ["--name", "handed-over", "--record", "$home/record.jsonl"]}
JSON
: > "$home/record.jsonl"

"$ZOT_BIN" --provider demo --no-session &
first=$!

# The window owns its name on the bus once it is up.
gdbus wait --session --timeout 30 dev.zot.Zot

# The second instance returns at once; the first one loads the extension.
"$ZOT_BIN" --ext "$home/ext" "a prompt for the editor"

# Blocks until the handed-over extension hears hello_ack from the window.
timeout 30 tail -n +1 -F "$home/record.jsonl" 2>/dev/null | grep -m1 hello_ack >/dev/null

# Still one process: the first one answered.
kill -0 "$first"
echo "single instance: ok"
