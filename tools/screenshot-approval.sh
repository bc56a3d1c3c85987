#!/usr/bin/env bash
# Takes docs/screenshots/approval.png (light) and approval-dark.png under
# Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-approval.sh
# The demo model asks to run a bash command; the call's row waits for the
# answer, inline, with nothing focused, while a next message is being
# typed in the prompt.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh

shoot () {
  mkdir -p "$shot_work/$1/project"
  SHOT_SCHEME=$1 ZOT_HOME="$shot_work/$1/home" shot_start "$shot_work/$1/project" --no-session --provider demo
  sleep 3   # the keyring wait
  xdotool type --window "$shot_window" --delay 5 'tool: bash {"command": "git status --short && make -j4 check"}'
  xdotool key --window "$shot_window" Return
  sleep 2
  xdotool type --window "$shot_window" --delay 5 'and then show me the failing tests'
  sleep 1
  import -window "$shot_window" "docs/screenshots/$2"
  shot_stop
}

shoot prefer-light approval.png
shoot prefer-dark approval-dark.png
