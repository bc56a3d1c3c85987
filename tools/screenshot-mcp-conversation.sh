#!/usr/bin/env bash
# Takes docs/mcp.md's screenshot of a conversation in which the demo model
# uses an MCP server's tool, reads one of its resources and is sent one of
# its prompts. The server is the reference server-everything that
# tools/deps.sh installs for the tests. Run it as
#   xvfb-run -a -s "-screen 0 1400x1000x24" tools/screenshot-mcp-conversation.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh

server=$PWD/tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$server" ] || { echo "no $server: run tools/deps.sh" >&2; exit 1; }
mkdir -p "$shot_work/home" "$shot_work/project"
cat > "$shot_work/home/mcp.json" <<JSON
{"mcpServers": {"everything": {"command": "node", "args": ["$server", "stdio"]}}}
JSON

SHOT_HEIGHT=${SHOT_HEIGHT:-960}
shot_start "$shot_work/project" --no-session --provider demo
sleep 5   # the keyring wait and the server's start

shot_say '/yolo'
sleep 3
shot_say 'tool: mcp__everything__get-sum {"a": 2, "b": 40}'
sleep 3
shot_say 'tool: mcp_read_resource {"server": "everything", "uri": "demo://resource/static/document/architecture.md"}'
sleep 3
shot_say '/mcp:everything:args-prompt city=Berlin'
sleep 4
shot_take mcp-conversation.png
