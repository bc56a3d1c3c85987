#!/usr/bin/env bash
# Takes docs' screenshot of the header's cost popover, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1600x1000x24" tools/screenshot-cost.sh [BUILD_DIR]
# It needs xdotool and ImageMagick's import and convert. The conversation
# (two priced turns of claude-sonnet-4-5, no network) is written into a
# temporary $ZOT_HOME, so the tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=docs/screenshots
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

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

export GSETTINGS_SCHEMA_DIR="$PWD/$build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo
export ZOT_HOME="$work/home" GDK_BACKEND=x11
"$build/src/zot" --provider anthropic --api-key sk-not-used --model claude-sonnet-4-5 --no-ext \
  --cwd "$project" --session "$sessions/2025-11-20-cost.jsonl" &
pid=$!

window=""
for _ in $(seq 50); do
  window=$(xdotool search --onlyvisible --name 'Zot' 2>/dev/null | head -n1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "no window" >&2; exit 1; }
xdotool windowsize "$window" 1100 640
sleep 4   # the keyring wait
eval "$(xdotool getwindowgeometry --shell "$window")"
import -window root "$work/before.png"
# The tokens and cost sit at the right of the header bar, left of the
# side pane's toggle; the pointer leaves so that no tooltip covers it.
xdotool mousemove --window "$window" 805 27 click 1
xdotool mousemove --window "$window" 300 600
sleep 1.5
# The popover is a window of its own: take the screen, then the window's
# part of it. Xvfb has no compositor, so the popover's shadow margin is
# black: those pixels are taken from the screen before it opened.
import -window root "$work/after.png"
convert "$work/after.png" "$work/before.png" -fx "(u.r+u.g+u.b)==0 ? v : u" "$work/raw.png"
convert "$work/raw.png" -crop "${WIDTH}x330+${X}+${Y}" +repage "$out/cost-popover.png"
