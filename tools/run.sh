#!/usr/bin/env bash
# Builds zot and opens the window with the demo model and the example
# extensions loaded: no network and no API key needed. Without a display it
# shows the same features headless instead.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/deps.sh
[ -d build ] || meson setup build --buildtype=debugoptimized >/dev/null
meson compile -C build >/dev/null

zot=build/src/zot

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "Opening Zot with the demo model and the example extensions."
  echo "Try: /todo (a panel), tool: todo_add {\"text\": \"try zot\"} (a tool call and a note), /help."
  # Run from the tree: the settings schema is compiled into the build
  # directory, not installed.
  export GSETTINGS_SCHEMA_DIR="$PWD/build/data"
  exec $zot --ext examples/extensions/todo --ext examples/extensions/hello-sh --provider demo
fi

echo "No display here: showing Zot headless instead."
echo
demo_home=$(mktemp -d)
export ZOT_HOME="$demo_home"
trap 'rm -rf "$demo_home"' EXIT

echo "\$ zot -p 'hello'"
$zot --no-session -p "hello"
echo
echo "\$ zot -p 'tool: bash {\"command\": \"uname -sr\"}'"
$zot --no-session -p 'tool: bash {"command": "uname -sr"}'
echo
echo "\$ zot ext install --yes examples/extensions/todo"
$zot ext install --yes examples/extensions/todo
echo
echo "\$ zot ext list"
$zot ext list --cwd "$demo_home"
echo
echo "\$ zot -p '/todo add try zot'"
$zot -p "/todo add try zot"
echo
echo "\$ zot --ext examples/extensions/hello-sh -p '/hello desktop'"
$zot --ext examples/extensions/hello-sh -p "/hello desktop"
echo
echo "\$ zot --ext examples/extensions/hello-sh -p '/help'"
$zot --ext examples/extensions/hello-sh -p "/help"
