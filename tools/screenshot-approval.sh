#!/usr/bin/env bash
# Takes docs/screenshots/approval.png (light) and approval-dark.png under
# Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-approval.sh
# It needs xdotool and ImageMagick's import. The demo model asks to run a
# bash command; the call's row waits for the answer, inline, with nothing
# focused, while a next message is being typed in the prompt.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/screenshots
build=${BUILD:-build}   # the build directory, relative to the top of the tree
work=$(mktemp -d)
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT

shoot () {
  local scheme=$1 file=$2 window=""
  mkdir -p "$work/$scheme/project"
  (cd "$work/$scheme/project" &&
   GSETTINGS_SCHEMA_DIR="$OLDPWD/$build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo \
   ZOT_HOME="$work/$scheme/home" GDK_BACKEND=x11 ADW_DEBUG_COLOR_SCHEME=$scheme \
   exec "$OLDPWD/$build/src/zot" --no-session --provider demo) &
  pid=$!
  for _ in $(seq 50); do
    window=$(xdotool search --onlyvisible --name 'Zot' 2>/dev/null | head -n1 || true)
    [ -n "$window" ] && break
    sleep 0.2
  done
  [ -n "$window" ] || { echo "no window" >&2; exit 1; }
  xdotool windowsize "$window" 1280 800
  sleep 3   # the keyring wait
  xdotool type --window "$window" --delay 5 'tool: bash {"command": "git status --short && make -j4 check"}'
  xdotool key --window "$window" Return
  sleep 2
  xdotool type --window "$window" --delay 5 'and then show me the failing tests'
  sleep 1
  import -window "$window" "$out/$file"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
}

shoot prefer-light approval.png
shoot prefer-dark approval-dark.png
