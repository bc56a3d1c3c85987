#!/usr/bin/env bash
# Takes docs' screenshot of the header's cost popover, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1600x1000x24" tools/screenshot-cost.sh
# The conversation
# (two priced turns of claude-sonnet-4-5, no network) is written into a
# temporary $ZOT_HOME, so the tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work

project="$work/parser"
mkdir -p "$project"
project=$(cd "$project" && pwd -P)
sessions="$work/home/sessions/${project//\//-}"
mkdir -p "$sessions"

# Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per
# million tokens.
{
  printf '{"type":"session","version":1,"id":"cost","cwd":"%s","created":"2025-11-20T10:00:00Z"}\n' "$project"
  printf '%s\n' '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"Why does the parser reject an empty file?"}]}}'
  printf '%s\n' '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"`parse_file` reads the header before anything else, so an empty file fails at once."}],"usage":{"input_tokens":9000,"output_tokens":1400,"cache_read_tokens":0,"cache_write_tokens":14000,"cost_usd":0.1005}}}'
  printf '%s\n' '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"Do that, and add a test."}]}}'
  printf '%s\n' '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"Done: the parser returns an empty document, and `test_empty_file` covers it."}],"usage":{"input_tokens":3000,"output_tokens":1000,"cache_read_tokens":180000,"cache_write_tokens":0,"cost_usd":0.078}}}'
} > "$sessions/2025-11-20-cost.jsonl"

SHOT_WIDTH=1100 SHOT_HEIGHT=640 shot_start "$project" --provider anthropic --api-key sk-not-used \
  --model claude-sonnet-4-5 --no-ext --session "$sessions/2025-11-20-cost.jsonl"
sleep 4   # the keyring wait
# The tokens and cost sit at the right of the header bar, left of the
# side pane's toggle.
shot_popover cost-popover.png 330 805 27
