#!/usr/bin/env bash
# Takes docs/mcp.md's screenshot of the /mcp panel with two servers (the
# tests' fake MCP server: one ready in a box, one that fails to start)
# under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-mcp.sh [BUILDDIR]
# It needs xdotool and ImageMagick's import and convert.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

mkdir -p "$work/home" "$work/project"
cp tests/fake-mcp-server.py "$work/project/"
cat > "$work/home/mcp.json" <<JSON
{"mcpServers": {
  "notes": {"command": "/usr/bin/python3", "args": ["$work/project/fake-mcp-server.py", "normal"],
            "permissions": {"filesystem": "project", "network": true}},
  "tracker": {"command": "python3", "args": ["$PWD/tests/fake-mcp-server.py", "dies"]}}}
JSON

export GSETTINGS_SCHEMA_DIR="$PWD/$build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo
export ZOT_HOME="$work/home" GDK_BACKEND=x11 ZOT_BUILTIN_EXTENSIONS_DIR="$PWD/$build/extensions"
cd "$work/project"
"$OLDPWD/$build/src/zot" --no-session --provider demo &
pid=$!
cd "$OLDPWD"

# --sync waits for the window; timeout bounds the wait.
window=$(timeout 10 xdotool search --sync --onlyvisible --name 'Zot' | head -n1) || { echo "no window" >&2; exit 1; }
xdotool windowsize "$window" 1280 800
sleep 4   # the keyring wait and the servers' start

xdotool type --window "$window" --delay 5 "/mcp"
sleep 0.5
# A slash command's first Return may only close the completions.
xdotool key --window "$window" Escape Return
sleep 2
import -window "$window" "$work/raw.png"
convert "$work/raw.png" -trim +repage docs/screenshots/mcp-panel.png
