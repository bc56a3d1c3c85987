#!/usr/bin/env bash
# Takes docs/mcp.md's screenshot of the /mcp panel with two servers (the
# tests' fake MCP server: one ready in a box, one that fails to start)
# under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-mcp.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work

mkdir -p "$work/home" "$work/project"
cp tests/fake-mcp-server.py "$work/project/"
cat > "$work/home/mcp.json" <<JSON
{"mcpServers": {
  "notes": {"command": "/usr/bin/python3", "args": ["$work/project/fake-mcp-server.py", "normal"],
            "permissions": {"filesystem": "project", "network": true}},
  "tracker": {"command": "python3", "args": ["$PWD/tests/fake-mcp-server.py", "dies"]}}}
JSON

shot_start "$work/project" --no-session --provider demo
sleep 4   # the keyring wait and the servers' start
shot_say "/mcp"
sleep 2
shot_take mcp-panel.png
